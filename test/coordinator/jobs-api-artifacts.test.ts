import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import yauzl from 'yauzl';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

async function zipNames(bytes: Buffer): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return names.sort();
}

describe('jobs API: traces, artifacts, erase and keep', () => {
  let fixture: JobsFixture;
  let project: CiProject;

  before(async () => {
    fixture = await startJobsFixture();
    project = await fixture.ciProject('artifacts-app');
  });
  after(() => fixture.close());

  const api = (...args: Parameters<JobsFixture['gantry']['api']>) => fixture.gantry.api(...args);

  async function finishedJob(name: string, options: { ref?: string; userId?: number } = {}) {
    const { jobs } = await fixture.pipeline(project, [{ name, stage: 'build' }], options);
    await moveJob(fixture.gantry.coordinator, jobs[name]!, 'running');
    await moveJob(fixture.gantry.coordinator, jobs[name]!, 'success');
    return jobs[name]!;
  }

  it('serves the raw trace as text/plain, and 404 before any is written (spec 02)', async () => {
    const job = await finishedJob('traced');
    const missing = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/trace`);
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(JSON.parse(missing.bytes.toString()), { message: '404 Not Found' });
    await fixture.trace(job, 'line one\n');
    await fixture.trace(job, '\u001b[32mline two\u001b[0m\n');
    const trace = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/trace`);
    assert.equal(trace.statusCode, 200);
    assert.match(String(trace.headers['content-type']), /^text\/plain/);
    assert.equal(trace.bytes.toString(), 'line one\n\u001b[32mline two\u001b[0m\n');
  });

  it('streams the archive, one file of it, and the archive of the newest successful job of a ref', async () => {
    const job = await finishedJob('package');
    const none = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts`);
    assert.equal(none.statusCode, 404);
    assert.deepEqual(JSON.parse(none.bytes.toString()), { message: '404 Not Found' });

    await fixture.artifacts(job, { 'dist/app.js': 'console.log(1)\n', 'README.txt': 'hello' });
    const archive = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts`);
    assert.equal(archive.statusCode, 200);
    assert.match(String(archive.headers['content-disposition']), /attachment; filename="artifacts.zip"/);
    assert.deepEqual(await zipNames(archive.bytes), ['README.txt', 'dist/app.js']);

    const file = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/dist/app.js`);
    assert.equal(file.statusCode, 200);
    assert.equal(file.bytes.toString(), 'console.log(1)\n');
    assert.match(String(file.headers['content-disposition']), /filename="app.js"/);

    const shown = await api('GET', `/projects/${project.id}/jobs/${job.id}`);
    assert.deepEqual(shown.json.artifacts_file, { filename: 'artifacts.zip', size: archive.bytes.length });
    assert.deepEqual(shown.json.artifacts, [{ file_type: 'archive', size: archive.bytes.length, filename: 'artifacts.zip', file_format: 'zip' }]);

    const byRef = await fixture.raw(`/projects/${project.id}/jobs/artifacts/main/download?job=package`);
    assert.equal(byRef.statusCode, 200);
    assert.deepEqual(byRef.bytes, archive.bytes);
    const noSuchJob = await api('GET', `/projects/${project.id}/jobs/artifacts/main/download?job=nothing`);
    assert.deepEqual([noSuchJob.status, noSuchJob.json], [404, { message: '404 Not found' }], 'GitLab raises RecordNotFound there');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/artifacts/other-branch/download?job=package`)).statusCode, 404);
    const missingJob = await api('GET', `/projects/${project.id}/jobs/artifacts/main/download`);
    assert.equal(missingJob.status, 400);
    assert.deepEqual(missingJob.json, { error: 'job is missing' });
  });

  it('serves one file of the newest successful job of a ref (raw), with the same path rules', async () => {
    const older = await finishedJob('bundle');
    await fixture.artifacts(older, { 'out/version.txt': 'old' });
    const newer = await finishedJob('bundle');
    await fixture.artifacts(newer, { 'out/version.txt': 'new', 'out/sub/deep.txt': 'deep' });
    const raw = await fixture.raw(`/projects/${project.id}/jobs/artifacts/main/raw/out/version.txt?job=bundle`);
    assert.equal(raw.statusCode, 200);
    assert.equal(raw.bytes.toString(), 'new', 'the newest successful job');
    assert.match(String(raw.headers['content-disposition']), /filename="version.txt"/);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/artifacts/main/raw/out/sub/deep.txt?job=bundle`)).bytes.toString(), 'deep');
    for (const [path, status] of [['out/missing.txt', 404], ['out', 404], ['..%2F..%2Fsecret', 400]] as const) {
      assert.equal((await fixture.raw(`/projects/${project.id}/jobs/artifacts/main/raw/${path}?job=bundle`)).statusCode, status, path);
    }
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/artifacts/main/raw/out/version.txt?job=nothing`)).statusCode, 404);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/artifacts/other-branch/raw/out/version.txt?job=bundle`)).statusCode, 404);
    assert.deepEqual((await api('GET', `/projects/${project.id}/jobs/artifacts/main/raw/out/version.txt`)).json, { error: 'job is missing' });
  });

  it('answers 400 for traversal, absolute or NUL paths and 404 for missing members or directories', async () => {
    const job = await finishedJob('paths');
    await fixture.artifacts(job, { 'a/b.txt': 'b' });
    // A NUL byte is refused before any route (400 as well, with the general message).
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/a/%00b.txt`)).statusCode, 400);
    for (const path of ['a%2F..%2F..%2Fetc%2Fpasswd', '..%2F..%2Fsecret', '%2Fetc%2Fpasswd', 'a/%252e%252e/b.txt', 'a%5C..%5Cb.txt']) {
      const answer = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/${path}`);
      assert.equal(answer.statusCode, 400, path);
      assert.deepEqual(JSON.parse(answer.bytes.toString()), { message: '400 Bad request' }, path);
    }
    for (const path of ['a/missing.txt', 'a', 'a/']) {
      assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/${path}`)).statusCode, 404, path);
    }
    const noArchive = await finishedJob('no-archive');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${noArchive.id}/artifacts/a/b.txt`)).statusCode, 404);
  });

  it('keep: clears the expiry of the artifacts (200); 404 without artifacts; expired artifacts are not served', async () => {
    const job = await finishedJob('expiring');
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${job.id}/artifacts/keep`)).status, 404);
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    await fixture.artifacts(job, { 'x.txt': 'x' }, { expireAt: soon });
    assert.equal((await api('GET', `/projects/${project.id}/jobs/${job.id}`)).json.artifacts_expire_at, soon);
    const kept = await api('POST', `/projects/${project.id}/jobs/${job.id}/artifacts/keep`);
    assert.equal(kept.status, 200);
    assert.equal(kept.json.artifacts_expire_at, null);
    assert.equal(kept.json.status, 'success');
    assert.equal(kept.json.download_url, null);
    const record = await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive');
    assert.equal(record?.expire_at, null);

    const expired = await finishedJob('expired');
    await fixture.artifacts(expired, { 'y.txt': 'y' }, { expireAt: new Date(Date.now() - 1000).toISOString() });
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${expired.id}/artifacts`)).statusCode, 404);
  });

  it('erase: removes trace and artifacts and sets erased_at (201); 403 while running or with nothing to erase', async () => {
    const { jobs } = await fixture.pipeline(project, [{ name: 'long', stage: 'build' }]);
    await moveJob(fixture.gantry.coordinator, jobs.long!, 'running');
    await fixture.trace(jobs.long!, 'still running\n');
    const running = await api('POST', `/projects/${project.id}/jobs/${jobs.long!.id}/erase`);
    assert.equal(running.status, 403);
    assert.deepEqual(running.json, { message: '403 Forbidden - Job is not erasable!' });

    const bare = await finishedJob('bare');
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${bare.id}/erase`)).status, 403);

    const job = await finishedJob('erasable');
    await fixture.trace(job, 'secret output\n');
    await fixture.artifacts(job, { 'out.txt': 'out' });
    const erased = await api('POST', `/projects/${project.id}/jobs/${job.id}/erase`);
    assert.equal(erased.status, 201);
    assert.equal(erased.json.status, 'success');
    assert.ok(erased.json.erased_at);
    assert.deepEqual(erased.json.artifacts, []);
    assert.equal(erased.json.artifacts_file, null);
    assert.equal(erased.json.download_url, null);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/trace`)).statusCode, 404, 'the trace is gone');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts`)).statusCode, 404);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${job.id}/erase`)).status, 403, 'nothing left to erase');
  });
});
