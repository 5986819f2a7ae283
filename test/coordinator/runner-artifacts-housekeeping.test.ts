import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { runnerRequest, runningJobToken, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

/** Waits until `condition` holds (the expiry sweep runs on the task queue every 100 ms here). */
async function eventually(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what}`);
    await sleep(50);
  }
}

describe('runner protocol: dependency downloads, expiry, keep and erase of artifacts', () => {
  let fixture: JobsFixture;
  let project: CiProject;
  let otherProject: CiProject;
  let base: string;

  before(async () => {
    fixture = await startJobsFixture({ extra: { ci: { artifactExpiryIntervalMs: 100, taskPollIntervalMs: 50 } } });
    project = await fixture.ciProject('deps-app');
    otherProject = await fixture.ciProject('elsewhere');
    base = await fixture.gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => fixture.close());

  const jobDirectory = (job: JobRecord) => path.join(fixture.gantry.dataDir, 'artifacts', String(job.project_id), String(job.id));
  const filesOf = (job: JobRecord) => (existsSync(jobDirectory(job)) ? readdirSync(jobDirectory(job)) : []);

  async function runningJob(name: string, inProject = project): Promise<{ job: JobRecord; token: string }> {
    const { jobs } = await fixture.pipeline(inProject, [{ name, stage: 'build' }]);
    const job = jobs[name]!;
    return { job, token: await runningJobToken(fixture.gantry.coordinator, job) };
  }

  async function upload(job: JobRecord, token: string, query: string, content: Buffer, fileName = 'artifacts.zip'): Promise<void> {
    const answer = await runnerRequest(base, 'POST', `/jobs/${job.id}/artifacts${query}`, { token, body: uploadBody(fileName, content) });
    assert.equal(answer.status, 201, answer.text);
  }

  const download = (job: Pick<JobRecord, 'id'>, token: string | undefined, query = '?direct_download=true') => runnerRequest(base, 'GET', `/jobs/${job.id}/artifacts${query}`, { token });

  it("serves a finished dependency's archive to a running job of the project, and to the dependency's own token (reference §6.2)", async () => {
    const build = await runningJob('build');
    const zip = await zipBytes({ 'dist/app.js': 'built' });
    await upload(build.job, build.token, '?artifact_format=zip&artifact_type=archive', zip, 'build.zip');
    await moveJob(fixture.gantry.coordinator, build.job, 'success');

    const test = await runningJob('test');
    const answer = await download(build.job, test.token);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.bytes, zip);
    assert.equal(answer.headers['content-type'], 'application/octet-stream');
    assert.match(String(answer.headers['content-disposition']), /attachment; filename="build.zip"/);
    assert.equal(answer.headers['content-length'], String(zip.length));

    // GitLab 13.x: the dependency's own token works after it finished; `token` as a query parameter too.
    assert.deepEqual((await download(build.job, build.token, '')).bytes, zip);
    assert.equal((await runnerRequest(base, 'GET', `/jobs/${build.job.id}/artifacts?token=${test.token}`)).status, 200);

    // Refused: no token, an unknown one, a running job of another project, a finished job's token for another job.
    assert.equal((await download(build.job, undefined)).status, 403);
    const unknown = await download(build.job, 'nope');
    assert.equal(unknown.status, 403);
    assert.deepEqual(JSON.parse(unknown.text), { message: '403 Forbidden' });
    const stranger = await runningJob('stranger', otherProject);
    assert.equal((await download(build.job, stranger.token)).status, 403);
    await moveJob(fixture.gantry.coordinator, test.job, 'success');
    assert.equal((await download(build.job, test.token)).status, 403, 'a finished job no longer downloads other jobs');

    // 404: no archive (only a report); no such job is refused like a wrong token (403, GitLab 13.11+).
    const reports = await runningJob('reports');
    await upload(reports.job, reports.token, '?artifact_format=gzip&artifact_type=junit', gzipSync('<x/>'), 'junit.xml.gz');
    const noArchive = await download(reports.job, reports.token);
    assert.equal(noArchive.status, 404);
    assert.deepEqual(JSON.parse(noArchive.text), { message: '404 Not Found' });
    assert.equal((await download({ id: build.job.id + 100_000 }, reports.token)).status, 403);
    assert.equal((await download(build.job, reports.token, '?direct_download=maybe')).status, 400);
  });

  it('removes expired artifacts (files and records) through the task queue; keep cancels the expiry', async () => {
    const short = await runningJob('short-lived');
    // Three seconds: both uploads are stored before the sweep (every 100 ms) may take them, even on a loaded machine.
    await upload(short.job, short.token, '?expire_in=3+sec', await zipBytes({ 'a.txt': 'a' }));
    await upload(short.job, short.token, '?artifact_format=gzip&artifact_type=junit&expire_in=3+sec', gzipSync('<x/>'), 'junit.xml.gz');
    const kept = await runningJob('kept');
    await upload(kept.job, kept.token, '?expire_in=3+sec', await zipBytes({ 'b.txt': 'b' }));
    const lasting = await runningJob('lasting');
    await upload(lasting.job, lasting.token, '', await zipBytes({ 'c.txt': 'c' }));
    assert.equal(filesOf(short.job).length, 2);

    const { stores } = fixture.gantry.coordinator.context;
    const keptExpiry = Date.parse((await stores.jobArtifacts.find(kept.job.id, 'archive'))?.expire_at ?? '');
    assert.ok(keptExpiry > Date.now(), 'kept has not expired before it is kept');
    const keep = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${kept.job.id}/artifacts/keep`);
    assert.equal(keep.status, 200, keep.text);
    assert.equal(keep.json.artifacts_expire_at, null);

    // The job's directory goes after its last file (the store removes it once empty): wait for both.
    await eventually(
      async () => !existsSync(jobDirectory(short.job)) && (await stores.jobArtifacts.find(short.job.id, 'junit')) === undefined,
      'the expired files, their directory and the records are gone',
    );
    assert.equal(await stores.jobArtifacts.find(short.job.id, 'archive'), undefined);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${short.job.id}/artifacts`)).statusCode, 404);

    await sleep(Math.max(0, keptExpiry - Date.now()) + 500); // past the kept job's original expiry, several sweeps later
    assert.equal(filesOf(kept.job).length, 1);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${kept.job.id}/artifacts/b.txt`)).bytes.toString(), 'b');
    // The default expiry (30 days, default_artifacts_expire_in) is far off.
    const lastingRecord = await stores.jobArtifacts.find(lasting.job.id, 'archive');
    assert.ok(lastingRecord && Date.parse(lastingRecord.expire_at ?? '') > Date.now() + 29 * 86_400_000);
    assert.equal(filesOf(lasting.job).length, 1);
  });

  it("erase removes a finished job's trace, archive and reports; its token then downloads nothing", async () => {
    const done = await runningJob('erased');
    await upload(done.job, done.token, '', await zipBytes({ 'a.txt': 'a' }));
    await upload(done.job, done.token, '?artifact_format=gzip&artifact_type=junit', gzipSync('<x/>'), 'junit.xml.gz');
    await fixture.trace(done.job, 'log line\n');
    await moveJob(fixture.gantry.coordinator, done.job, 'success');
    assert.equal(filesOf(done.job).length, 2);

    const erase = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${done.job.id}/erase`);
    assert.equal(erase.status, 201, erase.text);
    assert.deepEqual(filesOf(done.job), []);
    const { stores } = fixture.gantry.coordinator.context;
    assert.deepEqual(await stores.jobArtifacts.listForJobs([done.job.id]), []);
    assert.equal((await fixture.raw(`/projects/${project.id}/jobs/${done.job.id}/trace`)).statusCode, 404);
    // A job with only a report (no archive, no trace) is erasable too.
    const reportOnly = await runningJob('report-only');
    await upload(reportOnly.job, reportOnly.token, '?artifact_format=gzip&artifact_type=junit', gzipSync('<x/>'), 'junit.xml.gz');
    await moveJob(fixture.gantry.coordinator, reportOnly.job, 'success');
    assert.equal((await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${reportOnly.job.id}/erase`)).status, 201);
    assert.deepEqual(filesOf(reportOnly.job), []);

    const afterErase = await download(done.job, done.token);
    assert.equal(afterErase.status, 403);
    assert.deepEqual(JSON.parse(afterErase.text), { message: '403 Forbidden - Job has been erased!' });
    assert.equal(afterErase.headers['job-status'], undefined, "GitLab's forbidden! (not job_forbidden!) sends no Job-Status");
  });
});
