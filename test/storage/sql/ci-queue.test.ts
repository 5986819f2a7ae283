import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { createSqlStores, type SqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { JobRecord, NewJob } from '../../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../../src/storage/types-ci.ts';
import type { NewRunner, RunnerRecord } from '../../../src/storage/types-runners.ts';
import type { NamespaceRecord, ProjectRecord } from '../../../src/storage/types.ts';
import { turnBudget } from '../../helpers/bounded.ts';
import { buildJob, createGroup, createPipeline, createProject, NOW, openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

let tokens = 0;
/** More claims than any test here has pending jobs. */
const DRAIN_TURNS = 50;

describe('CI job queue', () => {
  let database: CiTestDatabase & { url: string };
  let stores: SqlStores;
  let group: NamespaceRecord;
  let subgroup: NamespaceRecord;
  let projectA: ProjectRecord;
  let projectB: ProjectRecord;
  let noShared: ProjectRecord;
  let noJobs: ProjectRecord;

  before(async () => {
    database = await openCiTestDatabase();
    stores = database.stores;
    group = await createGroup(stores, 'queue');
    subgroup = await createGroup(stores, 'sub', group);
    projectA = await createProject(stores, group, 'a');
    projectB = await createProject(stores, subgroup, 'b');
    noShared = await createProject(stores, await createGroup(stores, 'other'), 'private-runners', { shared_runners_enabled: false });
    noJobs = await createProject(stores, group, 'no-ci', { jobs_enabled: false });
  });
  after(() => database.close());
  // Every test starts from an empty queue.
  beforeEach(async () => {
    await database.opened.db.updateTable('ci_jobs').set({ status: 'canceled' }).where('status', 'in', ['waiting_for_resource', 'pending', 'running', 'canceling']).execute();
  });

  const runner = (fields: Partial<NewRunner> & Pick<NewRunner, 'runner_type'>, owners?: { projectIds?: number[]; namespaceId?: number }) =>
    stores.runners.create({ created_at: NOW, ...fields }, `runner-token-${++tokens}`, owners);

  async function pending(project: ProjectRecord, count: number, overrides: Partial<NewJob> = {}, pipelineFields: Partial<PipelineRecord> = {}): Promise<JobRecord[]> {
    const pipeline = await createPipeline(stores, project, pipelineFields);
    return stores.jobs.insertMany(Array.from({ length: count }, (_, index) => buildJob(pipeline, `job ${index}`, { status: 'pending', ...overrides })));
  }

  const claim = async (claimer: RunnerRecord, store = stores) => (await store.jobQueue.claim(claimer, { now: NOW, tokenDigest: `digest-${++tokens}` }))?.job;

  /** Claims until none is left: a job handed out twice fails here rather than looping for ever. */
  async function drain(claimer: RunnerRecord): Promise<number[]> {
    const ids: number[] = [];
    const budget = turnBudget(DRAIN_TURNS, () => `draining the queue for runner ${claimer.id} (claimed ${ids.join(', ')})`);
    for (let job = await claim(claimer); job; job = await claim(claimer)) {
      assert.ok(!ids.includes(job.id), `job ${job.id} handed out twice to runner ${claimer.id}`);
      ids.push(job.id);
      budget.next();
    }
    return ids;
  }

  it("answers a resource group's oldest waiting job while no job of the group holds it, per project", async () => {
    const [first, second] = await pending(projectA, 2, { resource_group: 'production', status: 'waiting_for_resource' });
    const [staging] = await pending(projectA, 1, { resource_group: 'staging', status: 'waiting_for_resource' });
    const [elsewhere] = await pending(projectB, 1, { resource_group: 'production', status: 'waiting_for_resource' });
    const next = (project: ProjectRecord, key: string) => stores.ciTransactions.run(async (trx) => (await trx.jobQueue.nextForResource(project.id, key))?.id);
    assert.equal(await next(projectA, 'production'), first!.id);
    assert.equal(await next(projectA, 'staging'), staging!.id);
    assert.equal(await next(projectB, 'production'), elsewhere!.id);
    assert.equal(await next(projectA, 'nothing-waits'), undefined);
    for (const holding of ['pending', 'running', 'canceling'] as const) {
      await stores.jobs.update(first!.id, { status: holding });
      assert.equal(await next(projectA, 'production'), undefined, `a ${holding} job of the group holds it`);
    }
    await stores.jobs.update(first!.id, { status: 'success' });
    assert.equal(await next(projectA, 'production'), second!.id);
  });

  it('serialises assignments of one resource group: a second waits for the first to commit and then finds the group held', async () => {
    const [first, second] = await pending(projectA, 2, { resource_group: 'race', status: 'waiting_for_resource' });
    let firstInside!: () => void;
    const inside = new Promise<void>((resolve) => (firstInside = resolve));
    const assignment = (hold: Promise<void> | null) =>
      stores.ciTransactions.run(async (trx) => {
        const next = await trx.jobQueue.nextForResource(projectA.id, 'race');
        if (hold) {
          firstInside();
          await hold;
        }
        if (next) await trx.jobs.update(next.id, { status: 'pending' });
        return next?.id;
      });
    let release!: () => void;
    const one = assignment(new Promise((resolve) => (release = resolve)));
    await inside;
    const two = assignment(null);
    // Give the second assignment time to reach the group (it must wait there, not read it free).
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    assert.deepEqual([await one, await two], [first!.id, undefined]);
    assert.deepEqual((await stores.jobs.findByIds([first!.id, second!.id])).map((job) => job.status), ['pending', 'waiting_for_resource']);
  });

  it('hands out pending jobs of a resource group like any other: the group decides which of its jobs are pending', async () => {
    const taker = await runner({ runner_type: 'instance_type' });
    const jobs = await pending(projectA, 2, { resource_group: 'production' });
    assert.deepEqual(await drain(taker), jobs.map((job) => job.id));
  });

  it('hands a pending build to an instance runner and marks it running', async () => {
    const shared = await runner({ runner_type: 'instance_type' });
    const [job] = await pending(projectA, 1);
    const claimed = (await stores.jobQueue.claim(shared, { now: '2026-11-22T10:00:00.000Z', tokenDigest: 'a'.repeat(64) }))?.job;
    assert.equal(claimed?.id, job.id);
    assert.deepEqual(
      [claimed?.status, claimed?.runner_id, claimed?.runner_type, claimed?.started_at, claimed?.lock_version],
      ['running', shared.id, 'instance_type', '2026-11-22T10:00:00.000Z', job.lock_version + 1],
    );
    assert.equal((await stores.jobs.findByTokenDigest('a'.repeat(64)))?.id, job.id);
    assert.equal(await claim(shared), undefined, 'nothing else is pending');
  });

  it("says, with the job it claims, whether the job's project is archived", async () => {
    const shared = await runner({ runner_type: 'instance_type' });
    const archived = await createProject(stores, group, 'archived', { archived: true });
    const [live] = await pending(projectA, 1);
    const [frozen] = await pending(archived, 1);
    const first = await stores.jobQueue.claim(shared, { now: NOW, tokenDigest: `digest-${++tokens}` });
    const second = await stores.jobQueue.claim(shared, { now: NOW, tokenDigest: `digest-${++tokens}` });
    assert.deepEqual(
      [first, second].map((claimed) => claimed && { id: claimed.job.id, archived: claimed.projectArchived }).sort((a, b) => (a?.id ?? 0) - (b?.id ?? 0)),
      [{ id: live!.id, archived: false }, { id: frozen!.id, archived: true }],
    );
  });

  it('never hands out created jobs, bridges, external statuses, or jobs of projects without CI or shared runners', async () => {
    const shared = await runner({ runner_type: 'instance_type' });
    await pending(projectA, 1, { status: 'created' });
    await pending(projectA, 1, { type: 'bridge' });
    await pending(projectA, 1, { type: 'generic' });
    await pending(noShared, 1);
    await pending(noJobs, 1);
    assert.equal(await claim(shared), undefined);
  });

  it('matches tags: every job tag must be a runner tag; untagged jobs only for run_untagged runners', async () => {
    const [untagged] = await pending(projectA, 1);
    const [docker] = await pending(projectA, 1, { tag_list: ['docker'] });
    const [dockerGpu] = await pending(projectA, 1, { tag_list: ['gpu', 'docker'] });
    const taggedOnly = await runner({ runner_type: 'instance_type', tag_list: ['linux', 'docker'], run_untagged: false });
    assert.deepEqual(await drain(taggedOnly), [docker.id]);
    const gpu = await runner({ runner_type: 'instance_type', tag_list: ['docker', 'gpu'], run_untagged: true });
    assert.deepEqual(await drain(gpu), [untagged.id, dockerGpu.id]);
  });

  it('tells, without claiming, whether a claim would find a job (hasCandidate)', async () => {
    const taggedOnly = await runner({ runner_type: 'instance_type', tag_list: ['gpu'], run_untagged: false });
    const any = await runner({ runner_type: 'instance_type' });
    assert.equal(await stores.jobQueue.hasCandidate(any), false, 'empty queue');
    const [job] = await pending(projectA, 1);
    assert.equal(await stores.jobQueue.hasCandidate(taggedOnly), false, 'an untagged job for a runner that takes only tagged ones');
    assert.equal(await stores.jobQueue.hasCandidate(any), true);
    assert.equal((await stores.jobs.findById(job.id))?.status, 'pending', 'looking claims nothing');
    assert.equal((await claim(any))?.id, job.id);
    assert.equal(await stores.jobQueue.hasCandidate(any), false);
  });

  it('gives protected-only runners jobs of protected refs only', async () => {
    const [unprotected] = await pending(projectA, 1);
    const [guarded] = await pending(projectA, 1, { protected: true });
    const protectedOnly = await runner({ runner_type: 'instance_type', access_level: 'ref_protected' });
    assert.deepEqual(await drain(protectedOnly), [guarded.id]);
    assert.deepEqual(await drain(await runner({ runner_type: 'instance_type' })), [unprotected.id]);
  });

  it('gives project runners their projects and group runners the projects under their group', async () => {
    const [inA] = await pending(projectA, 1);
    const [inB] = await pending(projectB, 1);
    const [inNoShared] = await pending(noShared, 1);
    await pending(noJobs, 1);
    const projectRunner = await runner({ runner_type: 'project_type' }, { projectIds: [noShared.id] });
    assert.deepEqual(await drain(projectRunner), [inNoShared.id], 'a project runner serves a project without shared runners');
    const subgroupRunner = await runner({ runner_type: 'group_type' }, { namespaceId: subgroup.id });
    assert.deepEqual(await drain(subgroupRunner), [inB.id]);
    const [inB2] = await pending(projectB, 1);
    const groupRunner = await runner({ runner_type: 'group_type' }, { namespaceId: group.id });
    assert.deepEqual(await drain(groupRunner), [inA.id, inB2.id], 'subgroups included, oldest first');
  });

  it('serves the project with the fewest jobs on instance runners first (fair usage), then the oldest job', async () => {
    const shared = await runner({ runner_type: 'instance_type' });
    const busy = await pending(projectA, 4);
    const [quiet] = await pending(projectB, 1);
    assert.equal((await claim(shared))?.id, busy[0].id, 'no project runs anything: the oldest job');
    assert.equal((await claim(shared))?.id, quiet.id, 'A runs one now, B none');
    assert.equal((await claim(shared))?.id, busy[1].id);
    // Jobs on a project runner do not count against A.
    const projectRunner = await runner({ runner_type: 'project_type' }, { projectIds: [projectA.id] });
    const [quiet2] = await pending(projectB, 2);
    assert.equal((await claim(projectRunner))?.id, busy[2].id);
    assert.equal((await claim(shared))?.id, quiet2.id, 'A: 2 on instance runners, B: 1');
  });

  it('finds the one job a runner can take behind many it cannot', async () => {
    await pending(projectA, 300, { tag_list: ['gpu'] });
    const [small] = await pending(projectB, 1);
    assert.equal((await claim(await runner({ runner_type: 'instance_type' })))?.id, small.id);
  });

  it('never hands one job to two claims racing for it', async () => {
    const jobs = await pending(projectA, 30);
    await pending(projectB, 10);
    const shared = await runner({ runner_type: 'instance_type' });
    // On PostgreSQL the claims come through two pools (two coordinators); on SQLite one connection takes them in turn.
    const second = database.opened.dialect === 'postgres' ? openDatabase(database.url) : undefined;
    const otherStores = second ? createSqlStores(second.db) : stores;
    try {
      const claims = await Promise.all(Array.from({ length: 50 }, (_, index) => claim(shared, index % 2 === 0 ? stores : otherStores)));
      const claimed = claims.filter((job): job is JobRecord => job !== undefined);
      assert.equal(claimed.length, 40);
      assert.equal(new Set(claimed.map((job) => job.id)).size, 40, 'no job twice');
      assert.ok(jobs.every((job) => claimed.some((taken) => taken.id === job.id)));
    } finally {
      await second?.close();
    }
  });
});
