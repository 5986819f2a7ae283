import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const hasCurl = spawnSync('curl', ['--version']).status === 0;

const DOWNSTREAM_CI = `
downstream:
  script: echo "source=$CI_PIPELINE_SOURCE"
`;

/** A job's script uses its own CI_JOB_TOKEN as GitLab documents: release-cli's call, and a multi-project trigger. */
const RELEASE_CI = `
publish:
  script:
    - >-
      curl --fail -sS -X POST -H "JOB-TOKEN: $CI_JOB_TOKEN"
      --data-urlencode "tag_name=v1.2.3" --data-urlencode "ref=$CI_COMMIT_SHA" --data-urlencode "name=Release from CI"
      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/releases"
    - >-
      curl --fail -sS -X POST -F "token=$CI_JOB_TOKEN" -F ref=main
      "$CI_API_V4_URL/projects/root%2Fjt-shell-down/trigger/pipeline"
`;

describe('CI_JOB_TOKEN from a shell job (curl)', { skip: hasCurl ? false : 'no curl' }, () => {
  let contract: Contract;

  before(async () => {
    contract = await startContract({ executor: 'shell' });
  });
  after(() => contract.close());

  it('creates a release of its project with JOB-TOKEN and triggers a pipeline of another project with token=$CI_JOB_TOKEN', async () => {
    const down = await contract.project('jt-shell-down', { '.gitlab-ci.yml': DOWNSTREAM_CI });
    await contract.finished(down.projectId, down.pipelineId);
    const { projectId, pipelineId } = await contract.project('jt-shell-app', { '.gitlab-ci.yml': RELEASE_CI });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    const trace = await contract.trace(projectId, Number(jobs[0]?.id));
    assert.equal(status, 'success', trace);

    const release = await contract.test.api('GET', `/projects/${projectId}/releases/v1.2.3`);
    assert.equal(release.status, 200, release.text);
    assert.equal(release.json.name, 'Release from CI');
    assert.equal((release.json.author as Record<string, unknown>).username, 'root');

    const pipelines = await contract.test.api('GET', `/projects/${down.projectId}/pipelines?source=pipeline`);
    assert.equal(pipelines.status, 200, pipelines.text);
    assert.equal(pipelines.list.length, 1, pipelines.text);
    const triggered = await contract.finished(down.projectId, Number(pipelines.list[0]?.id));
    assert.equal(triggered.status, 'success');
    assert.match(await contract.trace(down.projectId, Number(triggered.jobs[0]?.id)), /source=pipeline/);
  });
});
