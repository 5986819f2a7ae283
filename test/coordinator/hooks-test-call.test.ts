import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('POST /projects/:id/hooks/:hook_id/test/:trigger', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let receiver: HookReceiver;
  let failing: HookReceiver;
  let hookId: number;

  const test = (trigger: string, hook = hookId) => gantry.api('POST', `/projects/${projectId}/hooks/${hook}/test/${trigger}`);
  /** Another hook to the same receiver: test calls are limited to 5 a minute per hook and user. */
  const freshHook = async (): Promise<number> => {
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${receiver.base}/test`, push_events: false, token: 'test-secret' } });
    assert.equal(hook.status, 201, hook.text);
    return Number(hook.json.id);
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    const settings = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(settings.status, 200, settings.text);
    const project = await gantry.api('POST', '/projects', { body: { name: 'tested', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
    receiver = await hookReceiver();
    failing = await hookReceiver(() => 500);
    // Subscribed to nothing: a test call sends whatever the flags say, as GitLab's does.
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${receiver.base}/test`, push_events: false, token: 'test-secret' } });
    assert.equal(hook.status, 201, hook.text);
    hookId = Number(hook.json.id);
  });
  after(async () => {
    await receiver.close();
    await failing.close();
    await gantry.close();
  });

  it("sends GitLab's sample push of the default branch now, answers 201 and logs it", async () => {
    const head = (await gantry.api('GET', `/projects/${projectId}/repository/branches/main`)).json.commit as Json;
    const answer = await test('push_events');
    assert.deepEqual([answer.status, answer.json], [201, { message: '201 Created' }]);
    assert.equal(receiver.requests.length, 1, 'sent within the request');
    const [request] = receiver.requests;
    assert.deepEqual([request!.url, request!.headers['x-gitlab-event'], request!.headers['x-gitlab-token']], ['/test', 'Push Hook', 'test-secret']);
    assert.deepEqual([request!.body.object_kind, request!.body.ref, request!.body.after, request!.body.user_username], ['push', 'refs/heads/main', head.id, 'root']);
    const [logged] = (await gantry.api('GET', `/projects/${projectId}/hooks/${hookId}/events`)).list;
    assert.deepEqual([logged!.trigger, logged!.response_status], ['push_hooks', '200']);
  });

  it('answers 422 with GitLab\'s message when the project has nothing to send, and sends nothing', async () => {
    const before = receiver.requests.length;
    const cases: Array<[string, string]> = [
      ['issues_events', 'Ensure the project has issues.'],
      ['merge_requests_events', 'Ensure the project has merge requests.'],
      ['note_events', 'Ensure the project has notes.'],
      ['job_events', 'Ensure the project has CI jobs.'],
      ['pipeline_events', 'Ensure the project has CI pipelines.'],
      ['wiki_page_events', 'Testing not available for this hook'],
    ];
    for (const [trigger, message] of cases) {
      const answer = await test(trigger, await freshHook());
      assert.deepEqual([answer.status, answer.json], [422, { message }], trigger);
    }
    assert.equal(receiver.requests.length, before);
  });

  it('sends the first issue and its first note as samples (no action, no changes)', async () => {
    const issue = await gantry.api('POST', `/projects/${projectId}/issues`, { body: { title: 'Sample me', labels: 'sample' } });
    assert.equal(issue.status, 201, issue.text);
    const note = await gantry.api('POST', `/projects/${projectId}/issues/${String(issue.json.iid)}/notes`, { body: { body: 'A remark' } });
    assert.equal(note.status, 201, note.text);
    const hook = await freshHook();
    assert.equal((await test('issues_events', hook)).status, 201);
    assert.equal((await test('note_events', hook)).status, 201);
    const [issueHook, noteHook] = receiver.requests.slice(-2);
    assert.equal(issueHook!.headers['x-gitlab-event'], 'Issue Hook');
    const attributes = issueHook!.body.object_attributes as Json;
    assert.deepEqual([attributes.title, 'action' in attributes, issueHook!.body.changes], ['Sample me', false, {}]);
    assert.deepEqual((issueHook!.body.labels as Json[]).map((label) => label.title), ['sample']);
    assert.equal(noteHook!.headers['x-gitlab-event'], 'Note Hook');
    assert.deepEqual([(noteHook!.body.object_attributes as Json).note, (noteHook!.body.issue as Json).title], ['A remark', 'Sample me']);
  });

  it("answers 422 with the receiver's body when it does not answer 2xx, and counts the failure", async () => {
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: failing.base } });
    assert.equal(hook.status, 201, hook.text);
    const answer = await test('push_events', Number(hook.json.id));
    assert.deepEqual([answer.status, answer.json], [422, { message: 'answer 500' }]);
    assert.equal(failing.requests.length, 1);
    const [logged] = (await gantry.api('GET', `/projects/${projectId}/hooks/${String(hook.json.id)}/events`)).list;
    assert.equal(logged!.response_status, '500');
  });

  it('answers 400 for an unknown trigger, 404 for an unknown hook, 429 after 5 calls a minute to one hook, 401 without a token', async () => {
    const unknown = await test('everything_events');
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.text, /trigger/);
    const missing = await test('push_events', 999999);
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not found' }]);
    const limitedHook = await freshHook();
    for (let call = 1; call <= 5; call += 1) assert.equal((await test('push_events', limitedHook)).status, 201, `call ${call}`);
    const limited = await test('push_events', limitedHook);
    assert.deepEqual([limited.status, limited.json], [429, { message: 'This endpoint has been requested too many times. Try again later.' }]);
    // The limit is per hook: another hook of the project is still tested.
    assert.equal((await test('push_events', await freshHook())).status, 201);
    const anonymous = await gantry.api('POST', `/projects/${projectId}/hooks/${hookId}/test/push_events`, { token: null });
    assert.equal(anonymous.status, 401, anonymous.text);
  });
});
