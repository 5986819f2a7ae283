import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { BOUNDARY, runnerRequest, runningJobToken, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

const MiB = 1024 * 1024;

/** `count` MiB of bytes, generated as they are sent. */
async function* megabytes(count: number): AsyncGenerator<Buffer> {
  for (let index = 0; index < count; index++) yield Buffer.alloc(MiB, index);
}

/** Every file under `directory` (recursively), relative to it. */
function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}

describe('runner protocol: artifact uploads (POST /jobs/:id/artifacts)', () => {
  let fixture: JobsFixture;
  let project: CiProject;
  let base: string;

  before(async () => {
    fixture = await startJobsFixture();
    project = await fixture.ciProject('uploads-app');
    base = await fixture.gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => fixture.close());

  const jobDirectory = (job: JobRecord) => path.join(fixture.gantry.dataDir, 'artifacts', String(job.project_id), String(job.id));

  async function runningJob(name: string): Promise<{ job: JobRecord; token: string }> {
    const { jobs } = await fixture.pipeline(project, [{ name, stage: 'build' }]);
    const job = jobs[name]!;
    return { job, token: await runningJobToken(fixture.gantry.coordinator, job) };
  }

  function upload(job: JobRecord, token: string | undefined, query: string, fileName: string, content: Buffer | AsyncIterable<Buffer>, fieldName?: string) {
    return runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts${query}`, { token, body: uploadBody(fileName, content, fieldName) });
  }

  it('stores a zip streamed as gitlab-runner sends it (201, body 201), serves it and single files through the jobs API', async () => {
    const { job, token } = await runningJob('package');
    const zip = await zipBytes({ 'out/app.js': 'console.log(1)\n', 'out/docs/readme.txt': 'read me' });
    const answer = await upload(job, token, '?artifact_format=zip&artifact_type=archive&expire_in=1+day', 'myart.zip', zip);
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.text, '201');
    assert.match(String(answer.headers['content-type']), /^application\/json/);

    const archive = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts`);
    assert.equal(archive.statusCode, 200);
    assert.deepEqual(archive.bytes, zip);
    assert.match(String(archive.headers['content-disposition']), /filename="myart.zip"/);
    const file = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/out/docs/readme.txt`);
    assert.equal(file.statusCode, 200);
    assert.equal(file.bytes.toString(), 'read me');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/out/missing.txt`)).statusCode, 404);

    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${job.id}`);
    assert.deepEqual(shown.json.artifacts_file, { filename: 'myart.zip', size: zip.length });
    const expireAt = Date.parse(String(shown.json.artifacts_expire_at));
    assert.ok(Math.abs(expireAt - (Date.now() + 86_400_000)) < 60_000, `expires in a day: ${String(shown.json.artifacts_expire_at)}`);

    const { stores } = fixture.gantry.coordinator.context;
    const record = await stores.jobArtifacts.find(job.id, 'archive');
    assert.ok(record);
    const entries = await stores.jobArtifacts.listEntries(record.id, '', { offset: 0, limit: 100 });
    assert.deepEqual(entries.map((entry) => [entry.path, entry.kind, entry.size]), [['out/app.js', 'file', 15], ['out/docs/readme.txt', 'file', 7]]);
  });

  it('keeps zip-slip members (.., absolute paths, symlinks) out of the recorded members and never serves them', async () => {
    const { job, token } = await runningJob('slip');
    const zip = await zipBytes(
      { 'good.txt': 'fine', 'xx/evil.txt': 'owned', 'Xabs.txt': 'owned', link: { content: '/etc/passwd', mode: 0o120777 } },
      [['xx/evil.txt', '../evil.txt'], ['Xabs.txt', '/abs.txt']],
    );
    assert.equal((await upload(job, token, '', 'artifacts.zip', zip)).status, 201);

    const { stores } = fixture.gantry.coordinator.context;
    const record = await stores.jobArtifacts.find(job.id, 'archive');
    assert.ok(record);
    const entries = await stores.jobArtifacts.listEntries(record.id, '', { offset: 0, limit: 100 });
    assert.deepEqual(entries.map((entry) => entry.path), ['good.txt']);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/good.txt`)).bytes.toString(), 'fine');
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/link`)).statusCode, 404);
    for (const unsafe of ['../evil.txt', '%2E%2E/evil.txt', '%2Fabs.txt']) {
      const answer = await fixture.raw(`/projects/${project.id}/jobs/${job.id}/artifacts/${unsafe}`);
      assert.ok([400, 404].includes(answer.statusCode), `${unsafe}: ${answer.statusCode}`);
      assert.ok(!answer.bytes.toString().includes('owned'));
    }
    // Nothing was extracted anywhere: the job's directory holds the archive alone.
    assert.equal(filesUnder(jobDirectory(job)).length, 1);
  });

  it('stores gzip (junit) and raw (codequality) reports by type, next to the archive', async () => {
    const { job, token } = await runningJob('reports');
    const junit = gzipSync('<testsuites/>');
    assert.equal((await upload(job, token, '?artifact_format=gzip&artifact_type=junit&expire_in=7d', 'junit.xml.gz', junit)).status, 201);
    const raw = Buffer.from('[{"description":"x"}]');
    assert.equal((await upload(job, token, '?artifact_format=raw&artifact_type=codequality', 'gl-code-quality-report.json', raw)).status, 201);
    assert.equal((await upload(job, token, '', 'artifacts.zip', await zipBytes({ 'a.txt': 'a' }))).status, 201);

    const shown = await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${job.id}`);
    const artifacts = (shown.json.artifacts as Array<Record<string, unknown>>).map((artifact) => [artifact.file_type, artifact.file_format, artifact.filename, artifact.size]);
    assert.deepEqual(
      artifacts.sort(),
      [['archive', 'zip', 'artifacts.zip', (shown.json.artifacts_file as { size: number }).size], ['codequality', 'raw', 'gl-code-quality-report.json', raw.length], ['junit', 'gzip', 'junit.xml.gz', junit.length]].sort(),
    );
    const { stores } = fixture.gantry.coordinator.context;
    const stored = await stores.jobArtifacts.find(job.id, 'junit');
    assert.ok(stored && Date.parse(stored.expire_at ?? '') > Date.now() + 6 * 86_400_000);
    assert.equal(filesUnder(jobDirectory(job)).length, 3);

  });

  it('keeps the first upload of a type: the same bytes again answer 201, other bytes 400, and nothing changes', async () => {
    const { job, token } = await runningJob('again');
    const { stores } = fixture.gantry.coordinator.context;
    const junit = gzipSync('<testsuites/>');
    assert.equal((await upload(job, token, '?artifact_format=gzip&artifact_type=junit&expire_in=7d', 'junit.xml.gz', junit)).status, 201);
    const first = await stores.jobArtifacts.find(job.id, 'junit');
    assert.ok(first);
    // A runner retrying after a lost answer sends the same bytes (GitLab: sha256_matches_existing_artifact?).
    const retried = await upload(job, token, '?artifact_format=gzip&artifact_type=junit&expire_in=1d', 'renamed.xml.gz', junit);
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.text, '201');
    assert.deepEqual(await stores.jobArtifacts.find(job.id, 'junit'), first);
    assert.equal(filesUnder(jobDirectory(job)).length, 1);

    const other = await upload(job, token, '?artifact_format=gzip&artifact_type=junit', 'junit.xml.gz', gzipSync('<testsuites></testsuites>'));
    assert.equal(other.status, 400);
    assert.deepEqual(JSON.parse(other.text), { message: 'another artifact of the same type already exists' });
    assert.deepEqual(await stores.jobArtifacts.find(job.id, 'junit'), first);
    assert.equal(filesUnder(jobDirectory(job)).length, 1, 'the refused file is not kept');
    // Another type is still taken.
    assert.equal((await upload(job, token, '', 'artifacts.zip', await zipBytes({ 'a.txt': 'a' }))).status, 201);
  });

  it('answers 413 past max_artifacts_size and keeps nothing on disk or in the database', async () => {
    const { job, token } = await runningJob('huge');
    const changed = await fixture.gantry.api('PUT', '/application/settings', { body: { max_artifacts_size: 2 } });
    assert.equal(changed.status, 200);
    try {
      const answer = await upload(job, token, '', 'artifacts.zip', megabytes(3));
      assert.equal(answer.status, 413);
      assert.deepEqual(JSON.parse(answer.text), { message: '413 Request Entity Too Large' });
      assert.deepEqual(filesUnder(jobDirectory(job)), []);
      assert.equal(existsSync(jobDirectory(job)), false);
      assert.equal(await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive'), undefined);
      // Just under the limit is fine (GitLab: size < max_artifacts_size).
      const fits = await upload(job, token, '?artifact_format=raw&artifact_type=codequality', 'r.json', Buffer.alloc(2 * MiB - 1, 1));
      assert.equal(fits.status, 201, fits.text);
    } finally {
      await fixture.gantry.api('PUT', '/application/settings', { body: { max_artifacts_size: 100 } });
    }
  });

  it('answers 403 for a wrong token, no such job, or a job that is no longer running (with Job-Status)', async () => {
    const { job, token } = await runningJob('guarded');
    const zip = await zipBytes({ 'a.txt': 'a' });
    const wrong = await upload(job, 'not-a-token', '', 'a.zip', zip);
    assert.equal(wrong.status, 403);
    assert.deepEqual(JSON.parse(wrong.text), { message: '403 Forbidden' });
    assert.equal((await upload(job, undefined, '', 'a.zip', zip)).status, 403);

    const other = await runningJob('other');
    assert.equal((await upload(job, other.token, '', 'a.zip', zip)).status, 403, "another job's token");

    assert.equal((await upload({ ...job, id: job.id + 100_000 }, token, '', 'a.zip', zip)).status, 403);

    await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${job.id}/cancel`);
    const canceled = await upload(job, token, '', 'a.zip', zip);
    assert.equal(canceled.status, 403);
    assert.equal(canceled.headers['job-status'], 'canceled');
    assert.deepEqual(JSON.parse(canceled.text), { message: '403 Forbidden - Job is not running' });

    await moveJob(fixture.gantry.coordinator, other.job, 'success');
    assert.equal((await upload(other.job, other.token, '', 'a.zip', zip)).headers['job-status'], 'success');
    assert.equal(await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive'), undefined);

    // GitLab's `forbidden!('Job has been erased!')` comes before the running check, and carries no Job-Status.
    await fixture.gantry.coordinator.context.stores.jobs.update(other.job.id, { erased_at: new Date().toISOString() });
    const erased = await upload(other.job, other.token, '', 'a.zip', zip);
    assert.equal(erased.status, 403);
    assert.deepEqual(JSON.parse(erased.text), { message: '403 Forbidden - Job has been erased!' });
    assert.equal(erased.headers['job-status'], undefined);
  });

  it("reads the job token from the token parameter before the JOB-TOKEN header, as GitLab's `params[:token] || env['HTTP_JOB_TOKEN']`", async () => {
    const { job, token } = await runningJob('token-order');
    const zip = await zipBytes({ 'a.txt': 'a' });
    const paramWrong = await upload(job, token, '?token=not-a-token', 'a.zip', zip);
    assert.equal(paramWrong.status, 403);
    const paramRight = await upload(job, 'not-a-token', `?token=${encodeURIComponent(token)}`, 'a.zip', zip);
    assert.equal(paramRight.status, 201, paramRight.text);
  });

  it('keeps nothing of an upload whose runner goes away halfway, and takes the next one', async () => {
    const { job, token } = await runningJob('dropped');
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n`;
    socket.write(`POST /api/v4/jobs/${job.id}/artifacts HTTP/1.1\r\nHost: x\r\nJob-Token: ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = (bytes: Buffer) => socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
    chunk(Buffer.from(head));
    for (let index = 0; index < 4; index++) chunk(Buffer.alloc(MiB, index));
    await sleep(200);
    socket.destroy();
    await sleep(300);
    assert.deepEqual(filesUnder(jobDirectory(job)), [], 'no partial file');
    assert.equal(await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive'), undefined);
    const retried = await upload(job, token, '', 'a.zip', await zipBytes({ 'a.txt': 'a' }));
    assert.equal(retried.status, 201);
    assert.equal(filesUnder(jobDirectory(job)).length, 1);
  });

  it('answers 400 for a missing file part and for parameters GitLab refuses', async () => {
    const { job, token } = await runningJob('params');
    const zip = await zipBytes({ 'a.txt': 'a' });
    const noFile = await upload(job, token, '', 'a.zip', zip, 'attachment');
    assert.equal(noFile.status, 400);
    assert.deepEqual(JSON.parse(noFile.text), { error: 'file is missing' });
    const notMultipart = await runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts`, { token, body: (async function* () { yield Buffer.from('{}'); })(), contentType: 'application/json' });
    assert.equal(notMultipart.status, 400);

    const badType = await upload(job, token, '?artifact_type=bogus', 'a.zip', zip);
    assert.equal(badType.status, 400);
    assert.match(badType.text, /artifact_type/);
    const badPair = await upload(job, token, '?artifact_type=junit&artifact_format=zip', 'a.zip', zip);
    assert.equal(badPair.status, 400);
    assert.deepEqual(JSON.parse(badPair.text), { message: 'Validation failed: Invalid file format with specified file type' });
    const badExpiry = await upload(job, token, '?expire_in=soonish', 'a.zip', zip);
    assert.equal(badExpiry.status, 400);
    assert.deepEqual(JSON.parse(badExpiry.text), { error: 'expire_in is invalid' });
    assert.equal(await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive'), undefined);
    assert.deepEqual(filesUnder(jobDirectory(job)), []);

    const never = await upload(job, token, '?expire_in=never', 'a.zip', zip);
    assert.equal(never.status, 201);
    assert.equal((await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'archive'))?.expire_at, null);
    // A zero duration is no expiry either (ChronicDuration.parse('0') is nil in GitLab), not an artifact gone at once.
    const zero = await upload(job, token, '?artifact_format=gzip&artifact_type=junit&expire_in=0', 'junit.xml.gz', gzipSync('<x/>'));
    assert.equal(zero.status, 201);
    assert.equal((await fixture.gantry.coordinator.context.stores.jobArtifacts.find(job.id, 'junit'))?.expire_at, null);
  });
});
