import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const CI = `
branch-job:
  script: echo branch
  rules: [{ if: $CI_COMMIT_BRANCH }]
mr-job:
  script:
    - test "$CI_MERGE_REQUEST_SOURCE_BRANCH_NAME" = feature
    - grep -q feature feature.txt
  rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
`;

/**
 * A merge request from a fork's branch to merge as python-gitlab (Debian's python3-gitlab) drives it,
 * unmodified, while our runner (shell executor) takes the jobs:
 * test/fixtures/python-gitlab/drive_merge_flow.py forks the project, opens the request from the
 * fork into it, waits for its merge request
 * pipeline, sets merge_when_pipeline_succeeds and waits until the request is merged.
 */
describe('a fork\'s merge request merged when its pipeline succeeds, through python-gitlab', () => {
  let contract: Contract;
  let seen: Record<string, unknown>;

  before(async () => {
    contract = await startContract({ executor: 'shell', coordinator: { ci: { taskPollIntervalMs: 20 } } });
    const { projectId, pipelineId } = await contract.project('flow', { '.gitlab-ci.yml': CI });
    assert.equal((await contract.finished(projectId, pipelineId)).status, 'success');
    const script = path.join(import.meta.dirname, '../fixtures/python-gitlab/drive_merge_flow.py');
    const run = await execa('/usr/bin/python3', [script, contract.url, contract.test.rootToken, String(projectId)], { reject: false, timeout: 300_000 });
    assert.equal(run.exitCode, 0, run.stderr);
    seen = JSON.parse(run.stdout) as Record<string, unknown>;
  });
  after(() => contract.close());

  it('opens the request from the fork and its pipeline runs for the head on refs/merge-requests', () => {
    assert.deepEqual(seen.opened, [1, 'opened', true, true, true]);
    assert.deepEqual(seen.pipeline, [true, 'refs/merge-requests/1/head', 'merge_request_event']);
  });

  it('merges when the runner finished the pipeline, and removes the source branch in the fork', () => {
    assert.equal(seen.asked, true);
    assert.deepEqual(seen.merged, ['merged', true, 'root']);
    assert.equal(seen.pipeline_status, 'success');
    assert.deepEqual(seen.jobs, [['mr-job', 'success']]);
    assert.equal(seen.branch_removed, true);
  });
});
