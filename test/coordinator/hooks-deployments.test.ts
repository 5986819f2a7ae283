import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('deployment events', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
    target = await hookReceiver();
    const project = await gantry.api('POST', '/projects', { body: { name: 'deployed', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("sends GitLab's Deployment Hook when a job with an environment is canceled, to hooks with deployment_events", async () => {
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${target.base}/deployments`, push_events: false, deployment_events: true } });
    assert.equal(hook.status, 201, hook.text);
    const ci = 'deploy:\n  script: [echo deploy]\n  environment:\n    name: production\n    url: https://prod.example.com\n';
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body: { branch: 'main', commit_message: 'deploy it', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] } });
    assert.equal(commit.status, 201, commit.text);
    let pipelineId = 0;
    await waitUntil(async () => {
      const [pipeline] = (await gantry.api('GET', `/projects/${projectId}/pipelines`)).list;
      pipelineId = Number(pipeline?.id ?? 0);
      return pipeline?.status === 'pending';
    }, 'the pending pipeline');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/pipelines/${pipelineId}/cancel`)).status, 200);
    await waitUntil(() => target.requests.length >= 1, 'the deployment event');
    const [event] = target.requests;
    assert.equal(event!.headers['x-gitlab-event'], 'Deployment Hook');
    const body = event!.body;
    const [job] = (await gantry.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs`)).list;
    assert.deepEqual(
      [body.object_kind, body.status, body.environment, body.environment_slug, body.environment_external_url, body.deployable_id, Number(body.deployment_id) > 0, body.ref, body.short_sha, body.commit_title],
      ['deployment', 'canceled', 'production', 'production', 'https://prod.example.com', job!.id, true, 'main', String(commit.json.id).slice(0, 8), 'deploy it'],
    );
    assert.equal((body.project as Json).id, projectId);
    assert.ok(String(body.deployable_url).endsWith(`/root/deployed/-/jobs/${String(job!.id)}`));
    const logs = await gantry.api('GET', `/projects/${projectId}/hooks/${String(hook.json.id)}/events`);
    assert.deepEqual(logs.list.map((log) => log.trigger), ['deployment_hooks']);
  });
});
