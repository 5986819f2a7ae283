import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

/** Project hooks driven by an unmodified GitLab client (@gitbeaker/rest) over a real port. */
describe('project hooks through @gitbeaker/rest', () => {
  let gantry: TestCoordinator;
  let client: InstanceType<typeof Gitlab>;
  let receiver: HookReceiver;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    receiver = await hookReceiver();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gantry.coordinator.app.server.address() as AddressInfo;
    client = new Gitlab({ host: `http://127.0.0.1:${address.port}`, token: gantry.rootToken });
  });
  after(async () => {
    await receiver.close();
    await gantry.close();
  });

  it('adds, lists, shows, edits and removes a hook as GitLab answers them', async () => {
    const project = await client.Projects.create({ name: 'beaker-hooks' });
    const added = (await client.ProjectHooks.add(project.id, 'https://hooks.example.com/beaker', { tagPushEvents: true, token: 'beaker-secret', pushEventsBranchFilter: 'main' })) as unknown as Record<string, unknown>;
    assert.deepEqual([added.url, added.tag_push_events, added.push_events, added.push_events_branch_filter, added.alert_status], ['https://hooks.example.com/beaker', true, true, 'main', 'executable']);
    assert.ok(!JSON.stringify(added).includes('beaker-secret'));
    const hookId = Number(added.id);
    const listed = (await client.ProjectHooks.all(project.id)) as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((hook) => hook.id), [hookId]);
    const shown = (await client.ProjectHooks.show(project.id, hookId)) as unknown as Record<string, unknown>;
    assert.equal(shown.url, 'https://hooks.example.com/beaker');
    const edited = (await client.ProjectHooks.edit(project.id, hookId, 'https://hooks.example.com/moved', { pipelineEvents: true })) as unknown as Record<string, unknown>;
    assert.deepEqual([edited.url, edited.pipeline_events, edited.tag_push_events], ['https://hooks.example.com/moved', true, true]);
    await client.ProjectHooks.remove(project.id, hookId);
    assert.deepEqual(await client.ProjectHooks.all(project.id), []);
  });

  it('receives the push of a commit the client makes and the pipeline its CI file starts', async () => {
    await client.ApplicationSettings.edit({ allowLocalRequestsFromWebHooksAndServices: true });
    const project = await client.Projects.create({ name: 'beaker-delivered', initializeWithReadme: true });
    await client.ProjectHooks.add(project.id, `${receiver.base}/beaker`, { pushEvents: true, pipelineEvents: true, token: 'beaker-token' });
    const commit = await client.Commits.create(project.id, 'main', 'add CI', [
      { action: 'create', filePath: '.gitlab-ci.yml', content: 'build:\n  script: echo built\n' },
    ]);
    const kinds = () => receiver.requests.map((request) => request.headers['x-gitlab-event']);
    await waitUntil(() => kinds().includes('Push Hook') && kinds().includes('Pipeline Hook'), 'the push and the pipeline at the hook');
    const push = receiver.requests.find((request) => request.headers['x-gitlab-event'] === 'Push Hook')!;
    assert.deepEqual([push.body.after, push.body.ref, push.headers['x-gitlab-token']], [commit.id, 'refs/heads/main', 'beaker-token']);
    const pipeline = receiver.requests.find((request) => request.headers['x-gitlab-event'] === 'Pipeline Hook')!;
    const attributes = pipeline.body.object_attributes as Json;
    const [listed] = await client.Pipelines.all(project.id, { sha: commit.id });
    assert.deepEqual([attributes.id, attributes.sha, (pipeline.body.builds as Json[]).map((build) => build.name)], [listed?.id, commit.id, ['build']]);
  });
});
