import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BuildJobDefinition } from '../../src/ci/model.ts';
import { crossPipelineDependenciesOf } from '../../src/coordinator/services/ci/runners/cross-pipeline-dependencies.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { storeArtifacts } from '../helpers/ci-blobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { waitFor } from './downstream-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

// Only the pipelines the test runs: the commits' push pipelines are filtered out.
const PARENT = `
workflow:
  rules:
    - if: $CI_PIPELINE_SOURCE == "push"
      when: never
    - when: always
stages: [build, child]
build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
child:
  stage: child
  variables:
    PARENT_PIPELINE_ID: $CI_PIPELINE_ID
  trigger:
    include: child.yml
`;

const CHILD = `
use:
  needs:
    - pipeline: $PARENT_PIPELINE_ID
      job: build
  script: [cat out/a.txt]
without-artifacts:
  needs:
    - pipeline: $PARENT_PIPELINE_ID
      job: nope
      artifacts: false
  script: [echo]
missing:
  needs:
    - pipeline: $PARENT_PIPELINE_ID
      job: nope
  script: [echo]
`;

/**
 * `needs: [{pipeline: $PARENT_PIPELINE_ID, job}]` (GitLab's cross-pipeline dependencies): a
 * child pipeline's job downloads the artifacts of its parent's job; a need that names no
 * successful job of the hierarchy fails the job with missing_dependency_failure when a runner
 * asks for it.
 */
describe('needs:pipeline:job (artifacts from the parent pipeline)', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture({ extra: { ci: { runTasks: true, taskPollIntervalMs: 30 } } });
  });
  after(() => fixture.close());

  const stores = () => fixture.gantry.coordinator.context.stores;
  const jobsOf = async (pipelineId: number): Promise<Record<string, JobRecord>> =>
    Object.fromEntries((await stores().jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 50 })).items.map((job) => [job.name, job]));

  async function parentAndChild(path: string) {
    const project = await fixture.ciProject(path, PARENT);
    const added = await fixture.gantry.api('POST', `/projects/${project.id}/repository/commits`, {
      body: { branch: 'main', commit_message: 'child', actions: [{ action: 'create', file_path: 'child.yml', content: CHILD }] },
    });
    assert.equal(added.status, 201, added.text);
    const runner = await fixture.register(project.runners_token);
    const parentId = await fixture.runPipeline(project.id);
    const taken = await fixture.requestJob(runner.token);
    assert.equal((taken.json.job_info as Record<string, unknown>).name, 'build');
    const { build } = await jobsOf(parentId);
    assert.ok(build);
    await storeArtifacts(fixture.gantry.coordinator, build, { 'out/a.txt': 'from the parent' });
    await moveJob(fixture.gantry.coordinator, build, 'success');
    const child = await waitFor(async () => (await stores().pipelines.listBySourceJobs([(await jobsOf(parentId)).child!.id]))[0], 'the child pipeline');
    return { project, runner, parentId, build, child };
  }

  it('hands the parent job to the child job as a dependency with its archive, and fails the job whose parent job is not there', async () => {
    const { runner, build, child } = await parentAndChild('family');
    const handed = new Map<string, Record<string, unknown>>();
    for (let asked = 0; asked < 3; asked += 1) {
      const answer = await fixture.requestJob(runner.token);
      if (answer.status === 204) break;
      assert.equal(answer.status, 201, answer.text);
      handed.set((answer.json.job_info as Record<string, unknown>).name as string, answer.json);
    }
    assert.deepEqual([...handed.keys()].sort(), ['use', 'without-artifacts'], 'the job whose need found nothing is not handed out');
    const [dependency] = handed.get('use')!.dependencies as Record<string, unknown>[];
    assert.equal(dependency?.id, build.id);
    assert.equal(dependency?.name, 'build');
    assert.equal((dependency?.artifacts_file as Record<string, unknown>).filename, 'artifacts.zip');
    assert.deepEqual(handed.get('without-artifacts')!.dependencies, [], 'artifacts: false takes nothing and asks nothing');
    const missing = (await jobsOf(child.id)).missing;
    assert.equal(missing?.status, 'failed');
    assert.equal(missing?.failure_reason, 'missing_dependency_failure');

    // The runner downloads the archive with the child job's own token.
    const token = handed.get('use')!.token as string;
    const download = await fetch(`${fixture.baseUrl}/api/v4/jobs/${build.id}/artifacts`, { headers: { 'job-token': token } });
    assert.equal(download.status, 200);
  });

  it('finds only successful jobs of the same hierarchy, not of another pipeline nor of its own', async () => {
    const first = await parentAndChild('other-family');
    const second = await parentAndChild('second-family');
    const use = (await jobsOf(second.child.id)).use!;
    const definition = use.definition as BuildJobDefinition;
    const naming = (pipeline: string): BuildJobDefinition => ({ ...definition, crossPipelineNeeds: [{ pipeline, job: 'build', artifacts: true }] });
    const ownParent = await crossPipelineDependenciesOf(stores(), use, naming(String(second.parentId)));
    assert.deepEqual(ownParent.jobs.map((job) => job.id), [second.build.id]);
    assert.equal(ownParent.valid, true);
    const otherRoot = await crossPipelineDependenciesOf(stores(), use, naming(String(first.parentId)));
    assert.deepEqual(otherRoot, { jobs: [], valid: false }, "another project's pipeline is not of the hierarchy");
    const ownPipeline = await crossPipelineDependenciesOf(stores(), use, naming(String(second.child.id)));
    assert.equal(ownPipeline.valid, false, 'its own pipeline is for local needs');
    const byVariable = await crossPipelineDependenciesOf(stores(), use, { ...naming('$NOT_SET'), variables: [] });
    assert.equal(byVariable.valid, false, 'an unset variable names no pipeline');
    const bridge = { ...naming(String(second.parentId)), crossPipelineNeeds: [{ pipeline: String(second.parentId), job: 'child', artifacts: true }] };
    assert.equal((await crossPipelineDependenciesOf(stores(), use, bridge)).valid, false, 'a bridge is no dependency');
  });
});
