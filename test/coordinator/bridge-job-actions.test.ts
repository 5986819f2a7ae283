import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { startDownstreamFixture, type DownstreamFixture } from './downstream-fixtures.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * The jobs API's play and retry on trigger jobs (bridges), as GitLab's `find_job!` routes do:
 * `PlayBridgeService` enqueues a manual bridge (its downstream pipeline follows),
 * `RetryJobService` makes a new attempt that triggers again; `Ci::BridgePolicy` lets play who
 * may update the downstream branch, and `DeployablePolicy` refuses an outdated deployment.
 * Cancel and erase stay builds-only (404), as in GitLab.
 */
const CHILD = `
child-job:
  script: echo child
`;

const MANUAL_CHILD = `
build:
  script: make
spawn:
  when: manual
  trigger:
    include: ci/child.yml
`;

function manualMultiProject(downstream: string): string {
  return `
spawn:
  when: manual
  trigger:
    project: ${downstream}
`;
}

// Newer pipelines of main leave the older ones alone (GitLab 16.8's auto_cancel).
const MANUAL_DEPLOY = `
workflow: { auto_cancel: { on_new_commit: none } }
spawn:
  when: manual
  trigger:
    include: ci/child.yml
  environment: production
`;

describe('jobs API play and retry of trigger jobs', () => {
  let fixture: DownstreamFixture;
  let developer: TestUser;
  let reporter: TestUser;
  let maintainer: TestUser;

  before(async () => {
    fixture = await startDownstreamFixture();
    developer = await makeUser(fixture.gantry, 'bridge-dev');
    reporter = await makeUser(fixture.gantry, 'bridge-reporter');
    maintainer = await makeUser(fixture.gantry, 'bridge-maintainer');
  });
  after(() => fixture.close());

  const api = (...args: Parameters<DownstreamFixture['gantry']['api']>) => fixture.gantry.api(...args);

  async function projectWithMembers(path: string, visibility: 'public' | 'private' = 'private'): Promise<{ id: number; path: string }> {
    const project = await fixture.project(path, visibility);
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: project.id }, reporter.id, 20);
    await addMember(fixture.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    return project;
  }

  async function manualBridge(projectId: number, branch: string, files: Record<string, string>): Promise<JobRecord> {
    const sha = await fixture.commit(projectId, branch, files);
    const pipeline = await fixture.pushPipeline(projectId, sha, branch);
    return fixture.jobWhen(pipeline.id, 'spawn', (job) => job.status === 'manual', 'manual');
  }

  it('play enqueues a manual bridge, which creates its child pipeline; the answer is a Bridge; a second play is 400', async () => {
    const project = await projectWithMembers('play-child');
    const bridge = await manualBridge(project.id, 'main', { '.gitlab-ci.yml': MANUAL_CHILD, 'ci/child.yml': CHILD });
    assert.equal(bridge.type, 'bridge');

    const played = await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(played.status, 200, played.text);
    assert.equal(played.json.id, bridge.id);
    assert.equal(played.json.name, 'spawn');
    assert.equal(played.json.status, 'pending');
    assert.equal(played.json.downstream_pipeline, null, 'created after the play commits');
    assert.equal('runner' in played.json, false, "GitLab's Bridge entity: JobBasic and downstream_pipeline");
    assert.equal((played.json.user as Record<string, unknown>).username, developer.username);

    const child = await fixture.downstreamOf(bridge);
    assert.equal(child.source, 'parent_pipeline');
    assert.equal(child.source_job_id, bridge.id);
    assert.deepEqual(Object.keys(await fixture.jobs(child.id)), ['child-job']);
    const ran = await fixture.jobWhen(bridge.pipeline_id, 'spawn', (job) => job.status === 'success', 'success once its child exists');
    assert.equal(ran.user_id, developer.id, 'runs as who played it');

    const again = await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(again.status, 400, again.text);
    assert.deepEqual(again.json, { message: '400 Bad request - Unplayable Job' });
  });

  it('retry of a finished bridge answers its new attempt (a Job), which triggers a new child pipeline', async () => {
    const project = await projectWithMembers('retry-child');
    const bridge = await manualBridge(project.id, 'main', { '.gitlab-ci.yml': MANUAL_CHILD, 'ci/child.yml': CHILD });
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${bridge.id}/retry`, { token: developer.token })).status, 403, 'a manual bridge is not retryable');
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: developer.token })).status, 200);
    const first = await fixture.downstreamOf(bridge);
    await fixture.jobWhen(bridge.pipeline_id, 'spawn', (job) => job.status === 'success', 'success');

    const retried = await api('POST', `/projects/${project.id}/jobs/${bridge.id}/retry`, { token: developer.token });
    assert.equal(retried.status, 201, retried.text);
    const attemptId = retried.json.id as number;
    assert.notEqual(attemptId, bridge.id);
    assert.equal(retried.json.name, 'spawn');
    assert.equal(retried.json.status, 'pending');
    assert.equal(retried.json.runner, null, "GitLab presents a retried bridge with the Job entity");
    assert.deepEqual(retried.json.artifacts, []);
    const attempt = await fixture.jobWhen(bridge.pipeline_id, 'spawn', (job) => job.id === attemptId && job.status === 'success', 'the new attempt succeeds');
    assert.equal(attempt.type, 'bridge');
    const second = await fixture.downstreamOf(attempt);
    assert.notEqual(second.id, first.id, 'a new child pipeline');
    const { stores } = fixture.gantry.coordinator.context;
    assert.equal((await stores.jobs.findById(bridge.id))?.retried, true);
  });

  it('cancel, erase and GET of a bridge are 404, as GitLab keeps them to builds', async () => {
    const project = await projectWithMembers('builds-only');
    const bridge = await manualBridge(project.id, 'main', { '.gitlab-ci.yml': MANUAL_CHILD, 'ci/child.yml': CHILD });
    for (const [method, path] of [['POST', 'cancel'], ['POST', 'erase'], ['GET', '']] as const) {
      const answer = await api(method, `/projects/${project.id}/jobs/${bridge.id}${path ? `/${path}` : ''}`, { token: maintainer.token });
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.deepEqual(answer.json, { message: '404 Job Not Found' });
    }
    assert.equal((await fixture.jobs(bridge.pipeline_id)).spawn!.status, 'manual', 'unchanged');
  });

  it('play and retry need more than Reporter; on a protected branch, play needs the right to push or merge there', async () => {
    const project = await projectWithMembers('protected-child');
    const bridge = await manualBridge(project.id, 'main', { '.gitlab-ci.yml': MANUAL_CHILD, 'ci/child.yml': CHILD });
    for (const action of ['play', 'retry']) {
      const answer = await api('POST', `/projects/${project.id}/jobs/${bridge.id}/${action}`, { token: reporter.token });
      assert.equal(answer.status, 403, `${action} as reporter`);
      assert.deepEqual(answer.json, { message: '403 Forbidden' });
    }
    const protect = await api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(protect.status, 201, protect.text);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: developer.token })).status, 403, 'the child runs for main, which developers may not update');
    assert.equal((await fixture.jobs(bridge.pipeline_id)).spawn!.status, 'manual', 'refusals changed nothing');
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: maintainer.token })).status, 200);
  });

  it('a multi-project bridge: play needs Developer upstream and the right to update the downstream branch', async () => {
    const downstream = await fixture.project('mp-downstream', 'private');
    await fixture.commit(downstream.id, 'main', { '.gitlab-ci.yml': 'downstream-job:\n  script: echo down\n' });
    const upstream = await projectWithMembers('mp-upstream');
    const bridge = await manualBridge(upstream.id, 'main', { '.gitlab-ci.yml': manualMultiProject(downstream.path) });
    const refused = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(refused.status, 403, 'the developer is no member of the downstream project');
    await addMember(fixture.gantry, { type: 'project', id: downstream.id }, reporter.id, 30);
    const reporterUpstream = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: reporter.token });
    assert.equal(reporterUpstream.status, 403, 'a developer downstream who only reports upstream');

    await addMember(fixture.gantry, { type: 'project', id: downstream.id }, developer.id, 30);
    const played = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(played.status, 200, played.text);
    const created = await fixture.downstreamOf(bridge);
    assert.equal(created.project_id, downstream.id);
    assert.equal(created.source, 'pipeline');
  });

  it('a trigger:project named by a project CI/CD variable: play follows the rights in the project it names, where the pipeline goes', async () => {
    const downstream = await fixture.project('var-downstream', 'private');
    await fixture.commit(downstream.id, 'main', { '.gitlab-ci.yml': 'downstream-job:\n  script: echo down\n' });
    const upstream = await projectWithMembers('var-upstream');
    const variable = await api('POST', `/projects/${upstream.id}/variables`, { body: { key: 'DOWNSTREAM_PATH', value: downstream.path } });
    assert.equal(variable.status, 201, variable.text);
    const bridge = await manualBridge(upstream.id, 'main', { '.gitlab-ci.yml': manualMultiProject('$DOWNSTREAM_PATH') });
    assert.equal((await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token })).status, 403, 'no member of the project the variable names');

    await addMember(fixture.gantry, { type: 'project', id: downstream.id }, developer.id, 30);
    const played = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(played.status, 200, played.text);
    assert.equal((await fixture.downstreamOf(bridge)).project_id, downstream.id);
  });

  it("a pipeline variable overriding the bridge's YAML value of trigger:project: play is decided in the project the pipeline goes to", async () => {
    const decoy = await fixture.project('yaml-named', 'private');
    const target = await fixture.project('pipeline-named', 'private');
    for (const project of [decoy, target]) await fixture.commit(project.id, 'main', { '.gitlab-ci.yml': 'downstream-job:\n  script: echo down\n' });
    await addMember(fixture.gantry, { type: 'project', id: decoy.id }, developer.id, 30);
    const upstream = await projectWithMembers('override-upstream');
    const ci = `
spawn:
  when: manual
  variables:
    TARGET: ${decoy.path}
  trigger:
    project: $TARGET
`;
    await fixture.commit(upstream.id, 'main', { '.gitlab-ci.yml': ci });
    const run = await api('POST', `/projects/${upstream.id}/pipeline`, { body: { ref: 'main', variables: [{ key: 'TARGET', value: target.path }] } });
    assert.equal(run.status, 201, run.text);
    const bridge = await fixture.jobWhen(run.json.id as number, 'spawn', (job) => job.status === 'manual', 'manual');
    const refused = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(refused.status, 403, 'a developer of the YAML-named project only');

    await addMember(fixture.gantry, { type: 'project', id: target.id }, developer.id, 30);
    const played = await api('POST', `/projects/${upstream.id}/jobs/${bridge.id}/play`, { token: developer.token });
    assert.equal(played.status, 200, played.text);
    assert.equal((await fixture.downstreamOf(bridge)).project_id, target.id, 'the pipeline variable wins, there as in the check');
  });

  it('an outdated deployment: play of an older manual bridge and retry of an older finished one without rollbacks are 403', async () => {
    const project = await projectWithMembers('outdated-bridges');
    const first = await manualBridge(project.id, 'main', { '.gitlab-ci.yml': MANUAL_DEPLOY, 'ci/child.yml': CHILD });
    const runBridge = async (bridge: JobRecord): Promise<void> => {
      assert.equal((await api('POST', `/projects/${project.id}/jobs/${bridge.id}/play`, { token: developer.token })).status, 200);
      await fixture.jobWhen(bridge.pipeline_id, 'spawn', (job) => job.status === 'success', 'deployed');
    };
    const second = await manualBridge(project.id, 'main', { 'second.txt': 'two' });
    await runBridge(second);
    const played = await api('POST', `/projects/${project.id}/jobs/${first.id}/play`, { token: developer.token });
    assert.equal(played.status, 403, 'an unfinished deployment older than the last successful one');
    assert.equal((await fixture.jobs(first.pipeline_id)).spawn!.status, 'manual');

    const third = await manualBridge(project.id, 'main', { 'third.txt': 'three' });
    await runBridge(third);
    const rollbacks = async (allowed: boolean) => {
      const updated = await api('PUT', `/projects/${project.id}`, { body: { ci_forward_deployment_rollback_allowed: allowed } });
      assert.equal(updated.status, 200, updated.text);
    };
    await rollbacks(false);
    assert.equal((await api('POST', `/projects/${project.id}/jobs/${second.id}/retry`, { token: developer.token })).status, 403, 'a rollback, refused');
    await rollbacks(true);
    const retried = await api('POST', `/projects/${project.id}/jobs/${second.id}/retry`, { token: developer.token });
    assert.equal(retried.status, 201, retried.text);
  });
});
