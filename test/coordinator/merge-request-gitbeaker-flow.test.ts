import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { waitUntil } from '../helpers/bounded.ts';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const CI = `
branch-job:
  script: echo branch
  rules: [{ if: $CI_COMMIT_BRANCH }]
mr-job:
  script:
    - test "$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH" = contributor/upstream
    - grep -q fork-change change.txt
  rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
`;

type Client = InstanceType<typeof Gitlab>;

/**
 * The fork flow as a GitLab user drives it with @gitbeaker/rest, unmodified, against a listening
 * coordinator whose own runner (shell executor) takes the jobs: a contributor forks, commits on
 * a branch of the fork and opens a request into the upstream project; a maintainer runs its merge
 * request pipeline (GitLab runs a fork's request pipeline in the parent when a member asks), asks
 * to merge when it succeeds, and the request merges when the runner's job has passed.
 */
describe('a fork merge request through @gitbeaker/rest, its pipeline run by our runner', () => {
  let contract: Contract;
  let maintainer: Client;
  let contributor: Client;
  let upstreamId: number;

  before(async () => {
    contract = await startContract({ executor: 'shell', coordinator: { ci: { taskPollIntervalMs: 20 } } });
    const { projectId, pipelineId } = await contract.project('upstream', { '.gitlab-ci.yml': CI });
    upstreamId = projectId;
    assert.equal((await contract.finished(projectId, pipelineId)).status, 'success');
    maintainer = new Gitlab({ host: contract.url, token: contract.test.rootToken });
    await maintainer.Projects.edit(upstreamId, { visibility: 'public' });
    const user = await contract.test.createUser('contributor');
    contributor = new Gitlab({ host: contract.url, token: user.token });
  });
  after(() => contract.close());

  it('opens from a fork, runs the request pipeline, merges when it succeeds', async () => {
    const fork = await contributor.Projects.fork(upstreamId);
    assert.equal(fork.path_with_namespace, 'contributor/upstream');
    await waitUntil(async () => (await contributor.Projects.show(fork.id)).import_status !== 'started', 'the fork to finish');
    const commit = await contributor.Commits.create(fork.id, 'fork-feature', 'Change from the fork', [{ action: 'create', filePath: 'change.txt', content: 'fork-change\n' }], {
      startBranch: 'main',
    });

    const opened = await contributor.MergeRequests.create(fork.id, 'fork-feature', 'main', 'Change from a fork', { targetProjectId: upstreamId });
    assert.equal(opened.project_id, upstreamId);
    assert.equal(opened.source_project_id, fork.id);
    assert.equal(opened.target_project_id, upstreamId);
    assert.equal(opened.sha, commit.id);
    const iid = opened.iid;

    // A contributor who is no member of upstream gets no pipeline there; the maintainer runs one.
    await waitUntil(async () => (await maintainer.MergeRequests.show(upstreamId, iid)).merge_status === 'can_be_merged', 'the merge status check');
    const pipeline = await maintainer.MergeRequests.createPipeline(upstreamId, iid);
    assert.equal(pipeline.sha, commit.id);
    assert.equal(pipeline.ref, `refs/merge-requests/${iid}/head`);

    const waiting = await maintainer.MergeRequests.merge(upstreamId, iid, { mergeWhenPipelineSucceeds: true, shouldRemoveSourceBranch: false });
    if (waiting.state === 'opened') assert.equal(waiting.merge_when_pipeline_succeeds, true, 'the merge waits for the running pipeline');
    else assert.equal(waiting.state, 'merged', 'a pipeline that had already finished merges at once');

    await waitUntil(async () => (await maintainer.MergeRequests.show(upstreamId, iid)).state === 'merged', 'the merge when the pipeline succeeded', { timeoutMs: 120_000 });
    const listed = await maintainer.MergeRequests.allPipelines(upstreamId, iid);
    const ran = listed.find((entry) => entry.id === pipeline.id);
    assert.equal(ran?.status, 'success', JSON.stringify(listed));
    const jobs = await maintainer.Jobs.all(upstreamId, { pipelineId: pipeline.id });
    assert.deepEqual(
      jobs.map((job) => [job.name, job.status]),
      [['mr-job', 'success']],
    );

    const merged = await maintainer.MergeRequests.show(upstreamId, iid);
    assert.equal((merged.merged_by as { username: string } | null)?.username, 'root');
    assert.equal((await maintainer.Branches.show(upstreamId, 'main')).commit.id, merged.merge_commit_sha);
    const file = await maintainer.RepositoryFiles.showRaw(upstreamId, 'change.txt', 'main');
    assert.equal(String(file), 'fork-change\n');
  });
});
