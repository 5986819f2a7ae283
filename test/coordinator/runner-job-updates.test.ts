/**
 * The runner's side of a running job over real HTTP (reference/runner-protocol.md §4–§5):
 * trace PATCH (202, 416 and its recovery, 400, 403 with Job-Status, 413), job PUT (200
 * keep-alive and final states, 202 then 412 while the trace is short, 403 with Job-Status,
 * 400), cancel delivered through Job-Status, checksum checks and the live trace read back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import CRC32 from 'crc-32';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

let fixture: RunnerJobsFixture;

before(async () => {
  fixture = await startRunnerJobsFixture();
});
after(async () => {
  await fixture.close();
});

function crc(bytes: Uint8Array): string {
  return `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;
}

async function patchTrace(jobId: number, token: string | null, range: string | null, body: Uint8Array): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'text/plain' };
  if (token !== null) headers['job-token'] = token;
  if (range !== null) headers['content-range'] = range;
  return fetch(`${fixture.apiUrl}/jobs/${jobId}/trace`, { method: 'PATCH', headers, body });
}

async function putJob(jobId: number, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${fixture.apiUrl}/jobs/${jobId}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** A fresh running job of a new two-stage pipeline (build, then test). */
async function runningJob(name: string): Promise<{ jobId: number; pipelineId: number; token: string; projectId: number }> {
  const project = await fixture.project(name);
  const seeded = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }]);
  const { job, token } = await fixture.claim(project);
  assert.equal(job.id, seeded.jobs.build!.id);
  return { jobId: job.id, pipelineId: seeded.pipeline.id, token, projectId: project.id };
}

async function readTrace(projectId: number, jobId: number): Promise<Buffer> {
  const response = await fetch(`${fixture.apiUrl}/projects/${projectId}/jobs/${jobId}/trace`, { headers: { 'private-token': fixture.developer.token } });
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

describe('PATCH /jobs/:id/trace', () => {
  it('appends at the offset and answers 202 with Range, Job-Status and the update interval; the live log reads back byte for byte', async () => {
    const { jobId, token, projectId } = await runningJob('trace-append');
    const first = Buffer.from('\x1b[0KRunning with gitlab-runner\r\n\x1b[32;1m$ echo hi\x1b[0;m\n');
    const second = Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0d, 0x0a]); // not UTF-8: kept as sent
    const one = await patchTrace(jobId, token, `0-${first.length - 1}`, first);
    assert.equal(one.status, 202);
    assert.equal(one.headers.get('range'), `0-${first.length}`);
    assert.equal(one.headers.get('job-status'), 'running');
    // 3 s while a job runs (GitLab answers 30): a stock runner learns of a cancel within 3 s.
    assert.equal(one.headers.get('x-gitlab-trace-update-interval'), '3');
    // The end of Content-Range is ignored (older runners sent exclusive ends).
    const two = await patchTrace(jobId, token, `${first.length}-${first.length + second.length}`, second);
    assert.equal(two.status, 202);
    assert.equal(two.headers.get('range'), `0-${first.length + second.length}`);
    assert.deepEqual(await readTrace(projectId, jobId), Buffer.concat([first, second]));
    // Someone reads the log: the runner is asked to send more often.
    const three = await patchTrace(jobId, token, `${first.length + second.length}-0`, Buffer.from('more\n'));
    assert.equal(three.status, 202);
    assert.equal(three.headers.get('x-gitlab-trace-update-interval'), '3');
  });

  it('answers 416 with the stored size on a gap or overlap, writes nothing, and the runner recovers from Range', async () => {
    const { jobId, token, projectId } = await runningJob('trace-416');
    assert.equal((await patchTrace(jobId, token, '0-9', Buffer.from('0123456789'))).status, 202);
    const gap = await patchTrace(jobId, token, '15-19', Buffer.from('fghij'));
    assert.equal(gap.status, 416);
    assert.equal(gap.headers.get('range'), '0-10');
    const overlap = await patchTrace(jobId, token, '5-14', Buffer.from('56789abcde'));
    assert.equal(overlap.status, 416);
    assert.equal(overlap.headers.get('range'), '0-10');
    // As runner v13 does: the sent offset becomes the number after '-', and it resends from there.
    const resumeAt = Number(overlap.headers.get('range')!.split('-')[1]);
    const resumed = await patchTrace(jobId, token, `${resumeAt}-19`, Buffer.from('abcdefghij').subarray(0, 10));
    assert.equal(resumed.status, 202);
    assert.equal(resumed.headers.get('range'), '0-20');
    assert.equal((await readTrace(projectId, jobId)).toString(), '0123456789abcdefghij');
  });

  it('answers 403 for a wrong or missing token and an unknown job, 400 without Content-Range; the query token works', async () => {
    const { jobId, token } = await runningJob('trace-auth');
    const other = await runningJob('trace-auth-other');
    assert.equal((await patchTrace(jobId, 'not-a-token', '0-1', Buffer.from('ab'))).status, 403);
    assert.equal((await patchTrace(jobId, null, '0-1', Buffer.from('ab'))).status, 403);
    const crossed = await patchTrace(jobId, other.token, '0-1', Buffer.from('ab'));
    assert.equal(crossed.status, 403);
    assert.equal(crossed.headers.get('job-status'), null);
    assert.equal((await patchTrace(999_999, token, '0-1', Buffer.from('ab'))).status, 403);
    const noRange = await patchTrace(jobId, token, null, Buffer.from('ab'));
    assert.equal(noRange.status, 400);
    assert.match(await noRange.text(), /Content-Range/);
    assert.equal((await patchTrace(jobId, token, 'bytes=0-1', Buffer.from('ab'))).status, 400);
    const byQuery = await fetch(`${fixture.apiUrl}/jobs/${jobId}/trace?token=${encodeURIComponent(token)}`, {
      method: 'PATCH', headers: { 'content-type': 'text/plain', 'content-range': '0-1' }, body: 'ab',
    });
    assert.equal(byQuery.status, 202);
    // GitLab reads `params[:token] || env['HTTP_JOB_TOKEN']`: a query token wins over the header.
    const queryFirst = (query: string, header: string) =>
      fetch(`${fixture.apiUrl}/jobs/${jobId}/trace?token=${encodeURIComponent(query)}`, {
        method: 'PATCH', headers: { 'content-type': 'text/plain', 'content-range': '2-3', 'job-token': header }, body: 'cd',
      });
    assert.equal((await queryFirst('not-a-token', token)).status, 403);
    assert.equal((await queryFirst(token, 'not-a-token')).status, 202);
    assert.equal((await fixture.job(jobId)).status, 'running');
  });

  it('refuses a patch body over the per-request bound with 413 and keeps nothing of it', async () => {
    const { jobId, token } = await runningJob('trace-413');
    const huge = Buffer.alloc(4 * 1024 * 1024 + 1, 0x61);
    const response = await patchTrace(jobId, token, `0-${huge.length - 1}`, huge);
    assert.equal(response.status, 413);
    const ok = await patchTrace(jobId, token, '0-0', Buffer.from('x'));
    assert.equal(ok.headers.get('range'), '0-1');
  });
});

describe('cancel through Job-Status', () => {
  it('a canceled job answers 403 with Job-Status: canceled to PATCH and to the final PUT', async () => {
    const { jobId, token, projectId, pipelineId } = await runningJob('cancel');
    assert.equal((await patchTrace(jobId, token, '0-4', Buffer.from('start'))).status, 202);
    const canceled = await fetch(`${fixture.apiUrl}/projects/${projectId}/jobs/${jobId}/cancel`, { method: 'POST', headers: { 'private-token': fixture.gantry.rootToken } });
    assert.equal(canceled.status, 201);
    const patch = await patchTrace(jobId, token, '5-9', Buffer.from('after'));
    assert.equal(patch.status, 403);
    assert.equal(patch.headers.get('job-status'), 'canceled');
    const put = await putJob(jobId, { token, state: 'failed', failure_reason: 'job_canceled', output: { checksum: crc(Buffer.from('start')), bytesize: 5 } });
    assert.equal(put.status, 403);
    assert.equal(put.headers.get('job-status'), 'canceled');
    const job = await fixture.job(jobId);
    assert.equal(job.status, 'canceled');
    assert.equal((await fixture.gantry.coordinator.context.stores.pipelines.findById(pipelineId))?.status, 'canceled');
    assert.equal((await readTrace(projectId, jobId)).toString(), 'start');
  });
});

describe('PUT /jobs/:id', () => {
  it('a keep-alive (state running) answers 200 and touches updated_at', async () => {
    const { jobId, token } = await runningJob('keepalive');
    const old = '2020-01-01T00:00:00.000Z';
    await fixture.gantry.coordinator.context.stores.jobs.update(jobId, { updated_at: old });
    const response = await putJob(jobId, { token, state: 'running', output: { checksum: 'crc32:00000000', bytesize: 0 }, info: { name: 'gitlab-runner', version: '13.12.0' } });
    assert.equal(response.status, 200);
    const job = await fixture.job(jobId);
    assert.equal(job.status, 'running');
    assert.ok(Date.parse(job.updated_at) > Date.parse(old) + 1000);
  });

  it('answers 403 for a bad token and an unknown job, 400 for a missing token and a state it does not know', async () => {
    const { jobId, token } = await runningJob('put-refusals');
    const wrong = await putJob(jobId, { token: 'nope', state: 'success' });
    assert.equal(wrong.status, 403);
    assert.deepEqual(await wrong.json(), { message: '403 Forbidden' });
    assert.equal(wrong.headers.get('job-status'), null);
    assert.equal((await putJob(jobId, { token: '', state: 'success' })).status, 403, 'an empty token is given, and wrong');
    assert.equal((await putJob(999_998, { token, state: 'success' })).status, 403);
    // grape's `requires :token` answers before the job is looked at, known or not.
    for (const id of [jobId, 999_998]) {
      const missing = await putJob(id, { state: 'success' });
      assert.equal(missing.status, 400);
      assert.deepEqual(await missing.json(), { error: 'token is missing' });
    }
    assert.equal((await putJob(jobId, { token, state: 'exploded' })).status, 400);
    assert.equal((await putJob(jobId, { token })).status, 400);
    assert.equal((await fixture.job(jobId)).status, 'running');
  });

  it("an erased job's token is refused with GitLab's reason and no Job-Status, on PUT and PATCH", async () => {
    const { jobId, token } = await runningJob('put-erased');
    await fixture.gantry.coordinator.context.stores.jobs.update(jobId, { erased_at: new Date().toISOString() });
    for (const response of [await putJob(jobId, { token, state: 'success' }), await patchTrace(jobId, token, '0-1', Buffer.from('hi'))]) {
      assert.equal(response.status, 403);
      assert.deepEqual(await response.json(), { message: '403 Forbidden - Job has been erased!' });
      assert.equal(response.headers.get('job-status'), null);
    }
  });

  it('a success moves the pipeline on; a second update gets 403 with Job-Status: success', async () => {
    const { jobId, token, pipelineId } = await runningJob('success');
    const trace = Buffer.from('Job succeeded\n');
    assert.equal((await patchTrace(jobId, token, `0-${trace.length - 1}`, trace)).status, 202);
    const response = await putJob(jobId, { token, state: 'success', checksum: crc(trace), output: { checksum: crc(trace), bytesize: trace.length } });
    assert.equal(response.status, 200);
    const job = await fixture.job(jobId);
    assert.equal(job.status, 'success');
    assert.equal(job.trace_size, trace.length);
    assert.equal(job.trace_checksum, crc(trace));
    const jobs = await fixture.gantry.coordinator.context.stores.jobs.loadPipelineJobs(pipelineId);
    assert.equal(jobs.find((candidate) => candidate.name === 'test')?.status, 'pending');
    const again = await putJob(jobId, { token, state: 'success' });
    assert.equal(again.status, 403);
    assert.equal(again.headers.get('job-status'), 'success');
    assert.deepEqual(await again.json(), { message: '403 Forbidden - Job is not running' });
    const late = await patchTrace(jobId, token, `${trace.length}-0`, Buffer.from('x'));
    assert.equal(late.status, 403);
    assert.equal(late.headers.get('job-status'), 'success');
  });

  it('a failure keeps the failure reason and exit code; unknown reasons become unknown_failure', async () => {
    const first = await runningJob('failed-script');
    assert.equal((await putJob(first.jobId, { token: first.token, state: 'failed', failure_reason: 'script_failure', exit_code: 3 })).status, 200);
    const failed = await fixture.job(first.jobId);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'script_failure');
    assert.equal(failed.exit_code, 3);
    assert.equal((await fixture.gantry.coordinator.context.stores.pipelines.findById(first.pipelineId))?.status, 'failed');
    const second = await runningJob('failed-unknown');
    assert.equal((await putJob(second.jobId, { token: second.token, state: 'failed', failure_reason: 'cosmic_rays' })).status, 200);
    assert.equal((await fixture.job(second.jobId)).failure_reason, 'unknown_failure');
    // GitLab 19.1's runner reasons are GitLab's own: kept as sent.
    const third = await runningJob('failed-interrupted');
    assert.equal((await putJob(third.jobId, { token: third.token, state: 'failed', failure_reason: 'runner_interrupted' })).status, 200);
    assert.equal((await fixture.job(third.jobId)).failure_reason, 'runner_interrupted');
  });

  it('a final update short of the declared trace gets 202, then 412; after the resend (416 recovery) it gets 200', async () => {
    const { jobId, token, projectId } = await runningJob('short-trace');
    const whole = Buffer.from('line one\nline two\nline three\n');
    const sent = 9;
    assert.equal((await patchTrace(jobId, token, `0-${sent - 1}`, whole.subarray(0, sent))).status, 202);
    const final = { token, state: 'success', checksum: crc(whole), output: { checksum: crc(whole), bytesize: whole.length } };
    const accepted = await putJob(jobId, final);
    assert.equal(accepted.status, 202);
    assert.equal(accepted.headers.get('x-gitlab-trace-update-interval'), '1');
    assert.equal((await fixture.job(jobId)).status, 'running');
    const short = await putJob(jobId, final);
    assert.equal(short.status, 412);
    assert.equal((await fixture.job(jobId)).status, 'running');
    // 412: the runner resends from offset 0; our 416 tells it where we are; it sends the rest.
    const fromZero = await patchTrace(jobId, token, `0-${whole.length - 1}`, whole);
    assert.equal(fromZero.status, 416);
    const at = Number(fromZero.headers.get('range')!.split('-')[1]);
    assert.equal(at, sent);
    assert.equal((await patchTrace(jobId, token, `${at}-${whole.length - 1}`, whole.subarray(at))).status, 202);
    const done = await putJob(jobId, final);
    assert.equal(done.status, 200);
    assert.equal((await fixture.job(jobId)).status, 'success');
    assert.deepEqual(await readTrace(projectId, jobId), whole);
  });

  it('a final update retried after 202 gets 200 once the last patch landed', async () => {
    const { jobId, token } = await runningJob('retry-after-202');
    const whole = Buffer.from('abcdef');
    assert.equal((await patchTrace(jobId, token, '0-2', whole.subarray(0, 3))).status, 202);
    const final = { token, state: 'failed', failure_reason: 'script_failure', exit_code: 1, output: { checksum: crc(whole), bytesize: whole.length } };
    assert.equal((await putJob(jobId, final)).status, 202);
    assert.equal((await patchTrace(jobId, token, '3-5', whole.subarray(3))).status, 202);
    assert.equal((await putJob(jobId, final)).status, 200);
    const job = await fixture.job(jobId);
    assert.equal(job.status, 'failed');
    assert.equal(job.trace_checksum, crc(whole));
  });

  it('a checksum that does not match the stored trace is recorded as stored, and does not hold the job back', async () => {
    const { jobId, token } = await runningJob('checksum-mismatch');
    const stored = Buffer.from('what we got');
    assert.equal((await patchTrace(jobId, token, `0-${stored.length - 1}`, stored)).status, 202);
    const declared = crc(Buffer.from('what it had'));
    assert.notEqual(declared, crc(stored));
    const response = await putJob(jobId, { token, state: 'success', checksum: declared, output: { checksum: declared, bytesize: stored.length } });
    assert.equal(response.status, 200);
    const job = await fixture.job(jobId);
    assert.equal(job.status, 'success');
    assert.equal(job.trace_checksum, crc(stored));
  });

  it('takes the whole trace of a 10.x runner from the `trace` parameter', async () => {
    const { jobId, token, projectId } = await runningJob('v10-trace');
    assert.equal((await patchTrace(jobId, token, '0-4', Buffer.from('hello'))).status, 202);
    assert.equal((await putJob(jobId, { token, state: 'success', trace: 'hello world\n' })).status, 200);
    assert.equal((await readTrace(projectId, jobId)).toString(), 'hello world\n');
  });
});
