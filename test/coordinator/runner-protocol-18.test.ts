/**
 * gitlab-runner 18.x against the coordinator, its requests replayed as its published source
 * builds them (common/network.go, network/gitlab.go, network/trace.go at 18.x): a runner
 * created with `POST /user/runners`, `register --token glrt-…` (verify with `system_id`,
 * no `info`), job requests with `system_id` and 18.x's 31 features (`cancel_gracefully`,
 * `two_phase_job_commit`, ...), the first `PUT state=running` after pickup, trace PATCHes to
 * `trace?debug_trace=false` carrying FF_TIMESTAMPS lines, a graceful cancel answered
 * `Job-Status: canceling` and finished with `failed`/`job_canceled`, a token reset, and
 * `DELETE /runners/managers`. 13.12's requests are replayed by the other runner tests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderedLines } from '../../src/shared/log-lines.ts';
import { INFO_18, traceChecksum as crc, USER_AGENT_18 as USER_AGENT } from '../helpers/gitlab-runner-18.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

const SYSTEM_ID = 's_5f3c0a9d21be';

describe('gitlab-runner 18.x requests', () => {
  let fixture: RunnerJobsFixture;
  let token: string;
  let runnerId: number;

  /** doJSON: JSON body, `Accept` when an answer is decoded, 18.x's user agent, no user credential. */
  const json = async (method: 'POST' | 'PUT' | 'DELETE', path: string, body: unknown, accept = true) => {
    const response = await fetch(`${fixture.baseUrl}/api/v4${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...(accept ? { accept: 'application/json' } : {}) },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };

  /** PatchTrace of 18.x: `?debug_trace=false`, an inclusive Content-Range, JOB-TOKEN, text/plain. */
  const patch = (jobId: number, jobToken: string, offset: number, bytes: Buffer) =>
    fetch(`${fixture.baseUrl}/api/v4/jobs/${jobId}/trace?debug_trace=false`, {
      method: 'PATCH',
      headers: { 'content-type': 'text/plain', 'content-range': `${offset}-${offset + bytes.length - 1}`, 'job-token': jobToken, 'user-agent': USER_AGENT },
      body: bytes,
    });

  before(async () => {
    fixture = await startRunnerJobsFixture();
    const created = await fixture.gantry.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description: 'eighteen', tag_list: '', run_untagged: true } });
    assert.equal(created.status, 201, created.text);
    token = String(created.json.token);
    runnerId = Number(created.json.id);
  });
  after(() => fixture.close());

  it('register --token glrt-…: verify with system_id answers {id, token, token_expires_at}; the host becomes a manager', async () => {
    const verified = await json('POST', '/runners/verify', { token, system_id: SYSTEM_ID });
    assert.equal(verified.status, 200);
    assert.equal(verified.headers.get('content-type'), 'application/json');
    assert.deepEqual(verified.json(), { id: runnerId, token, token_expires_at: null });
    assert.notEqual(verified.json().id, 0, 'runner 18 refuses an id of 0');
    const managers = (await fixture.gantry.api('GET', `/runners/${runnerId}/managers`)).list;
    assert.deepEqual(managers.map((manager) => manager.system_id), [SYSTEM_ID]);
  });

  it('runs a job: request, first PUT running, timestamped trace, graceful cancel, failed/job_canceled → canceled', async () => {
    const project = await fixture.ciProject('eighteen', 'stages: [build, test]\nbuild:\n  stage: build\n  script: sleep 600\n  after_script: echo cleanup\ntest:\n  stage: test\n  script: echo test\n');
    const pipelineId = await fixture.runPipeline(project.id);

    const requested = await json('POST', '/jobs/request', { info: INFO_18, token, system_id: SYSTEM_ID });
    assert.equal(requested.status, 201, requested.text);
    assert.equal(requested.headers.get('content-type'), 'application/json');
    const payload = requested.json() as { id: number; token: string; features: { trace_sections: boolean } };
    assert.ok(payload.id > 0 && payload.token.length > 0);
    const stored = await fixture.gantry.coordinator.context.stores.jobs.findById(payload.id);
    assert.equal(stored?.cancel_gracefully, true, 'the job remembers that its runner cancels gracefully');
    const manager = (await fixture.gantry.api('GET', `/runners/${runnerId}/managers`)).list[0];
    assert.deepEqual([manager.version, manager.revision, manager.platform, manager.architecture], ['18.11.0', '3b6f2a9c', 'linux', 'amd64']);

    // 18.x updates the job to running right after pickup (UpdateJobRequest: info, token, state, output).
    const ack = await json('PUT', `/jobs/${payload.id}`, { info: INFO_18, token: payload.token, state: 'running', output: {} }, false);
    assert.deepEqual([ack.status, ack.headers.get('job-status'), ack.text], [200, 'running', '200']);

    const first = Buffer.from(
      '2026-11-22T08:00:00.000001Z 00O \x1b[0KRunning with gitlab-runner 18.11.0 (3b6f2a9c)\x1b[0;m\n' +
        '2026-11-22T08:00:00.000201Z 00O section_start:1795334400:step_script\r\n' +
        '2026-11-22T08:00:00.000202Z 00O+\x1b[0K\x1b[0K\x1b[36;1mExecuting "step_script" stage of the job script\x1b[0;m\x1b[0;m\n' +
        '2026-11-22T08:00:01.500000Z 01O \x1b[32;1m$ sleep 600\x1b[0;m\n',
    );
    const patched = await patch(payload.id, payload.token, 0, first);
    assert.deepEqual([patched.status, patched.headers.get('range'), patched.headers.get('job-status'), patched.headers.get('x-gitlab-trace-update-interval')], [202, `0-${first.length}`, 'running', '3']);

    const canceled = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${payload.id}/cancel`);
    assert.deepEqual([canceled.status, canceled.json.status], [201, 'canceling']);
    // touchJob's keep-alive and the next PATCH both tell the runner to cancel gracefully.
    const keepAlive = await json('PUT', `/jobs/${payload.id}`, { info: INFO_18, token: payload.token, state: 'running', output: { checksum: crc(first), bytesize: first.length } }, false);
    assert.deepEqual([keepAlive.status, keepAlive.headers.get('job-status')], [200, 'canceling']);
    const afterScript = Buffer.from(
      '2026-11-22T08:00:05.000000Z 00O section_start:1795334405:after_script\r\n' +
        '2026-11-22T08:00:05.000100Z 00O+\x1b[0K\x1b[0K\x1b[36;1mRunning after_script\x1b[0;m\x1b[0;m\n' +
        '2026-11-22T08:00:05.100000Z 01O cleanup\n' +
        '2026-11-22T08:00:05.200000Z 00O \x1b[31;1mERROR: Job failed: canceled\x1b[0;m\n',
    );
    const second = await patch(payload.id, payload.token, first.length, afterScript);
    assert.deepEqual([second.status, second.headers.get('job-status')], [202, 'canceling']);

    const whole = Buffer.concat([first, afterScript]);
    const final = await json('PUT', `/jobs/${payload.id}`, {
      info: INFO_18, token: payload.token, state: 'failed', failure_reason: 'job_canceled', checksum: crc(whole), output: { checksum: crc(whole), bytesize: whole.length },
    }, false);
    assert.deepEqual([final.status, final.headers.get('job-status')], [200, 'canceled']);
    const job = (await fixture.gantry.api('GET', `/projects/${project.id}/jobs/${payload.id}`)).json;
    assert.equal(job.status, 'canceled');
    assert.equal((await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipelineId}`)).json.status, 'canceled');

    // Stored and served byte for byte; renderers read the time apart from the text.
    const served = await fetch(`${fixture.baseUrl}/api/v4/projects/${project.id}/jobs/${payload.id}/trace`, { headers: { 'private-token': fixture.gantry.rootToken } });
    const bytes = Buffer.from(await served.arrayBuffer());
    assert.deepEqual(bytes, whole);
    const lines = renderedLines(bytes.toString());
    assert.deepEqual(lines.find((line) => line.text === 'cleanup\n'), { time: '2026-11-22T08:00:05.100000Z', text: 'cleanup\n' });
    assert.ok(lines.some((line) => line.text.startsWith('section_start:1795334400:step_script\r\x1b[0K')), 'continuations join their line');
  });

  it('resets its token (201 {token, token_expires_at}); the old one stops at once', async () => {
    const reset = await json('POST', '/runners/reset_authentication_token', { token });
    assert.equal(reset.status, 201);
    const next = String(reset.json().token);
    assert.match(next, /^glrt-/);
    assert.equal((await json('POST', '/jobs/request', { info: INFO_18, token, system_id: SYSTEM_ID })).status, 403);
    assert.equal((await json('POST', '/jobs/request', { info: INFO_18, token: next, system_id: SYSTEM_ID })).status, 204);
    token = next;
  });

  it('unregisters its manager, then the runner (DELETE with a JSON body)', async () => {
    const manager = await json('DELETE', '/runners/managers', { token, system_id: SYSTEM_ID }, false);
    assert.deepEqual([manager.status, manager.text], [204, '']);
    assert.deepEqual((await fixture.gantry.api('GET', `/runners/${runnerId}/managers`)).list, []);
    const runner = await json('DELETE', '/runners', { token }, false);
    assert.equal(runner.status, 204);
    assert.equal((await fixture.gantry.api('GET', `/runners/${runnerId}`)).status, 404);
  });
});
