import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MERGE_REQUEST_ENVIRONMENTS_STOP_TASK } from '../../src/coordinator/services/ci/environment-merge-request-stop.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import { startDownstreamFixture, waitFor, type DownstreamFixture } from './downstream-fixtures.ts';

/**
 * Merging or closing a merge request cancels its review apps' deployment jobs (GitLab's
 * `cancel_review_app_jobs!`) and stops its head pipeline's environments (GitLab's
 * `Environments::StopService#execute_for_merge_request_pipeline`).
 */
const CI = `
deploy:
  script: ./deploy
  environment: { name: review/mr-$CI_MERGE_REQUEST_IID, on_stop: stop }
  rules: [{ if: $CI_MERGE_REQUEST_IID }]
stop:
  script: ./stop
  when: manual
  environment: { name: review/mr-$CI_MERGE_REQUEST_IID, action: stop }
  rules: [{ if: $CI_MERGE_REQUEST_IID, when: manual }]
mr-other:
  script: ./deploy
  environment: other/mr-$CI_MERGE_REQUEST_IID
  rules: [{ if: $CI_MERGE_REQUEST_IID }]
branch-deploy:
  script: ./deploy
  environment: branch/$CI_COMMIT_REF_NAME
  rules: [{ if: $CI_COMMIT_BRANCH }]
`;

describe('environments of a merged or closed merge request', () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('mr-stop');
  });
  after(() => fixture.close());

  const environment = async (name: string) => {
    const found = await fixture.gantry.coordinator.context.stores.environments.findByName(project.id, name);
    assert.ok(found, name);
    return found;
  };

  /** Opens a request from `branch` to main; answers its id and iid. */
  async function open(branch: string): Promise<{ id: number; iid: number }> {
    const opened = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: branch } });
    assert.equal(opened.status, 201, opened.text);
    return { id: opened.json.id as number, iid: opened.json.iid as number };
  }

  /** The request's head pipeline once it is a merge request pipeline (of `sha`, when given). */
  function headPipeline(requestId: number, sha?: string): Promise<PipelineRecord> {
    const { stores } = fixture.gantry.coordinator.context;
    return waitFor(async () => {
      const [request] = await stores.mergeRequests.findByIds([requestId]);
      const pipeline = request?.head_pipeline_id ? await stores.pipelines.findById(request.head_pipeline_id) : undefined;
      return pipeline?.source === 'merge_request_event' && (sha === undefined || pipeline.sha === sha) ? pipeline : undefined;
    }, `the merge request pipeline${sha ? ` of ${sha}` : ''} as head pipeline`, stores.tasks);
  }

  /** Opens a request from a new branch, deploys its merge request pipeline and the branch pipeline; answers its iid and head pipeline. */
  async function openAndDeploy(branch: string): Promise<{ iid: number; sha: string; head: PipelineRecord }> {
    // Its own comment: a request merged earlier put a CI file in main, and an identical update is refused.
    const sha = await fixture.commit(project.id, branch, { '.gitlab-ci.yml': `${CI}# ${branch}\n`, [`${branch}.txt`]: branch });
    const push = await fixture.pushPipeline(project.id, sha, branch);
    await fixture.finish((await fixture.jobs(push.id))['branch-deploy']!, 'success');
    const { id, iid } = await open(branch);
    const head = await headPipeline(id);
    await fixture.finish((await fixture.jobs(head.id)).deploy!, 'success');
    assert.equal((await environment(`review/mr-${iid}`)).state, 'available');
    return { iid, sha, head };
  }

  const stopped = (name: string) => waitFor(async () => ((await environment(name)).state === 'stopped' ? true : undefined), `${name} stopped`, fixture.gantry.coordinator.context.stores.tasks);

  it('an edit that neither closes nor merges stops nothing', async () => {
    const { iid } = await openAndDeploy('editing');
    const edited = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { title: 'renamed' } });
    assert.equal(edited.status, 200, edited.text);
    const { tasks } = fixture.gantry.coordinator.context.stores;
    const kinds = [...(await tasks.counts(new Date().toISOString())), ...(await tasks.totals())].map((counted) => counted.kind);
    assert.ok(!kinds.includes(MERGE_REQUEST_ENVIRONMENTS_STOP_TASK), kinds.join());
    assert.equal((await environment(`review/mr-${iid}`)).state, 'available');
  });

  it('closing stops the environment its merge request pipeline deployed and plays on_stop; the branch pipeline\'s stays, its jobs run on', async () => {
    const { iid, head } = await openAndDeploy('closing');
    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${(await fixture.jobs(head.id)).deploy!.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    const closed = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { state_event: 'close' } });
    assert.equal(closed.status, 200, closed.text);
    await stopped(`review/mr-${iid}`);
    await fixture.jobWhen(head.id, 'stop', (job) => job.status === 'pending', 'its on_stop job played');
    assert.equal((await environment('branch/closing')).state, 'available', 'deployed by the branch pipeline only');
    assert.equal((await fixture.jobs(head.id)).deploy!.status, 'pending', 'a close cancels no deployment job (a merge does)');
  });

  it('merging stops it too', async () => {
    const { iid, sha, head } = await openAndDeploy('merging');
    const merged = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/merge`, { body: { sha } });
    assert.equal(merged.status, 200, merged.text);
    await stopped(`review/mr-${iid}`);
    await fixture.jobWhen(head.id, 'stop', (job) => job.status === 'pending', 'its on_stop job played');
    assert.equal((await environment('branch/merging')).state, 'available');
  });

  it('closing stops the environments every merge request pipeline of the request created, not only the head pipeline\'s', async () => {
    const perCommit = `deploy:\n  script: ./deploy\n  environment: review/mr-$CI_MERGE_REQUEST_IID-$CI_COMMIT_SHORT_SHA\n  rules: [{ if: $CI_MERGE_REQUEST_IID }]\n`;
    const first = await fixture.commit(project.id, 'per-commit', { '.gitlab-ci.yml': perCommit, 'one.txt': '1' });
    const { id, iid } = await open('per-commit');
    await fixture.finish((await fixture.jobs((await headPipeline(id, first)).id)).deploy!, 'success');
    const second = await fixture.commit(project.id, 'per-commit', { 'one.txt': '2' });
    await fixture.finish((await fixture.jobs((await headPipeline(id, second)).id)).deploy!, 'success');
    const [earlier, head] = [`review/mr-${iid}-${first.slice(0, 8)}`, `review/mr-${iid}-${second.slice(0, 8)}`];
    assert.equal((await environment(earlier)).merge_request_id, id, 'created by the request\'s pipeline');

    const closed = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}`, { body: { state_event: 'close' } });
    assert.equal(closed.status, 200, closed.text);
    await stopped(head);
    await stopped(earlier);
    assert.equal((await environment('branch/closing')).merge_request_id, null, 'a branch pipeline\'s environment belongs to no request');
  });

  it("merging cancels the review app's deployment jobs still to finish, and no other environment's", async () => {
    const { iid, sha, head } = await openAndDeploy('canceling');
    const retried = await fixture.gantry.api('POST', `/projects/${project.id}/jobs/${(await fixture.jobs(head.id)).deploy!.id}/retry`);
    assert.equal(retried.status, 201, retried.text);
    assert.equal((await fixture.jobs(head.id)).deploy!.status, 'pending', 'a new deployment of the review app, still to run');
    const merged = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/merge`, { body: { sha } });
    assert.equal(merged.status, 200, merged.text);
    await stopped(`review/mr-${iid}`);
    await fixture.jobWhen(head.id, 'deploy', (job) => job.status === 'canceled', "the review app's deployment job canceled");
    assert.equal((await fixture.jobs(head.id))['mr-other']!.status, 'pending', 'not a review app: its deployment job is left alone');
  });

  it("merging cancels the deployment jobs of the review apps its head pipeline's child pipelines deploy to; their environments are the request's", async () => {
    const parent = `review-child:\n  trigger: { include: child.yml }\n  rules: [{ if: $CI_MERGE_REQUEST_IID }]\n`;
    const child = 'child-deploy:\n  script: ./deploy\n  environment: review/child-$CI_MERGE_REQUEST_IID\n';
    const sha = await fixture.commit(project.id, 'with-child', { '.gitlab-ci.yml': parent, 'child.yml': child });
    const { id, iid } = await open('with-child');
    const head = await headPipeline(id);
    const bridge = await fixture.jobWhen(head.id, 'review-child', (job) => job.status === 'success', 'its child pipeline created');
    const childPipeline = await fixture.downstreamOf(bridge);
    assert.equal((await fixture.jobs(childPipeline.id))['child-deploy']!.status, 'pending');
    assert.equal((await environment(`review/child-${iid}`)).merge_request_id, id, "a child pipeline's environment is the request's too");

    const merged = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/merge`, { body: { sha } });
    assert.equal(merged.status, 200, merged.text);
    await fixture.jobWhen(childPipeline.id, 'child-deploy', (job) => job.status === 'canceled', "the child's review app deployment job canceled");
    await stopped(`review/child-${iid}`);
  });
});
