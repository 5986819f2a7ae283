import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { BOUNDARY, runningJobToken } from '../helpers/runner-artifacts.ts';
import { gitProcessesIn, startDownload, waitFor, within } from '../helpers/stalled-requests.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

const MiB = 1024 * 1024;
const GRACE_MS = 1000;
/** Far above what closing takes (about the grace): closing that waits for its clients never gets there. */
const CLOSE_BOUND_MS = 20_000;

describe('long requests: they stop when their client goes and when the coordinator closes', () => {
  let fixture: JobsFixture;
  let project: Awaited<ReturnType<JobsFixture['ciProject']>>;
  let gitDir: string;
  let origin: string;
  const scratch = mkdtempSync(path.join(tmpdir(), 'gantry-long-'));
  const headers = { 'private-token': ROOT_TOKEN };

  before(async () => {
    fixture = await startJobsFixture({ extra: { shutdownGraceMs: GRACE_MS, git: { work: { slots: 1 } } } });
    project = await fixture.ciProject('long-app');
    // 24 MB that do not compress: an archive of them cannot all sit in socket buffers.
    gitDir = path.join(fixture.gantry.dataDir, 'repositories', `${project.id}.git`);
    const git = (args: string[], input?: string) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { input, encoding: 'utf8' }).trim();
    const noise = path.join(scratch, 'noise.bin');
    writeFileSync(noise, randomBytes(24 * MiB));
    const entries = `${git(['ls-tree', project.head])}\n100644 blob ${git(['hash-object', '-w', noise])}\tnoise.bin\n`;
    const commit = git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit-tree', git(['mktree'], entries), '-p', project.head, '-m', 'noise']);
    git(['update-ref', 'refs/heads/main', commit, project.head]);
    origin = await fixture.gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  });

  after(async () => {
    await fixture?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const archiving = () => gitProcessesIn(gitDir).filter((process) => process.includes('archive'));

  it('drops a web archive download (release sources) from the git queue when its client leaves', async () => {
    const { work } = fixture.gantry.coordinator.context.repositories;
    const running = await startDownload(`${origin}/api/v4/projects/${project.id}/repository/archive.tar?sha=main`, { headers });
    assert.equal(work.running, 1, 'the stalled download holds the one slot');
    const queued = http.get(`${origin}/${project.full_path}/-/archive/main/long-app-main.zip`, { headers });
    queued.on('error', () => undefined);
    await waitFor(() => work.queued === 1, 'the web archive to queue');
    queued.destroy();
    await waitFor(() => work.queued === 0, 'the web archive to leave the queue');
    running.hangUp();
    await waitFor(() => archiving().length === 0, 'git archive to stop');
    await waitFor(() => work.running === 0, 'the slot to be released');
  });

  it('closes within its bound while a member download, a repository archive and an upload are in flight, and stops each', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'built', stage: 'build' }, { name: 'uploading', stage: 'build' }]);
    // 32 MiB once inflated (a small archive): more than the socket buffers hold.
    await fixture.artifacts(jobs.built!, { 'big.bin': 'all work and no play '.repeat(1.5 * MiB) });
    const member = await startDownload(`${origin}/api/v4/projects/${project.id}/jobs/${jobs.built!.id}/artifacts/big.bin`, { headers });
    assert.equal(member.status, 200);
    const archive = await startDownload(`${origin}/api/v4/projects/${project.id}/repository/archive.tar?sha=main`, { headers });
    assert.equal(archive.status, 200);
    assert.notDeepEqual(archiving(), [], 'git archive runs');
    const upload = await startUpload(jobs.uploading!);

    await within(fixture.gantry.coordinator.close(), CLOSE_BOUND_MS, 'closing the coordinator');

    const [, , uploadAnswer] = await within(Promise.all([member.drain(), archive.drain(), upload.drain()]), CLOSE_BOUND_MS, 'the connections closing');
    // Stopped by the coordinator, not cut off: the runner is told to try again later.
    assert.match(uploadAnswer, /^HTTP\/1\.1 503 /);
    assert.ok(uploadAnswer.endsWith('{"message":"503 Service Unavailable"}'), uploadAnswer);
    await waitFor(() => archiving().length === 0, `git archive to stop (${archiving().join('; ')})`);
    assert.deepEqual(partialFiles(jobs.uploading!), [], 'nothing of the upload is left');
  });

  const jobDirectory = (job: JobRecord) => path.join(fixture.gantry.dataDir, 'artifacts', String(job.project_id), String(job.id));
  const partialFiles = (job: JobRecord) => (existsSync(jobDirectory(job)) ? readdirSync(jobDirectory(job)) : []);

  /** An artifacts upload that sends its first 4 MiB and then waits, until its temporary file is on disk. */
  async function startUpload(job: JobRecord): Promise<{ drain(): Promise<string> }> {
    const token = await runningJobToken(fixture.gantry.coordinator, job);
    const socket = connect(Number(new URL(origin).port), '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /api/v4/jobs/${job.id}/artifacts HTTP/1.1\r\nHost: x\r\nJob-Token: ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = (bytes: Buffer) => socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
    chunk(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n`));
    for (let index = 0; index < 4; index++) chunk(Buffer.alloc(MiB, index));
    await waitFor(() => partialFiles(job).some((name) => name.endsWith('.partial')), 'the upload to reach the disk');
    return {
      drain: async () => {
        const received: Buffer[] = [];
        socket.on('data', (bytes: Buffer) => received.push(bytes));
        await closed;
        return Buffer.concat(received).toString();
      },
    };
  }
});
