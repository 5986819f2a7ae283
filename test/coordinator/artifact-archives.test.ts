import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobArtifactRecord, JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { runnerRequest, runningJobToken, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

const MEMBER_LIMIT = 50;
const CENTRAL_DIRECTORY = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
const END_OF_CENTRAL_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** `count` small members `m/000.txt`... holding their own names. */
function numbered(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`m/${String(index).padStart(3, '0')}.txt`, `member ${index}`]));
}

describe('artifacts archives: the member index, its limits, repeated names', () => {
  let fixture: JobsFixture;
  let project: CiProject;
  let base: string;

  before(async () => {
    fixture = await startJobsFixture({ extra: { ci: { archiveMemberLimits: { maxMembers: MEMBER_LIMIT } } } });
    project = await fixture.ciProject('archives-app');
    base = await fixture.gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => fixture.close());

  const stores = () => fixture.gantry.coordinator.context.stores;
  const jobDirectory = (job: JobRecord) => path.join(fixture.gantry.dataDir, 'artifacts', String(job.project_id), String(job.id));
  const member = (job: JobRecord, memberPath: string) => fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/${memberPath}`);

  async function uploaded(name: string, zip: Buffer): Promise<{ job: JobRecord; status: number; text: string }> {
    const { jobs } = await fixture.pipeline(project, [{ name, stage: 'build' }]);
    const job = jobs[name]!;
    const token = await runningJobToken(fixture.gantry.coordinator, job);
    const answer = await runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts`, { token, body: uploadBody('artifacts.zip', zip) });
    return { job, status: answer.status, text: answer.text };
  }

  async function archiveOf(job: JobRecord): Promise<JobArtifactRecord> {
    const archive = await stores().jobArtifacts.find(job.id, 'archive');
    assert.ok(archive, `job ${job.id} has an archive`);
    return archive;
  }

  it('refuses an archive with more members than the limit (413, nothing kept) and takes one at the limit', async () => {
    const over = await uploaded('over', await zipBytes(numbered(MEMBER_LIMIT + 1)));
    assert.equal(over.status, 413, over.text);
    assert.deepEqual(JSON.parse(over.text), {
      message: `413 Request Entity Too Large - the archive has more than ${MEMBER_LIMIT} members, the most an artifacts archive may have`,
    });
    assert.equal(await stores().jobArtifacts.find(over.job.id, 'archive'), undefined);
    assert.equal(existsSync(jobDirectory(over.job)) && readdirSync(jobDirectory(over.job)).length > 0, false, 'no file kept');

    const at = await uploaded('at-limit', await zipBytes(numbered(MEMBER_LIMIT)));
    assert.equal(at.status, 201, at.text);
    assert.equal((await member(at.job, 'm/049.txt')).bytes.toString(), 'member 49');
  });

  it('keeps an archive with repeated names but serves no member of a repeated name, the first included', async () => {
    const zip = await zipBytes({ 'dup.txt': 'first', 'ok.txt': 'fine', 'DUP.txt': 'second' }, [['DUP.txt', 'dup.txt']]);
    const { job, status, text } = await uploaded('repeated', zip);
    assert.equal(status, 201, text);
    const answer = await member(job, 'dup.txt');
    assert.equal(answer.statusCode, 404, answer.bytes.toString());
    assert.equal((await member(job, 'ok.txt')).bytes.toString(), 'fine');
    const entries = await stores().jobArtifacts.listEntries((await archiveOf(job)).id, '', { offset: 0, limit: 10 });
    assert.deepEqual(entries.map((entry) => entry.path), ['ok.txt']);
    assert.deepEqual((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts`)).bytes, zip, 'the archive downloads whole');
  });

  it('serves a member from its recorded location, without reading the central directory again', async () => {
    const { job, status } = await uploaded('located', await zipBytes(numbered(40)));
    assert.equal(status, 201);
    const file = path.join(fixture.gantry.dataDir, (await archiveOf(job)).path);
    const bytes = await readFile(file);
    bytes.fill(0xee, bytes.indexOf(CENTRAL_DIRECTORY), bytes.lastIndexOf(END_OF_CENTRAL_DIRECTORY));
    await writeFile(file, bytes);
    const last = await member(job, 'm/039.txt');
    assert.equal(last.statusCode, 200, last.bytes.toString());
    assert.equal(last.bytes.toString(), 'member 39');
  });

  it('indexes an archive recorded before member locations were kept on its first member request, and keeps the locations', async () => {
    const zip = await zipBytes({ 'a/one.txt': 'one', 'dup.txt': 'first', 'a/two.txt': 'two', 'DUP.txt': 'second' }, [['DUP.txt', 'dup.txt']]);
    const { job, status } = await uploaded('legacy', zip);
    assert.equal(status, 201);
    const archive = await archiveOf(job);
    // What the upload recorded before: no locations, and the first member of a repeated name as a file.
    const legacy = ['a/one.txt', 'a/two.txt', 'dup.txt'].map((entryPath) => ({
      path: entryPath, kind: 'file' as const, size: 3, compressed_size: 3, crc32: 0, mode: 0o100644, modified_at: null, header_offset: null, compression: null,
    }));
    await stores().jobArtifacts.replaceEntries(archive.id, legacy);

    assert.equal((await member(job, 'a/two.txt')).bytes.toString(), 'two');
    const entries = await stores().jobArtifacts.listEntries(archive.id, '', { offset: 0, limit: 10 });
    assert.deepEqual(entries.map((entry) => [entry.path, entry.header_offset !== null, entry.compression]), [['a/one.txt', true, 8], ['a/two.txt', true, 8]]);
    assert.equal((await member(job, 'dup.txt')).statusCode, 404, 'the repeated name is no longer served');
    assert.equal((await member(job, 'a/one.txt')).bytes.toString(), 'one');
  });
});
