import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { startDownstreamFixture, type DownstreamFixture } from './downstream-fixtures.ts';

/**
 * GitLab's "Pass dotenv variables created in a job" downstream: a bridge's `variables:` expand
 * the dotenv report variables of the builds whose artifacts it would take (earlier stages, or
 * its `needs` with artifacts), and `forward: pipeline_variables` passes those variables on
 * themselves, above the YAML variables and below the pipeline's own. (The report upload
 * itself, over the runner protocol, is test/coordinator/runner-dotenv.test.ts.)
 */
const CHILD = `
child-job:
  script: echo "$BUILD_VERSION"
only-for-the-version:
  script: echo built
  rules:
    - if: $BUILD_VERSION == "1.2.3"
`;

describe('dotenv variables of a bridge\'s dependencies', () => {
  let fixture: DownstreamFixture;
  let project: { id: number; path: string };

  before(async () => {
    fixture = await startDownstreamFixture();
    project = await fixture.project('dotenv-app');
  });
  after(() => fixture.close());

  /** What a dotenv report upload keeps (the artifact record and its parsed variables). */
  async function reportDotenv(job: JobRecord, variables: Record<string, string>): Promise<void> {
    await fixture.gantry.coordinator.context.stores.jobArtifacts.save(
      {
        job_id: job.id, project_id: job.project_id, file_type: 'dotenv', file_format: 'gzip', file_name: '.env.gz', size: 1, sha256: 'a'.repeat(64),
        path: `dotenv-${job.id}`, expire_at: null, created_at: new Date().toISOString(),
      },
      [],
      Object.entries(variables).map(([key, value]) => ({ key, value })),
    );
  }

  async function childVariables(pipelineId: number, bridgeName: string): Promise<Record<string, string>> {
    const bridge = await fixture.jobWhen(pipelineId, bridgeName, (job) => job.status === 'success', 'success once its child exists');
    const child = await fixture.downstreamOf(bridge);
    const variables = await fixture.gantry.coordinator.context.stores.pipelineVariables.list(child.id);
    return Object.fromEntries(variables.map((variable) => [variable.key, variable.value]));
  }

  it('a bridge variable naming a dotenv variable of an earlier stage gets its value; unnamed dotenv variables stay behind', async () => {
    const config = `
stages: [build, child]
variables:
  GLOBAL_VERSION: v$BUILD_VERSION
build:
  stage: build
  script: echo BUILD_VERSION=1.2.3 >> build.env
  artifacts: { reports: { dotenv: build.env } }
trigger-child:
  stage: child
  variables:
    BUILD_VERSION: $BUILD_VERSION
    TAGGED: release-\${BUILD_VERSION}
  trigger:
    include: ci/child.yml
`;
    const sha = await fixture.commit(project.id, 'named', { '.gitlab-ci.yml': config, 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'named');
    const { build } = await fixture.jobs(parent.id);
    await reportDotenv(build!, { BUILD_VERSION: '1.2.3', NOT_NAMED: 'stays' });
    await fixture.finish(build!, 'success');

    const bridge = await fixture.jobWhen(parent.id, 'trigger-child', (job) => job.status === 'success', 'success');
    assert.deepEqual(
      await childVariables(parent.id, 'trigger-child'),
      { BUILD_VERSION: '1.2.3', TAGGED: 'release-1.2.3', GLOBAL_VERSION: 'v1.2.3' },
      'the dotenv value expands the bridge YAML variables (global ones too); NOT_NAMED is not passed without forward:pipeline_variables',
    );
    const childJobs = await fixture.jobs((await fixture.downstreamOf(bridge)).id);
    assert.deepEqual(Object.keys(childJobs).sort(), ['child-job', 'only-for-the-version'], 'the child pipeline rules see the value');
  });

  it('only the builds whose artifacts the bridge takes: with needs, the needed jobs with artifacts', async () => {
    const config = `
stages: [build, child]
version:
  stage: build
  script: ./version
other:
  stage: build
  script: ./other
no-artifacts:
  stage: build
  script: ./no-artifacts
by-stage:
  stage: child
  variables: { SEEN: "$FROM_VERSION/$FROM_OTHER/$FROM_NO_ARTIFACTS" }
  trigger: { include: ci/child.yml }
by-needs:
  stage: child
  needs: [version, { job: no-artifacts, artifacts: false }]
  variables: { SEEN: "$FROM_VERSION/$FROM_OTHER/$FROM_NO_ARTIFACTS" }
  trigger: { include: ci/child.yml }
needs-nothing:
  stage: child
  needs: []
  variables: { SEEN: "$FROM_VERSION/$FROM_OTHER/$FROM_NO_ARTIFACTS" }
  trigger: { include: ci/child.yml }
`;
    const sha = await fixture.commit(project.id, 'needs', { '.gitlab-ci.yml': config, 'ci/child.yml': CHILD });
    const parent = await fixture.pushPipeline(project.id, sha, 'needs');
    const jobs = await fixture.jobs(parent.id);
    assert.deepEqual(await childVariables(parent.id, 'needs-nothing'), { SEEN: '//' }, 'needs: [] takes no artifacts (it starts at once)');
    await reportDotenv(jobs.version!, { FROM_VERSION: 'v' });
    await reportDotenv(jobs.other!, { FROM_OTHER: 'o' });
    await reportDotenv(jobs['no-artifacts']!, { FROM_NO_ARTIFACTS: 'n' });
    for (const name of ['version', 'other', 'no-artifacts']) await fixture.finish(jobs[name]!, 'success');

    assert.deepEqual(await childVariables(parent.id, 'by-stage'), { SEEN: 'v/o/n' }, 'every build of the earlier stages');
    assert.deepEqual(await childVariables(parent.id, 'by-needs'), { SEEN: 'v//' }, 'the needed job with artifacts only');
  });

  it('forward: pipeline_variables passes the dotenv variables too, above the YAML variables and below the pipeline variables', async () => {
    const config = `
stages: [build, child]
build:
  stage: build
  script: ./build
trigger-child:
  stage: child
  variables:
    YAML_VS_DOTENV: yaml
    YAML_ONLY: yaml
  trigger:
    include: ci/child.yml
    forward: { pipeline_variables: true }
without-yaml:
  stage: child
  variables:
    NAMED: $BUILD_VERSION
  trigger:
    include: ci/child.yml
    forward: { yaml_variables: false, pipeline_variables: true }
`;
    await fixture.commit(project.id, 'forward', { '.gitlab-ci.yml': config, 'ci/child.yml': CHILD });
    const run = await fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, {
      body: { ref: 'forward', variables: [{ key: 'DOTENV_VS_PIPELINE', value: 'pipeline' }] },
    });
    assert.equal(run.status, 201, run.text);
    const parentId = run.json.id as number;
    const { build } = await fixture.jobs(parentId);
    await reportDotenv(build!, { BUILD_VERSION: '1.2.3', YAML_VS_DOTENV: 'dotenv', DOTENV_VS_PIPELINE: 'dotenv' });
    await fixture.finish(build!, 'success');

    assert.deepEqual(await childVariables(parentId, 'trigger-child'), {
      YAML_VS_DOTENV: 'dotenv',
      YAML_ONLY: 'yaml',
      BUILD_VERSION: '1.2.3',
      DOTENV_VS_PIPELINE: 'pipeline',
    });
    assert.deepEqual(
      await childVariables(parentId, 'without-yaml'),
      { BUILD_VERSION: '1.2.3', YAML_VS_DOTENV: 'dotenv', DOTENV_VS_PIPELINE: 'pipeline' },
      'without forward:yaml_variables the bridge variables stay behind, the dotenv ones go on',
    );
  });

  it('a multi-project trigger expands its project and branch with the dotenv variables', async () => {
    const target = await fixture.project('dotenv-target');
    await fixture.commit(target.id, 'main', { '.gitlab-ci.yml': 'target-job:\n  script: echo "$BUILD_VERSION"\n' });
    await fixture.commit(target.id, 'release-2', { RELEASE: '2\n' });
    const config = `
stages: [build, deploy]
build:
  stage: build
  script: ./build
deploy:
  stage: deploy
  variables:
    BUILD_VERSION: $BUILD_VERSION
  trigger:
    project: $TARGET_PROJECT
    branch: release-$RELEASE
`;
    const sha = await fixture.commit(project.id, 'multi', { '.gitlab-ci.yml': config });
    const parent = await fixture.pushPipeline(project.id, sha, 'multi');
    const { build } = await fixture.jobs(parent.id);
    await reportDotenv(build!, { BUILD_VERSION: '2.0.0', TARGET_PROJECT: target.path, RELEASE: '2' });
    await fixture.finish(build!, 'success');

    const bridge = await fixture.jobWhen(parent.id, 'deploy', (job) => job.status === 'success', 'success once the downstream exists');
    const downstream = await fixture.downstreamOf(bridge);
    assert.equal(downstream.project_id, target.id);
    assert.equal(downstream.ref, 'release-2');
    const variables = await fixture.gantry.coordinator.context.stores.pipelineVariables.list(downstream.id);
    assert.deepEqual(variables.map((variable) => [variable.key, variable.value]), [['BUILD_VERSION', '2.0.0']]);
  });
});
