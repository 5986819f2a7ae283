import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('project and system hooks driven by python-gitlab', () => {
  let gantry: TestCoordinator;
  let receiver: HookReceiver;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    receiver = await hookReceiver();
  });
  after(async () => {
    await receiver.close();
    await gantry.close();
  });

  it('manages hooks as the client does, then delivers its commit to the project hook and the system hook, and its pipeline to the project hook', async () => {
    const seen = await drivePythonGitlab(gantry, 'drive_hooks.py', [receiver.base]);
    const projectHookId = seen.project_hook_id as number;
    assert.deepEqual(seen.project_hooks, [[projectHookId, `${receiver.base}/project`, true]]);
    // The token is write-only: never read back.
    assert.deepEqual(seen.edited, [true, true, null]);
    assert.deepEqual(seen.system_hooks, [[seen.system_hook_id, `${receiver.base}/system`]]);

    const at = (path: string) => receiver.requests.filter((request) => request.url === path);
    await waitUntil(() => at('/project').length >= 1 && at('/system').some((request) => request.body.event_name === 'push'), 'the push at both hooks');
    const [push] = at('/project');
    assert.equal(push!.headers['x-gitlab-event'], 'Push Hook');
    assert.equal(push!.headers['x-gitlab-token'], 's3cret');
    assert.deepEqual([push!.body.object_kind, push!.body.ref, push!.body.after, (push!.body.project as Json).id], ['push', `refs/heads/${String(seen.branch)}`, seen.commit, seen.project_id]);
    const systemPush = at('/system').find((request) => request.body.event_name === 'push')!;
    assert.equal(systemPush.headers['x-gitlab-event'], 'System Hook');
    assert.equal(systemPush.headers['x-gitlab-token'], 'system-secret');
    assert.equal(systemPush.body.after, seen.commit);
    // The system hook (made first) also heard the project's creation; the deleted hooks heard nothing.
    assert.ok(at('/system').some((request) => request.body.event_name === 'project_create' && request.body.project_id === seen.project_id));
    assert.equal(at('/doomed').length + at('/spare').length, 0);

    // The push's CI file made a pipeline (asynchronously, as in GitLab), which the project hook
    // (pipeline_events) hears.
    await waitUntil(() => at('/project').some((request) => request.headers['x-gitlab-event'] === 'Pipeline Hook'), 'the pipeline at the project hook');
    const pipeline = at('/project').find((request) => request.headers['x-gitlab-event'] === 'Pipeline Hook')!;
    const attributes = pipeline.body.object_attributes as Json;
    const listed = await gantry.api('GET', `/projects/${String(seen.project_id)}/pipelines?sha=${String(seen.commit)}`);
    assert.deepEqual((listed.body as Json[]).map((one) => one.id), [attributes.id]);
    assert.deepEqual([pipeline.body.object_kind, attributes.sha, attributes.ref, pipeline.headers['x-gitlab-token']], ['pipeline', seen.commit, seen.branch, 's3cret']);
    assert.deepEqual((pipeline.body.builds as Json[]).map((build) => build.name), ['test']);
  });
});
