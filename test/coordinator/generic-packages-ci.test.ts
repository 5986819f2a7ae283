import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const hasCurl = spawnSync('curl', ['--version']).status === 0;

/** GitLab's documented generic package upload from CI: curl with the job's own token, then a download back. */
const PUBLISH_CI = `
publish:
  script:
    - printf 'built by %s\\n' "$CI_JOB_ID" > bin.tar.gz
    - >-
      curl --fail -sS --header "JOB-TOKEN: $CI_JOB_TOKEN" --upload-file bin.tar.gz
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/packages/generic/my_pkg/1.0.0/bin.tar.gz"
    - >-
      curl --fail -sS --header "JOB-TOKEN: $CI_JOB_TOKEN" -o fetched.tar.gz
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/packages/generic/my_pkg/1.0.0/bin.tar.gz"
    - cmp bin.tar.gz fetched.tar.gz && echo round-trip-ok
`;

describe('generic packages from a shell job (curl, CI_JOB_TOKEN)', { skip: hasCurl ? false : 'no curl' }, () => {
  let contract: Contract;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
  });
  after(() => contract.close());

  it("uploads with the job token, downloads it back, and records the job's pipeline", async () => {
    const { projectId, pipelineId } = await contract.project('pkg-ci', { '.gitlab-ci.yml': PUBLISH_CI });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    const jobId = Number(jobs[0]?.id);
    const trace = await contract.trace(projectId, jobId);
    assert.equal(status, 'success', trace);
    assert.match(trace, /201 Created/);
    assert.match(trace, /round-trip-ok/);

    const packages = await contract.test.api('GET', `/projects/${projectId}/packages`);
    assert.deepEqual(packages.list.map((entry) => [entry.name, entry.version]), [['my_pkg', '1.0.0']]);
    const listed = packages.list[0];
    assert.equal((listed.pipeline as Record<string, unknown>).id, pipelineId);
    assert.equal(((listed.pipeline as Record<string, unknown>).user as Record<string, unknown>).username, 'root');
    const files = await contract.test.api('GET', `/projects/${projectId}/packages/${listed.id}/package_files`);
    assert.deepEqual((files.list[0]?.pipelines as Array<Record<string, unknown>>).map((pipeline) => pipeline.id), [pipelineId]);
    const bytes = await contract.test.coordinator.app.inject({ method: 'GET', url: `/api/v4/projects/${projectId}/packages/generic/my_pkg/1.0.0/bin.tar.gz`, headers: { 'private-token': contract.test.rootToken } });
    assert.equal(bytes.body, `built by ${jobId}\n`);
  });
});
