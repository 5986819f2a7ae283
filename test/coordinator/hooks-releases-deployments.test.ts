import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('release and deployment events', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let releasedId: number;
  let deployedId: number;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } })).status, 200);
    target = await hookReceiver();
    const project = async (name: string): Promise<number> => {
      const created = await gantry.api('POST', '/projects', { body: { name, initialize_with_readme: true } });
      assert.equal(created.status, 201, created.text);
      return Number(created.json.id);
    };
    releasedId = await project('released');
    deployedId = await project('deployed');
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it("sends GitLab's Release Hook on create, update and delete to hooks with releases_events only", async () => {
    const subscribed = await gantry.api('POST', `/projects/${releasedId}/hooks`, { body: { url: `${target.base}/releases`, push_events: false, releases_events: true } });
    assert.equal(subscribed.status, 201, subscribed.text);
    const other = await gantry.api('POST', `/projects/${releasedId}/hooks`, { body: { url: `${target.base}/pushes` } });
    assert.equal(other.status, 201, other.text);
    const created = await gantry.api('POST', `/projects/${releasedId}/releases`, {
      body: { tag_name: 'v1.0', ref: 'main', name: 'First', description: 'Notes', assets: { links: [{ name: 'bin', url: 'https://downloads.example.com/bin' }] } },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await gantry.api('PUT', `/projects/${releasedId}/releases/v1.0`, { body: { name: 'First, renamed' } })).status, 200);
    assert.equal((await gantry.api('DELETE', `/projects/${releasedId}/releases/v1.0`)).status, 200);
    const releases = () => target.requests.filter((request) => request.url === '/releases');
    await waitUntil(() => releases().length >= 3, 'three release events');
    assert.deepEqual(releases().map((request) => [request.headers['x-gitlab-event'], request.body.object_kind, request.body.action, request.body.name]), [
      ['Release Hook', 'release', 'create', 'First'],
      ['Release Hook', 'release', 'update', 'First, renamed'],
      ['Release Hook', 'release', 'delete', 'First, renamed'],
    ]);
    const first = releases()[0]!.body;
    assert.deepEqual([first.tag, first.description, (first.project as Json).id, String(first.url).endsWith('/root/released/-/releases/v1.0')], ['v1.0', 'Notes', releasedId, true]);
    const assets = first.assets as { count: number; links: Json[]; sources: Json[] };
    assert.deepEqual([assets.count, assets.links.map((link) => link.name), assets.sources.map((source) => source.format)], [5, ['bin'], ['zip', 'tar.gz', 'tar.bz2', 'tar']]);
    const head = (await gantry.api('GET', `/projects/${releasedId}/repository/branches/main`)).json.commit as Json;
    assert.equal((first.commit as Json).id, head.id);
    // The push-only hook heard the tag's creation as nothing (no tag_push_events) and no release.
    assert.ok(!target.requests.some((request) => request.url === '/pushes' && request.headers['x-gitlab-event'] === 'Release Hook'));
    // A delivery is logged once its receiver has answered: the last log may follow its request.
    const triggers = async () => (await gantry.api('GET', `/projects/${releasedId}/hooks/${String(subscribed.json.id)}/events`)).list.map((log) => log.trigger);
    await waitUntil(async () => (await triggers()).length >= 3, 'the three logged deliveries');
    assert.deepEqual(await triggers(), ['release_hooks', 'release_hooks', 'release_hooks']);
  });

  it("sends GitLab's Deployment Hook when a job with an environment is canceled, to hooks with deployment_events", async () => {
    const hook = await gantry.api('POST', `/projects/${deployedId}/hooks`, { body: { url: `${target.base}/deployments`, push_events: false, deployment_events: true } });
    assert.equal(hook.status, 201, hook.text);
    const jobHook = await gantry.api('POST', `/projects/${deployedId}/hooks`, { body: { url: `${target.base}/deploy-jobs`, push_events: false, job_events: true } });
    assert.equal(jobHook.status, 201, jobHook.text);
    const ci = 'deploy:\n  script: [echo deploy]\n  environment:\n    name: production\n    url: https://prod.example.com\n';
    const commit = await gantry.api('POST', `/projects/${deployedId}/repository/commits`, { body: { branch: 'main', commit_message: 'deploy it', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] } });
    assert.equal(commit.status, 201, commit.text);
    let pipelineId = 0;
    await waitUntil(async () => {
      const [pipeline] = (await gantry.api('GET', `/projects/${deployedId}/pipelines`)).list;
      pipelineId = Number(pipeline?.id ?? 0);
      return pipeline?.status === 'pending';
    }, 'the pending pipeline');
    assert.equal((await gantry.api('POST', `/projects/${deployedId}/pipelines/${pipelineId}/cancel`)).status, 200);
    const deployments = () => target.requests.filter((request) => request.url === '/deployments');
    await waitUntil(() => deployments().length >= 1, 'the deployment event');
    const [event] = deployments();
    assert.equal(event!.headers['x-gitlab-event'], 'Deployment Hook');
    const body = event!.body;
    const [job] = (await gantry.api('GET', `/projects/${deployedId}/pipelines/${pipelineId}/jobs`)).list;
    assert.deepEqual(
      [body.object_kind, body.status, body.environment, body.environment_slug, body.environment_external_url, body.deployable_id, Number(body.deployment_id) > 0, body.ref, body.short_sha, body.commit_title],
      // The environment's URL, which a deployment that never succeeded has not given it yet (GitLab's too).
      ['deployment', 'canceled', 'production', 'production', null, job!.id, true, 'main', String(commit.json.id).slice(0, 8), 'deploy it'],
    );
    assert.equal(body.environment_tier, 'production', "the environment's tier, guessed from its name");
    await waitUntil(() => target.requests.some((request) => request.url === '/deploy-jobs' && request.body.build_status === 'canceled'), 'the canceled job event');
    const jobEvent = target.requests.find((request) => request.url === '/deploy-jobs' && request.body.build_status === 'canceled');
    assert.deepEqual(jobEvent!.body.environment, { name: 'production', action: 'start', deployment_tier: 'production' });
    assert.equal((body.project as Json).id, deployedId);
    assert.ok(String(body.deployable_url).endsWith(`/root/deployed/-/jobs/${String(job!.id)}`));
    const triggers = async () => (await gantry.api('GET', `/projects/${deployedId}/hooks/${String(hook.json.id)}/events`)).list.map((log) => log.trigger);
    await waitUntil(async () => (await triggers()).length >= 1, 'the logged delivery');
    assert.deepEqual(await triggers(), ['deployment_hooks']);
  });

  it("answers the releases_events test call with the project's latest release, 422 when it has none", async () => {
    const hook = await gantry.api('POST', `/projects/${releasedId}/hooks`, { body: { url: `${target.base}/release-test`, push_events: false } });
    assert.equal(hook.status, 201, hook.text);
    const test = () => gantry.api('POST', `/projects/${releasedId}/hooks/${String(hook.json.id)}/test/releases_events`);
    const none = await test();
    assert.deepEqual([none.status, none.json], [422, { message: 'Ensure the project has releases.' }]);
    for (const [tag, releasedAt] of [['v3.0', '2030-01-01T00:00:00Z'], ['v2.0', '2020-01-01T00:00:00Z']] as const) {
      const made = await gantry.api('POST', `/projects/${releasedId}/releases`, { body: { tag_name: tag, ref: 'main', name: tag, released_at: releasedAt } });
      assert.equal(made.status, 201, made.text);
    }
    const sent = await test();
    assert.deepEqual([sent.status, sent.json], [201, { message: '201 Created' }]);
    const [sample] = target.requests.filter((request) => request.url === '/release-test');
    assert.deepEqual([sample!.headers['x-gitlab-event'], sample!.body.object_kind, sample!.body.action, sample!.body.tag], ['Release Hook', 'release', 'create', 'v3.0']);
    const deployments = await gantry.api('POST', `/projects/${releasedId}/hooks/${String(hook.json.id)}/test/deployment_events`);
    assert.deepEqual([deployments.status, deployments.json], [422, { message: 'Ensure the project has deployments.' }]);
  });

  it("answers the deployment_events test call with the project's newest deployment", async () => {
    const hook = await gantry.api('POST', `/projects/${deployedId}/hooks`, { body: { url: `${target.base}/deployment-test`, push_events: false } });
    assert.equal(hook.status, 201, hook.text);
    const sent = await gantry.api('POST', `/projects/${deployedId}/hooks/${String(hook.json.id)}/test/deployment_events`);
    assert.deepEqual([sent.status, sent.json], [201, { message: '201 Created' }]);
    const [sample] = target.requests.filter((request) => request.url === '/deployment-test');
    const [pipeline] = (await gantry.api('GET', `/projects/${deployedId}/pipelines`)).list;
    const [job] = (await gantry.api('GET', `/projects/${deployedId}/pipelines/${String(pipeline!.id)}/jobs`)).list;
    assert.deepEqual(
      [sample!.headers['x-gitlab-event'], sample!.body.object_kind, sample!.body.deployable_id, sample!.body.environment, sample!.body.status],
      ['Deployment Hook', 'deployment', job!.id, 'production', 'canceled'],
    );
    const logs = await gantry.api('GET', `/projects/${deployedId}/hooks/${String(hook.json.id)}/events`);
    assert.deepEqual(logs.list.map((log) => log.trigger), ['deployment_hooks']);
  });

  it("sends a bridge's deployment hook, and lists builds with their environment's action and tier in the pipeline hook", async () => {
    const created = await gantry.api('POST', '/projects', { body: { name: 'bridged', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    const projectId = Number(created.json.id);
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: `${target.base}/bridged`, push_events: false, deployment_events: true, pipeline_events: true } });
    assert.equal(hook.status, 201, hook.text);
    const ci = [
      'stages: [build, deploy]',
      'build:\n  stage: build\n  script: [make]',
      'prepare:\n  stage: build\n  script: [prepare]\n  environment: { name: review/app, action: prepare, deployment_tier: testing }',
      'downstream:\n  stage: deploy\n  trigger: { include: child.yml }\n  environment: { name: review/app }',
    ].join('\n');
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'bridge it', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }, { action: 'create', file_path: 'child.yml', content: 'child:\n  script: [x]\n' }] },
    });
    assert.equal(commit.status, 201, commit.text);
    let pipelineId = 0;
    await waitUntil(async () => {
      const [pipeline] = (await gantry.api('GET', `/projects/${projectId}/pipelines`)).list;
      pipelineId = Number(pipeline?.id ?? 0);
      return pipeline?.status === 'pending';
    }, 'the pending pipeline');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/pipelines/${pipelineId}/cancel`)).status, 200);
    const [bridge] = (await gantry.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/bridges`)).list;
    const deployments = () => target.requests.filter((request) => request.url === '/bridged' && request.body.object_kind === 'deployment');
    await waitUntil(() => deployments().length >= 1, "the bridge's deployment event");
    const body = deployments()[0]!.body;
    assert.deepEqual(
      [body.status, body.deployable_id, body.environment, body.environment_tier],
      ['canceled', bridge!.id, 'review/app', 'testing'],
      'the tier the first job (prepare, declaring testing) gave the environment it created',
    );
    const pipelines = () => target.requests.filter((request) => request.url === '/bridged' && request.body.object_kind === 'pipeline');
    await waitUntil(() => pipelines().some((request) => (request.body.object_attributes as Json).status === 'canceled'), 'the canceled pipeline event');
    const builds = pipelines().find((request) => (request.body.object_attributes as Json).status === 'canceled')!.body.builds as Json[];
    const environmentOf = (name: string) => builds.find((build) => build.name === name)?.environment;
    assert.deepEqual([environmentOf('build'), environmentOf('prepare')], [null, { name: 'review/app', action: 'prepare', deployment_tier: 'testing' }]);
    const canceled = pipelines().find((request) => (request.body.object_attributes as Json).status === 'canceled')!.body;
    assert.deepEqual(builds.map((build) => build.name).sort(), ['build', 'prepare'], 'builds only: not the bridge (GitLab: Ci::Build)');
    assert.deepEqual((canceled.object_attributes as Json).stages, ['build', 'deploy'], "the bridge's stage is still a stage");
  });
});
