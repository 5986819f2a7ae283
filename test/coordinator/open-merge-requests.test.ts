import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

// GitLab's documented way to run either a branch pipeline or a merge request pipeline, never both.
const CI = `
workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH && $CI_OPEN_MERGE_REQUESTS
      when: never
    - if: $CI_COMMIT_BRANCH
job:
  tags: [open-mr]
  script: echo "$CI_OPEN_MERGE_REQUESTS"
  # Pushes make no pipeline here: each pipeline of the tests is asked for.
  rules: [{ if: $CI_PIPELINE_SOURCE != "push" }]
`;

describe('CI_OPEN_MERGE_REQUESTS', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;
  const requests: MergeRequestRecord[] = [];
  let runnerToken = 0;
  let base = '';
  let head = '';

  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const stores = () => fixture.gantry.coordinator.context.stores;

  /** The variable in the payload of the pending job of `pipelineId`, as a runner of its own takes it; undefined when unset. */
  async function variableOfJob(pipelineId: number): Promise<string | undefined> {
    const token = `open-mr-runner-${(runnerToken += 1)}`;
    await stores().runners.create({ runner_type: 'instance_type', created_at: new Date().toISOString(), run_untagged: false, tag_list: ['open-mr'], description: token }, token);
    const response = await fixture.gantry.api('POST', '/jobs/request', { token: null, body: { token } });
    assert.equal(response.status, 201, response.text);
    const payload = response.json as unknown as { id: number; variables: Array<{ key: string; value: string }> };
    const job = await stores().jobs.findById(payload.id);
    assert.equal(job?.pipeline_id, pipelineId);
    return payload.variables.find((variable) => variable.key === 'CI_OPEN_MERGE_REQUESTS')?.value;
  }

  const runBranchPipeline = () => fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'feature' } });

  async function openRequest(target: string, state: 'opened' | 'closed' = 'opened'): Promise<MergeRequestRecord> {
    const request = await stores().mergeRequests.create(
      { project_id: project.id, source_project_id: project.id, source_branch: 'feature', target_branch: target, author_id: 1, title: `Into ${target}`, description: null, state, created_at: new Date().toISOString(), head_sha: head, base_sha: base, start_sha: base },
      {},
    );
    requests.push(request);
    return request;
  }

  before(async () => {
    fixture = await startGitHttpFixture();
    const group = await makeGroup(fixture.gantry, 'open-mr');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('open-mr/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), CI);
    await git('add', '.');
    await git('commit', '-m', 'CI');
    for (const branch of ['main', 'release-1', 'release-2', 'release-3', 'release-4']) await git('push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
    base = await git('rev-parse', 'HEAD');
    writeFileSync(path.join(cwd, 'feature.txt'), 'feature\n');
    await git('add', '.');
    await git('commit', '-m', 'Feature');
    await git('push', '-q', 'origin', 'HEAD:refs/heads/feature');
    head = await git('rev-parse', 'HEAD');
  });
  after(() => fixture.close());

  it('a branch without an open merge request: its pipeline runs and the variable is unset', async () => {
    const created = await runBranchPipeline();
    assert.equal(created.status, 201, created.text);
    assert.equal(await variableOfJob(Number(created.json.id)), undefined);
  });

  it("a closed request does not count; an open one filters the branch's pipeline out, as the workflow rules ask", async () => {
    await openRequest('release-4', 'closed');
    const stillRuns = await runBranchPipeline();
    assert.equal(stillRuns.status, 201, stillRuns.text);
    assert.equal(await variableOfJob(Number(stillRuns.json.id)), undefined);
    await openRequest('main');
    const filtered = await runBranchPipeline();
    assert.equal(filtered.status, 400, filtered.text);
    assert.deepEqual(filtered.json, { message: { base: ['Pipeline filtered out by workflow rules.'] } });
  });

  it("a merge request pipeline names every open request from its source branch: newest first, at most 4, by the target's full path", async () => {
    for (const target of ['release-1', 'release-2', 'release-3']) await openRequest(target);
    const newest = await openRequest('release-4');
    const [first] = requests.filter((request) => request.state === 'opened');
    assert.ok(first);
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${first.iid}/pipelines`);
    assert.equal(created.status, 201, created.text);
    // Five are open; the oldest (the one this pipeline runs for) is past the four newest.
    const newestFour = requests.filter((request) => request.state === 'opened').reverse().slice(0, 4);
    assert.equal(newestFour[0]?.iid, newest.iid);
    assert.equal(await variableOfJob(Number(created.json.id)), newestFour.map((request) => `open-mr/app!${request.iid}`).join(','));
  });
});
