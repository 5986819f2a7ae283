import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDownstreamFixture, type DownstreamFixture } from './downstream-fixtures.ts';

const CHILD = `
child-test:
  script: make test
from-parent:
  script: echo parent
  rules:
    - if: $CI_PIPELINE_SOURCE == "parent_pipeline" && $GREETING =~ /^hello-/
from-push:
  script: echo push
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
`;

function parentConfig(strategy: 'depend' | null): string {
  return `
stages: [build, child, after]
variables:
  GLOBAL_VALUE: shared
build:
  stage: build
  script: make
trigger-child:
  stage: child
  variables:
    GREETING: hello-$CI_COMMIT_REF_NAME
  trigger:
    include: ci/child.yml${strategy ? `\n    strategy: ${strategy}` : ''}
after:
  stage: after
  script: echo done
`;
}

describe('child pipelines (trigger:include)', () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('app');
  });
  after(() => fixture.close());

  it('a push creates the parent; its bridge, once pending, creates the child with the included jobs, source parent_pipeline', async () => {
    const sha = await fixture.commit(project.id, 'plain', { '.gitlab-ci.yml': parentConfig(null), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'plain');
    let jobs = await fixture.jobs(parent.id);
    assert.equal(jobs['trigger-child'].type, 'bridge');
    assert.equal(jobs['trigger-child'].status, 'created', 'the bridge waits for its stage');
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.pipelines.listBySourceJobs([jobs['trigger-child'].id]), []);

    await fixture.finish(jobs.build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'succeeds once the child exists');
    const child = await fixture.downstreamOf(bridge);
    assert.equal(child.project_id, project.id);
    assert.equal(child.source, 'parent_pipeline');
    assert.equal(child.sha, sha);
    assert.equal(child.ref, 'plain');
    assert.equal(child.parent_pipeline_id, parent.id);
    assert.equal(child.source_job_id, bridge.id);
    assert.equal(child.user_id, parent.user_id);
    const childJobs = await fixture.jobs(child.id);
    assert.deepEqual(Object.keys(childJobs).sort(), ['child-test', 'from-parent'], 'CI_PIPELINE_SOURCE=parent_pipeline and the bridge variable reach the child');
    assert.equal(childJobs['child-test'].status, 'pending');

    const variables = await fixture.gantry.coordinator.context.stores.pipelineVariables.list(child.id);
    assert.deepEqual(
      variables.map((variable) => [variable.key, variable.value]).sort(),
      [['GLOBAL_VALUE', 'shared'], ['GREETING', 'hello-plain']],
      'the bridge YAML variables (global and job, expanded) become the child pipeline variables',
    );
    jobs = await fixture.jobs(parent.id);
    assert.equal(jobs.after.status, 'pending', 'a bridge without strategy: depend does not wait for the child');
  });

  it('lists the bridge with its downstream_pipeline', async () => {
    const sha = await fixture.commit(project.id, 'listed', { '.gitlab-ci.yml': parentConfig(null), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'listed');
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'success');
    const child = await fixture.downstreamOf(bridge);
    const answer = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}/bridges`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.list.length, 1);
    const [listed] = answer.list;
    assert.equal(listed.name, 'trigger-child');
    assert.equal(listed.status, 'success');
    const downstream = listed.downstream_pipeline as Record<string, unknown>;
    assert.equal(downstream.id, child.id);
    assert.equal(downstream.project_id, project.id);
    assert.equal(downstream.source, 'parent_pipeline');
    assert.equal(downstream.status, 'pending');
    assert.equal(downstream.web_url, `http://gantry.test/${project.path}/-/pipelines/${child.id}`);
    const single = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${child.id}`);
    assert.equal(single.json.source, 'parent_pipeline');
    // The commit's pipeline is the parent, though the child is newer on the same sha and ref.
    const commit = await fixture.gantry.api('GET', `/projects/${project.id}/repository/commits/${sha}`);
    assert.equal((commit.json.last_pipeline as Record<string, unknown>).id, parent.id);
    const status = await fixture.gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'running', name: 'external', ref: 'listed' } });
    assert.equal(status.status, 201, status.text);
    assert.equal(status.json.pipeline_id, parent.id);
  });

  it('strategy: depend keeps the bridge running and mirrors the child: success lets the parent go on', async () => {
    const sha = await fixture.commit(project.id, 'depend-ok', { '.gitlab-ci.yml': parentConfig('depend'), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'depend-ok');
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running while the child runs');
    const child = await fixture.downstreamOf(bridge);
    assert.equal((await fixture.jobs(parent.id)).after.status, 'created');
    assert.equal((await fixture.pipeline(parent.id)).status, 'running');

    const childJobs = await fixture.jobs(child.id);
    await fixture.finish(childJobs['child-test'], 'success');
    assert.equal((await fixture.jobs(parent.id))['trigger-child'].status, 'running', 'one child job left: still running');
    await fixture.finish(childJobs['from-parent'], 'success');
    await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'success with the child');
    await fixture.jobWhen(parent.id, 'after', (job) => job.status === 'pending', 'the next stage runs');
  });

  /** A depend parent on branch `ref` whose child failed: the bridge and the parent failed, the next stage skipped. */
  async function parentOfFailedChild(ref: string) {
    const sha = await fixture.commit(project.id, ref, { '.gitlab-ci.yml': parentConfig('depend'), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, ref);
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running');
    const child = await fixture.downstreamOf(bridge);
    const childJobs = await fixture.jobs(child.id);
    await fixture.finish(childJobs['child-test'], 'failed');
    await fixture.finish(childJobs['from-parent'], 'success');
    const failed = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'failed', 'failed with the child');
    await fixture.pipelineWhen(parent.id, (pipeline) => pipeline.status === 'failed', 'failed');
    assert.equal((await fixture.jobs(parent.id)).after.status, 'skipped');
    return { parent, bridge, failed, child, childJobs };
  }

  it('strategy: depend fails the bridge, and the parent, when the child fails', async () => {
    const { failed, child } = await parentOfFailedChild('depend-bad');
    assert.equal((await fixture.pipeline(child.id)).status, 'failed');
    assert.equal(failed.failure_reason, 'unknown_failure');
  });

  it('strategy: depend follows the child after it finished: a retried child job runs the bridge again, success moves the parent on', async () => {
    const { parent, bridge, child, childJobs } = await parentOfFailedChild('depend-retry');

    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${childJobs['child-test'].id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    const again = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running again with the retried child');
    assert.equal(again.id, bridge.id, 'the same bridge, not a new one');
    assert.equal(again.failure_reason, null);
    assert.equal(again.finished_at, null);
    const reopened = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}`);
    assert.equal(reopened.json.status, 'running', 'the parent leaves failed');
    assert.equal(reopened.json.finished_at, null);
    assert.equal((await fixture.jobs(parent.id)).after.status, 'created', 'the skipped next stage waits again');

    await fixture.finish((await fixture.jobs(child.id))['child-test'], 'success');
    const succeeded = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'success with the child');
    assert.equal(succeeded.failure_reason, null);
    await fixture.jobWhen(parent.id, 'after', (job) => job.status === 'pending', 'the next stage runs');
    const bridges = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}/bridges`);
    assert.deepEqual(bridges.list.map((bridge) => [bridge.id, bridge.status]), [[again.id, 'success']]);
    assert.equal((await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}`)).json.status, 'running');
  });

  it('strategy: depend: a canceled child cancels the bridge (no failure reason); retrying the child pipeline brings both back', async () => {
    const sha = await fixture.commit(project.id, 'depend-cancel', { '.gitlab-ci.yml': parentConfig('depend'), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'depend-cancel');
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const child = await fixture.downstreamOf(await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running'));
    const canceled = await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${child.id}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'canceled', 'canceled with the child');
    assert.equal(bridge.failure_reason, null);
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}/bridges`);
    assert.deepEqual(listed.list.map((item) => [item.id, item.status, item.failure_reason ?? null]), [[bridge.id, 'canceled', null]]);
    await fixture.pipelineWhen(parent.id, (pipeline) => pipeline.status === 'canceled', 'canceled');

    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${child.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running with the retried child');
    await fixture.pipelineWhen(parent.id, (pipeline) => pipeline.status === 'running', 'running again');
    for (const job of Object.values(await fixture.jobs(child.id))) await fixture.finish(job, 'success');
    await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'success with the child');
    await fixture.jobWhen(parent.id, 'after', (job) => job.status === 'pending', 'the next stage runs');
  });

  it('strategy: depend through two levels: a retried grandchild job reopens both bridges and both upstream pipelines', async () => {
    const level = (include: string) => `
down:
  trigger:
    include: ${include}
    strategy: depend
`;
    const sha = await fixture.commit(project.id, 'depend-nested', { '.gitlab-ci.yml': level('ci/middle.yml'), 'ci/middle.yml': level('ci/leaf.yml'), 'ci/leaf.yml': 'leaf:\n  script: make\n' });
    const top = await fixture.pushPipeline(project.id, sha, 'depend-nested');
    const middle = await fixture.downstreamOf(await fixture.jobWhen(top.id, 'down', (job) => job.status === 'running', 'top bridge running'));
    const leaf = await fixture.downstreamOf(await fixture.jobWhen(middle.id, 'down', (job) => job.status === 'running', 'middle bridge running'));
    const leafJob = (await fixture.jobs(leaf.id)).leaf;
    await fixture.finish(leafJob, 'failed');
    await fixture.pipelineWhen(top.id, (pipeline) => pipeline.status === 'failed', 'the top pipeline fails with the leaf');
    assert.equal((await fixture.pipeline(middle.id)).status, 'failed');

    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${leafJob.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    await fixture.pipelineWhen(top.id, (pipeline) => pipeline.status === 'running', 'the top pipeline runs again');
    assert.equal((await fixture.pipeline(middle.id)).status, 'running');
    assert.equal((await fixture.jobs(top.id)).down.status, 'running');

    await fixture.finish((await fixture.jobs(leaf.id)).leaf, 'success');
    await fixture.pipelineWhen(top.id, (pipeline) => pipeline.status === 'success', 'the top pipeline succeeds with the leaf');
    assert.equal((await fixture.pipeline(middle.id)).status, 'success');
  });

  it('strategy: depend fails the bridge with unknown_failure when the child is skipped', async () => {
    const skippedChild = `
only-on-failure:
  script: echo
  when: on_failure
`;
    const sha = await fixture.commit(project.id, 'depend-skip', { '.gitlab-ci.yml': parentConfig('depend'), 'ci/child.yml': skippedChild });
    const parent = await fixture.pushPipeline(project.id, sha, 'depend-skip');
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'failed', 'failed with the skipped child');
    assert.equal(bridge.failure_reason, 'unknown_failure');
    assert.equal((await fixture.downstreamOf(bridge)).status, 'skipped');
    await fixture.pipelineWhen(parent.id, (pipeline) => pipeline.status === 'failed', 'failed');
  });

  it('canceling the parent cancels its running child pipeline', async () => {
    const sha = await fixture.commit(project.id, 'cancel', { '.gitlab-ci.yml': parentConfig('depend'), 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'cancel');
    await fixture.finish((await fixture.jobs(parent.id)).build, 'success');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'running', 'running');
    const child = await fixture.downstreamOf(bridge);
    const canceled = await fixture.gantry.api('POST', `/projects/${project.id}/pipelines/${parent.id}/cancel`);
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal((await fixture.jobs(parent.id))['trigger-child'].status, 'canceled');
    await fixture.pipelineWhen(child.id, (pipeline) => pipeline.status === 'canceled', 'canceled with its parent');
    assert.deepEqual(Object.values(await fixture.jobs(child.id)).map((job) => job.status), ['canceled', 'canceled']);
  });

  it('a child configuration error saves the failed child and fails the bridge with downstream_pipeline_creation_failed', async () => {
    const config = `
trigger-child:
  trigger:
    include: ci/missing.yml
`;
    const sha = await fixture.commit(project.id, 'broken', { '.gitlab-ci.yml': config });
    const parent = await fixture.pushPipeline(project.id, sha, 'broken');
    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'failed', 'failed');
    assert.equal(bridge.failure_reason, 'downstream_pipeline_creation_failed');
    const child = await fixture.downstreamOf(bridge);
    assert.equal(child.status, 'failed');
    assert.equal(child.failure_reason, 'config_error');
    assert.match(child.yaml_errors ?? '', /ci\/missing\.yml/);
    assert.deepEqual(bridge.downstream_errors, [child.yaml_errors], 'the bridge keeps the errors of its child');
    await fixture.pipelineWhen(parent.id, (pipeline) => pipeline.status === 'failed', 'failed');
  });

  it('a child whose rules add no job, or whose workflow rules refuse it, is not saved; its bridge fails and keeps why', async () => {
    const config = `
no-jobs:
  trigger:
    include: ci/no-jobs.yml
    strategy: depend
workflow-refused:
  trigger:
    include: ci/refused.yml
`;
    const files = {
      '.gitlab-ci.yml': config,
      'ci/no-jobs.yml': 'never:\n  script: echo\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n',
      'ci/refused.yml': 'workflow:\n  rules:\n    - when: never\nunit:\n  script: echo\n',
    };
    const sha = await fixture.commit(project.id, 'refused-children', files);
    const parent = await fixture.pushPipeline(project.id, sha, 'refused-children');
    const expected = {
      'no-jobs': 'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.',
      'workflow-refused': 'Pipeline filtered out by workflow rules.',
    };
    for (const [name, message] of Object.entries(expected)) {
      const bridge = await fixture.jobWhen(parent.id, name, (job) => job.status === 'failed', 'failed');
      assert.equal(bridge.failure_reason, 'downstream_pipeline_creation_failed', name);
      assert.deepEqual(bridge.downstream_errors, [message], name);
      assert.deepEqual(await fixture.gantry.coordinator.context.stores.pipelines.listBySourceJobs([bridge.id]), [], `${name} saved no child`);
    }
    // GitLab's bridge entity has no field for them: the API shows the failure reason alone.
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${parent.id}/bridges`);
    assert.deepEqual(listed.list.map((bridge) => [bridge.name, bridge.failure_reason, bridge.downstream_pipeline]).sort(), Object.keys(expected).map((name) => [name, 'downstream_pipeline_creation_failed', null]));
    assert.ok(listed.list.every((bridge) => !JSON.stringify(bridge).includes('prevented') && !JSON.stringify(bridge).includes('filtered out')), listed.text);
  });

  it('children nest two levels deep; a third level fails with reached_max_descendant_pipelines_depth', async () => {
    const nest = `
nest:
  trigger:
    include: ci/nest.yml
`;
    const sha = await fixture.commit(project.id, 'nested', { '.gitlab-ci.yml': nest, 'ci/nest.yml': nest });
    const parent = await fixture.pushPipeline(project.id, sha, 'nested');
    const first = await fixture.downstreamOf(await fixture.jobWhen(parent.id, 'nest', (job) => job.status === 'success', 'first child'));
    const second = await fixture.downstreamOf(await fixture.jobWhen(first.id, 'nest', (job) => job.status === 'success', 'grandchild'));
    assert.equal(second.parent_pipeline_id, first.id);
    const refused = await fixture.jobWhen(second.id, 'nest', (job) => job.status === 'failed', 'too deep');
    assert.equal(refused.failure_reason, 'reached_max_descendant_pipelines_depth');
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.pipelines.listBySourceJobs([refused.id]), []);
  });
});
