import assert from 'node:assert/strict';
import CRC32 from 'crc-32';
import { execa } from '#deps/execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import { HttpJobSession } from '../../src/runner/http/job-session.ts';
import { Transport } from '../../src/runner/http/transport.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { runnerInfo } from '../../src/runner/version.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import { jobSettings, payload, runnerIdentity, variable } from './support.ts';

describe('a job end to end over HTTP (engine + HttpJobSession + GitLab stand-in)', () => {
  const gitlab = new FakeGitLab();
  let transport: Transport;
  before(async () => {
    await gitlab.start();
    transport = new Transport({ url: gitlab.url, userAgent: 'test', backoffMinMs: 1, backoffMaxMs: 5 });
  });
  after(async () => {
    await transport.close();
    await gitlab.stop();
  });

  it('downloads a dependency, uploads artifacts, streams a masked trace whose crc32 the final PUT carries', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'gantry-e2e-'));
    await execa('bash', ['-c', 'mkdir -p d/lib && echo from-build > d/lib/dep.txt && cd d && zip -qr ../dep.zip lib'], { cwd: work });
    gitlab.artifactsForDownload.set(900, { token: 'build-job-token', zip: await readFile(path.join(work, 'dep.zip')) });
    const job = gitlab.enqueue(
      payload({
        variables: [variable('GIT_STRATEGY', 'none'), variable('API_KEY', 'k3y-s3cret-value', { masked: true, public: false })],
        steps: [{ name: 'script', script: ['cat lib/dep.txt', 'echo key=$API_KEY', 'mkdir -p dist && echo built > dist/app'], timeout: 60, when: 'on_success', allow_failure: false }],
        artifacts: [{ name: 'app', paths: ['dist/'], when: 'on_success', expire_in: '1 day', artifact_type: 'archive', artifact_format: 'zip' }],
        dependencies: [{ id: 900, name: 'build', token: 'build-job-token', artifacts_file: { filename: 'artifacts.zip', size: 1 } }],
      }),
    );
    gitlab.queue.pop();
    job.state = 'running';
    const settings = await jobSettings();
    const session = new HttpJobSession({ transport, jobId: job.payload.id, jobToken: job.payload.token, info: runnerInfo(), updateInterval: 0.05, transferRetryDelayMs: 1 });
    const outcome = await runJob({ payload: job.payload, executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings });
    assert.deepEqual(outcome, { state: 'success' });
    assert.equal(job.state, 'success');
    const trace = job.trace.toString();
    assert.match(trace, /\nfrom-build\n/);
    assert.match(trace, /\nkey=\[MASKED\]\n/);
    assert.ok(!trace.includes('k3y-s3cret-value'));
    const final = job.updates.at(-1) as { output: { checksum: string; bytesize: number } };
    assert.equal(final.output.bytesize, job.trace.length);
    assert.equal(final.output.checksum, `crc32:${(CRC32.buf(job.trace) >>> 0).toString(16).padStart(8, '0')}`);
    assert.equal(job.artifacts.length, 1);
    assert.equal(job.artifacts[0].fileName, 'app.zip');
    assert.equal(job.artifacts[0].query.get('expire_in'), '1 day');
    assert.equal(job.artifacts[0].content.subarray(0, 2).toString(), 'PK');
    const download = gitlab.requestsTo('GET', /\/jobs\/900\/artifacts$/)[0];
    assert.equal(download.headers['job-token'], 'build-job-token');
  });
});
