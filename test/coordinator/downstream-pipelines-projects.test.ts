import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildCiServices } from '../../src/coordinator/wiring-ci.ts';
import type { TestUser } from './groups-fixtures.ts';
import { addMember, makeUser } from './groups-fixtures.ts';
import { startDownstreamFixture, waitFor, type DownstreamFixture } from './downstream-fixtures.ts';

const LIB_CI = `
lib-test:
  script: make test
  rules:
    - if: $CI_PIPELINE_SOURCE == "pipeline"
lib-on-push:
  script: make
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
`;

/** Pushes by root get no pipeline: the tests run the upstream pipelines through the API as a chosen user. */
const API_ONLY = `
workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
      when: never
    - when: always
`;

describe('multi-project pipelines (trigger: project)', () => {
  let fixture: DownstreamFixture;
  let app: { id: number; path: string };
  let lib: { id: number; path: string };
  let developer: TestUser;

  async function runAs(projectId: number, ref: string, token: string): Promise<number> {
    const created = await fixture.gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref }, token });
    assert.equal(created.status, 201, created.text);
    return created.json.id as number;
  }

  before(async () => {
    fixture = await startDownstreamFixture();
    app = await fixture.project('app');
    lib = await fixture.project('lib');
    const hidden = await fixture.project('hidden', 'private');
    const locked = await fixture.project('locked');
    developer = await makeUser(fixture.gantry, 'dev-multi');
    await addMember(fixture.gantry, { type: 'project', id: app.id }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: lib.id }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: locked.id }, developer.id, 20);
    for (const project of [lib, hidden, locked]) await fixture.commit(project.id, 'main', { '.gitlab-ci.yml': LIB_CI });
    await fixture.commit(lib.id, 'stable', { STABLE: 'yes\n' });
  });
  after(() => fixture.close());

  it('creates the downstream pipeline in the other project (source pipeline, branch, variables) and depend mirrors it', async () => {
    const config = `
variables:
  GLOBAL_VALUE: g
deploy-lib:
  variables:
    UPSTREAM_REF: $CI_COMMIT_REF_NAME
  trigger:
    project: ${lib.path}
    branch: stable
    strategy: depend
`;
    const sha = await fixture.commit(app.id, 'multi', { '.gitlab-ci.yml': config });
    const upstream = await fixture.pushPipeline(app.id, sha, 'multi');
    const bridge = await fixture.jobWhen(upstream.id, 'deploy-lib', (job) => job.status === 'running', 'running while lib runs');
    const downstream = await fixture.downstreamOf(bridge);
    const stableTip = await fixture.gantry.coordinator.context.repositories.open(lib.id).resolveCommit('stable');
    assert.equal(downstream.project_id, lib.id);
    assert.equal(downstream.source, 'pipeline');
    assert.equal(downstream.ref, 'stable');
    assert.equal(downstream.sha, stableTip);
    assert.equal(downstream.parent_pipeline_id, upstream.id);
    assert.equal(downstream.user_id, upstream.user_id);
    const variables = await fixture.gantry.coordinator.context.stores.pipelineVariables.list(downstream.id);
    assert.deepEqual(variables.map((variable) => [variable.key, variable.value]).sort(), [['GLOBAL_VALUE', 'g'], ['UPSTREAM_REF', 'multi']]);
    const libJobs = await fixture.jobs(downstream.id);
    assert.deepEqual(Object.keys(libJobs), ['lib-test'], 'CI_PIPELINE_SOURCE is pipeline in the downstream project');

    const listed = await fixture.gantry.api('GET', `/projects/${app.id}/pipelines/${upstream.id}/bridges`);
    assert.equal(listed.status, 200, listed.text);
    const shown = listed.list[0].downstream_pipeline as Record<string, unknown>;
    assert.equal(shown.id, downstream.id);
    assert.equal(shown.project_id, lib.id);
    assert.equal(shown.web_url, `http://gantry.test/${lib.path}/-/pipelines/${downstream.id}`);

    await fixture.finish(libJobs['lib-test'], 'success');
    await fixture.jobWhen(upstream.id, 'deploy-lib', (job) => job.status === 'success', 'success with lib');
    await fixture.pipelineWhen(upstream.id, (pipeline) => pipeline.status === 'success', 'success');
  });

  it("a string trigger runs the project's default branch and succeeds at once", async () => {
    const sha = await fixture.commit(app.id, 'plain', { '.gitlab-ci.yml': `notify:\n  trigger: ${lib.path}\n` });
    const upstream = await fixture.pushPipeline(app.id, sha, 'plain');
    const bridge = await fixture.jobWhen(upstream.id, 'notify', (job) => job.status === 'success', 'success');
    const downstream = await fixture.downstreamOf(bridge);
    assert.equal(downstream.ref, 'main');
    assert.equal(downstream.status, 'pending');
  });

  it("fails bridges with GitLab's reasons: project missing or invisible, no permission, protected branch, own project, branch missing", async () => {
    const group = fixture.groupPath;
    const config = `${API_ONLY}
missing:
  trigger: ${group}/nowhere
invisible:
  trigger: ${group}/hidden
reporter-only:
  trigger: ${group}/locked
itself:
  trigger: ${app.path}
no-branch:
  trigger:
    project: ${lib.path}
    branch: nope
protected-branch:
  trigger:
    project: ${lib.path}
    branch: guarded
allowed:
  trigger: ${lib.path}
`;
    await fixture.commit(lib.id, 'guarded', { GUARDED: 'yes\n' });
    const guarded = await fixture.gantry.api('POST', `/projects/${lib.id}/protected_branches`, { body: { name: 'guarded', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(guarded.status, 201, guarded.text);
    await fixture.commit(app.id, 'refusals', { '.gitlab-ci.yml': config });
    const upstreamId = await runAs(app.id, 'refusals', developer.token);
    const expected: Record<string, string> = {
      missing: 'downstream_bridge_project_not_found',
      invisible: 'downstream_bridge_project_not_found',
      'reporter-only': 'insufficient_bridge_permissions',
      itself: 'invalid_bridge_trigger',
      'no-branch': 'downstream_pipeline_creation_failed',
      'protected-branch': 'insufficient_bridge_permissions',
    };
    for (const [name, reason] of Object.entries(expected)) {
      const bridge = await fixture.jobWhen(upstreamId, name, (job) => job.status === 'failed', 'failed');
      assert.equal(bridge.failure_reason, reason, name);
      // Only a refused creation says why (GitLab's downstream errors); the checks before it give their reason alone.
      assert.deepEqual(bridge.downstream_errors, name === 'no-branch' ? ['Reference not found'] : null, name);
      assert.deepEqual(await fixture.gantry.coordinator.context.stores.pipelines.listBySourceJobs([bridge.id]), [], `${name} created nothing`);
    }
    const allowed = await fixture.jobWhen(upstreamId, 'allowed', (job) => job.status === 'success', 'success');
    const downstream = await fixture.downstreamOf(allowed);
    assert.equal(downstream.user_id, developer.id, 'the downstream pipeline runs as the upstream pipeline user');
    const listed = await fixture.gantry.api('GET', `/projects/${app.id}/pipelines/${upstreamId}/bridges?scope=failed`, { token: developer.token });
    assert.deepEqual(
      listed.list.map((bridge) => [bridge.name, bridge.failure_reason, bridge.downstream_pipeline]).sort(),
      Object.entries(expected).map(([name, reason]) => [name, reason, null]).sort(),
    );
  });

  it('a retried bridge creates its downstream pipeline once the cause is gone', async () => {
    await fixture.commit(app.id, 'retry', { '.gitlab-ci.yml': `${API_ONLY}\nlater:\n  trigger: ${fixture.groupPath}/later\n` });
    const upstreamId = await runAs(app.id, 'retry', developer.token);
    const failed = await fixture.jobWhen(upstreamId, 'later', (job) => job.status === 'failed', 'failed');
    assert.equal(failed.failure_reason, 'downstream_bridge_project_not_found');
    const later = await fixture.project('later');
    await fixture.commit(later.id, 'main', { '.gitlab-ci.yml': LIB_CI });
    await addMember(fixture.gantry, { type: 'project', id: later.id }, developer.id, 30);
    const retried = await fixture.gantry.api('POST', `/projects/${app.id}/pipelines/${upstreamId}/retry`, { token: developer.token });
    assert.equal(retried.status, 201, retried.text);
    const bridge = await fixture.jobWhen(upstreamId, 'later', (job) => job.id !== failed.id && job.status === 'success', 'the new bridge succeeds');
    const downstream = await fixture.downstreamOf(bridge);
    assert.equal(downstream.project_id, later.id);
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.pipelines.listBySourceJobs([failed.id]), [], 'the old bridge keeps no pipeline');
  });

  it('two projects triggering each other stop with pipeline_loop_detected when one configuration comes round a third time', async () => {
    const ping = await fixture.project('ping');
    const pong = await fixture.project('pong');
    const { stores } = fixture.gantry.coordinator.context;
    const pingSha = await fixture.commit(ping.id, 'main', { '.gitlab-ci.yml': `to-pong:\n  trigger: ${pong.path}\n` });
    // pong has no CI file yet: ping's own push stops there (one chain only, from pong's push).
    const pingPush = await fixture.pushPipeline(ping.id, pingSha, 'main');
    const first = await fixture.jobWhen(pingPush.id, 'to-pong', (job) => job.status === 'failed', 'pong has no CI file');
    assert.equal(first.failure_reason, 'downstream_pipeline_creation_failed');
    assert.deepEqual(first.downstream_errors, ['Missing .gitlab-ci.yml file']);
    await fixture.commit(pong.id, 'main', { '.gitlab-ci.yml': `to-ping:\n  trigger: ${ping.path}\n` });
    const looped = await waitFor(async () => {
      const { items } = await stores.jobs.list({ projectId: pong.id, types: ['bridge'], statuses: ['failed'] }, { offset: 0, limit: 10 });
      return items.find((job) => job.failure_reason === 'pipeline_loop_detected');
    }, 'the loop to be cut', stores.tasks);
    const sources = async (projectId: number): Promise<string[]> =>
      (await stores.pipelines.list({ projectId, sort: 'asc' }, { offset: 0, limit: 20 })).items.map((pipeline) => pipeline.source);
    // pong (push) → ping → pong → ping → pong: its bridge would start pong's configuration a fourth time.
    assert.deepEqual(await sources(pong.id), ['push', 'pipeline', 'pipeline']);
    assert.deepEqual(await sources(ping.id), ['push', 'pipeline', 'pipeline']);
    const pongPipelines = (await stores.pipelines.list({ projectId: pong.id, sort: 'asc' }, { offset: 0, limit: 20 })).items;
    assert.equal(looped.pipeline_id, pongPipelines[2].id);
  });
});

describe('downstream pipeline tasks survive a crash', () => {
  let fixture: DownstreamFixture;

  before(async () => {
    fixture = await startDownstreamFixture({ runTasks: false });
  });
  after(() => fixture.close());

  it('the bridge turning pending records its task in the same commit; running it later creates the child once', async () => {
    const project = await fixture.project('crashy');
    await fixture.commit(project.id, 'main', { '.gitlab-ci.yml': 'child:\n  trigger:\n    include: ci/child.yml\n', 'ci/child.yml': 'unit:\n  script: make\n' });
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' } });
    assert.equal(created.status, 201, created.text);
    const upstreamId = created.json.id as number;
    const bridge = (await fixture.jobs(upstreamId)).child;
    assert.equal(bridge.status, 'pending');
    const { stores } = fixture.gantry.coordinator.context;
    // Nothing ran the queue: the task was committed with the bridge's status, the child is not there yet.
    const counts = await stores.tasks.counts(new Date().toISOString());
    assert.equal(counts.find((entry) => entry.kind === 'pipeline.create-downstream')?.ready, 1);
    assert.deepEqual(await stores.pipelines.listBySourceJobs([bridge.id]), []);

    // A coordinator that starts later on the same database (its CI services, wired as the app wires them) does the work.
    const later = buildCiServices(fixture.gantry.coordinator.context, { runTasks: false });
    await later.taskWorker.drain();
    const children = await stores.pipelines.listBySourceJobs([bridge.id]);
    assert.equal(children.length, 1);
    assert.equal((await fixture.jobs(upstreamId)).child.status, 'success');
    const after = await stores.tasks.counts(new Date().toISOString());
    assert.equal(after.find((entry) => entry.kind === 'pipeline.create-downstream')?.ready ?? 0, 0, 'the task completed with the creation');

    // The same task delivered again (a lost lease) creates nothing more.
    const handler = later.downstreamPipelines.createHandler();
    const now = new Date().toISOString();
    await handler(
      { id: 0, kind: 'pipeline.create-downstream', payload: { pipelineId: upstreamId, bridgeId: bridge.id }, status: 'running', run_at: now, attempts: 1, max_attempts: 5, locked_by: null, locked_until: null, last_error: null, dedupe_key: null, created_at: now, updated_at: now },
      { signal: new AbortController().signal },
    );
    assert.equal((await stores.pipelines.listBySourceJobs([bridge.id])).length, 1);
  });
});
