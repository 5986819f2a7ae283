/**
 * Auto-cancel of redundant pipelines: a new commit's pipeline cancels the older ones of its ref
 * as their `workflow:auto_cancel:on_new_commit` says (by default while every started job of theirs
 * is interruptible); and `on_job_failure: all`: a failing job cancels the rest of its pipeline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = `
stages: [build, deploy]
build:
  stage: build
  interruptible: true
  script: make
deploy:
  stage: deploy
  script: ./deploy
`;

describe('auto-cancel of redundant pipelines', () => {
  let gantry: TestCoordinator;
  let projectId = 0;
  let counter = 0;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'redundant', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
  });
  after(() => gantry.close());

  /** A commit to `branch` (its push pipeline follows) and the pipeline of that commit. */
  async function push(branch: string, ci = CI, files: Record<string, string> = {}): Promise<PipelineRecord> {
    counter++;
    const first = (await gantry.api('GET', `/projects/${projectId}/repository/branches/${branch}`)).status === 404;
    const actions = [
      { action: first ? 'create' : 'update', file_path: '.gitlab-ci.yml', content: `${ci}# ${counter}\n` },
      ...Object.entries(files).map(([path, content]) => ({ action: first ? 'create' : 'update', file_path: path, content })),
    ];
    const body = { branch, ...(first ? { start_branch: 'main' } : {}), commit_message: `change ${counter}`, actions };
    const answer = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body });
    assert.equal(answer.status, 201, answer.text);
    const sha = answer.json.id as string;
    let found: PipelineRecord | undefined;
    await waitUntil(async () => (found = await gantry.coordinator.context.stores.pipelines.latestFor(projectId, sha)) !== undefined, `the pipeline of ${sha}`);
    return found as PipelineRecord;
  }
  const pipeline = async (id: number) => (await gantry.coordinator.context.stores.pipelines.findById(id)) as PipelineRecord;
  const jobs = async (id: number): Promise<Record<string, JobRecord>> => {
    const { items } = await gantry.coordinator.context.stores.jobs.list({ pipelineId: id }, { offset: 0, limit: 100 });
    return Object.fromEntries(items.map((job) => [job.name, job]));
  };

  // A push's pipeline is visible before the pass that cancels what it makes redundant ends: wait for the cancel.
  const canceled = (id: number) => waitUntil(async () => (await pipeline(id)).status === 'canceled', `pipeline ${id} to be canceled`);

  it('cancels the older pipeline of the branch when nothing has started, or only interruptible jobs have', async () => {
    const waiting = await push('feature');
    const newer = await push('feature');
    await canceled(waiting.id);
    assert.equal((await pipeline(newer.id)).status, 'pending');

    await moveJob(gantry.coordinator, (await jobs(newer.id)).build!, 'running');
    const newest = await push('feature');
    await canceled(newer.id);
    assert.equal((await jobs(newer.id)).build?.status, 'canceled', 'its only started job is interruptible');
    assert.equal((await pipeline(newest.id)).status, 'pending');
  });

  it('leaves a pipeline whose started job is not interruptible, and pipelines of other branches', async () => {
    const started = await push('release');
    await moveJob(gantry.coordinator, (await jobs(started.id)).build!, 'running');
    await moveJob(gantry.coordinator, (await jobs(started.id)).build!, 'success');
    await moveJob(gantry.coordinator, (await jobs(started.id)).deploy!, 'running');
    const idle = await push('release');
    const other = await push('other');
    await push('release');
    // The pass goes oldest first: once the idle pipeline is canceled, the started one was passed over.
    await canceled(idle.id);
    assert.equal((await pipeline(started.id)).status, 'running', 'deploy started and is not interruptible');
    assert.equal((await pipeline(other.id)).status, 'pending', 'another branch');
  });

  it('leaves a pipeline of the same commit: a second pipeline of it is no newer code', async () => {
    const first = await push('again');
    const second = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'again' } });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.json.sha, first.sha);
    // An API pipeline is answered once the pass after its creation has ended.
    assert.equal((await pipeline(first.id)).status, 'pending');
  });

  it('on_new_commit none keeps the older pipeline; interruptible cancels its interruptible jobs only', async () => {
    const none = `workflow:\n  auto_cancel:\n    on_new_commit: none\n${CI}`;
    const kept = await push('keep', none);
    const newer = await push('keep', none);
    assert.equal((await pipeline(newer.id)).status, 'pending');
    assert.equal((await pipeline(kept.id)).status, 'pending', 'on_new_commit: none');

    const interruptible = `workflow:\n  auto_cancel:\n    on_new_commit: interruptible\n${CI}\nlint:\n  stage: build\n  script: lint\n`;
    const older = await push('safe', interruptible);
    await moveJob(gantry.coordinator, (await jobs(older.id)).lint!, 'running');
    await push('safe', interruptible);
    await waitUntil(async () => (await jobs(older.id)).build?.status === 'canceled', 'the interruptible job to be canceled');
    const left = await jobs(older.id);
    assert.equal(left.lint?.status, 'running', 'not interruptible: it goes on');
    assert.equal(left.deploy?.status, 'created', 'not interruptible, not started: it waits for its stage');
    assert.equal((await pipeline(older.id)).status, 'running');
    await moveJob(gantry.coordinator, left.lint!, 'success');
    assert.equal((await jobs(older.id)).deploy?.status, 'skipped', 'its stage has a canceled job');
  });

  it("treats each child pipeline by its own on_new_commit, not by its parent's", async () => {
    const parent = (strategy: string, depend = '') => `workflow:\n  auto_cancel:\n    on_new_commit: ${strategy}\nchild:\n  trigger:\n    include: child.yml\n${depend}`;
    const child = (strategy: string) => `workflow:\n  auto_cancel:\n    on_new_commit: ${strategy}\nunit:\n  script: unit\nslow:\n  interruptible: true\n  script: slow\n`;
    const childOf = async (id: number) => {
      let found: PipelineRecord | undefined;
      await waitUntil(async () => (found = (await gantry.coordinator.context.stores.pipelines.listBySourceJobs([(await jobs(id)).child!.id]))[0]) !== undefined, `the child of ${id}`);
      return found as PipelineRecord;
    };
    // The parent, running while its child runs (depend), is canceled (conservative); its child that says none goes on.
    const depend = '    strategy: depend\n';
    const first = await push('family', parent('conservative', depend), { 'child.yml': child('none') });
    const keptChild = await childOf(first.id);
    await push('family', parent('conservative', depend));
    await canceled(first.id);
    assert.equal((await pipeline(keptChild.id)).status, 'pending', 'on_new_commit: none in the child');
    assert.deepEqual([(await jobs(keptChild.id)).unit?.status, (await jobs(keptChild.id)).slow?.status], ['pending', 'pending']);

    // A child of a finished parent (no depend) is a candidate of its own: conservative, nothing started, canceled whole.
    const second = await push('family2', parent('interruptible'), { 'child.yml': child('conservative') });
    const wholeChild = await childOf(second.id);
    await push('family2', parent('interruptible'));
    await canceled(wholeChild.id);
    assert.deepEqual([(await jobs(wholeChild.id)).unit?.status, (await jobs(wholeChild.id)).slow?.status], ['canceled', 'canceled'], 'unit is not interruptible, yet canceled');
  });

  it('on_job_failure all cancels the rest of the pipeline when a job that may not fail fails', async () => {
    const ci = `workflow:
  name: 'Checks of $CI_COMMIT_REF_NAME'
  auto_cancel:
    on_job_failure: all
stages: [test, deploy]
unit:
  script: unit
slow:
  script: slow
allowed:
  allow_failure: true
  script: maybe
flaky:
  retry: 1
  script: flaky
deploy:
  stage: deploy
  script: deploy
`;
    const created = await push('failing', ci);
    const detail = await gantry.api('GET', `/projects/${projectId}/pipelines/${created.id}`);
    assert.equal(detail.json.name, 'Checks of failing');
    const first = await jobs(created.id);
    await moveJob(gantry.coordinator, first.allowed!, 'running');
    await moveJob(gantry.coordinator, first.allowed!, 'failed');
    await moveJob(gantry.coordinator, first.flaky!, 'running');
    await moveJob(gantry.coordinator, first.flaky!, 'failed', 'script_failure');
    const retried = await jobs(created.id);
    assert.equal(retried.slow?.status, 'pending', 'an allowed failure and a failure retried automatically cancel nothing');
    assert.equal(retried.flaky?.status, 'pending', 'the retry of flaky');
    await moveJob(gantry.coordinator, first.slow!, 'running');
    await moveJob(gantry.coordinator, first.unit!, 'running');
    await moveJob(gantry.coordinator, first.unit!, 'failed', 'script_failure');
    const after = await jobs(created.id);
    assert.equal(after.slow?.status, 'canceled');
    assert.equal(after.flaky?.status, 'canceled', 'the retry of flaky');
    assert.equal(after.deploy?.status, 'canceled');
    assert.equal((await pipeline(created.id)).status, 'failed');
  });
});
