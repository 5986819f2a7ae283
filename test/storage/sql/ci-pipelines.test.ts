import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { createSqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../../src/storage/types.ts';
import { createGroup, createPipeline, createProject, createUser, NOW, openCiTestDatabase, SHA, type CiTestDatabase } from './ci-fixtures.ts';

const OTHER_SHA = 'b'.repeat(40);

describe('CI pipelines storage', () => {
  let database: CiTestDatabase & { url: string };
  let group: NamespaceRecord;
  let project: ProjectRecord;
  let alice: UserRecord;

  before(async () => {
    database = await openCiTestDatabase();
    alice = await createUser(database.stores, 'alice');
    group = await createGroup(database.stores, 'ci');
    project = await createProject(database.stores, group, 'app');
  });
  after(() => database.close());

  it('numbers pipelines per project, also when many are created at once', async () => {
    const { stores } = database;
    const other = await createProject(stores, group, 'other');
    const first = await createPipeline(stores, other);
    assert.equal(first.iid, 1);
    assert.equal(first.before_sha, '0'.repeat(40));
    assert.equal(first.tag, false);
    assert.equal(first.updated_at, NOW);
    const concurrent = await Promise.all(Array.from({ length: 25 }, () => createPipeline(stores, other)));
    assert.deepEqual(concurrent.map((pipeline) => pipeline.iid).sort((a, b) => a - b), Array.from({ length: 25 }, (_, index) => index + 2));
    const elsewhere = await createPipeline(stores, project);
    assert.equal(elsewhere.iid, 1, 'each project counts on its own');
  });

  it('updates fields, bumps lock_version, and answers the row for an empty change', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project, { user_id: alice.id });
    const updated = await stores.pipelines.update(pipeline.id, { status: 'running', started_at: NOW, has_warnings: true });
    assert.equal(updated?.status, 'running');
    assert.equal(updated?.has_warnings, true);
    assert.equal(updated?.lock_version, pipeline.lock_version + 1);
    assert.deepEqual(await stores.pipelines.update(pipeline.id, {}), updated);
    assert.equal(await stores.pipelines.update(999_999, { status: 'failed' }), undefined);
  });

  it('lists with the API filters, order and a total', async () => {
    const { stores } = database;
    const listed = await createProject(stores, group, 'listed');
    const bob = await createUser(stores, 'bob');
    const a = await createPipeline(stores, listed, { status: 'success', user_id: alice.id, updated_at: '2026-01-01T00:00:00.000Z' });
    const b = await createPipeline(stores, listed, { status: 'failed', ref: 'feature', sha: OTHER_SHA, user_id: bob.id, yaml_errors: 'bad', updated_at: '2026-02-01T00:00:00.000Z' });
    const c = await createPipeline(stores, listed, { status: 'running', user_id: alice.id, updated_at: '2026-03-01T00:00:00.000Z' });
    const d = await createPipeline(stores, listed, { status: 'pending', ref: 'v1.0', tag: true, updated_at: '2026-04-01T00:00:00.000Z' });
    const ids = async (filter: object, page = { offset: 0, limit: 20 }) => (await stores.pipelines.list({ projectId: listed.id, ...filter }, page)).items.map((pipeline) => pipeline.id);

    assert.deepEqual(await ids({}), [d.id, c.id, b.id, a.id]);
    assert.deepEqual(await ids({ sort: 'asc' }), [a.id, b.id, c.id, d.id]);
    assert.deepEqual(await ids({ scope: 'finished' }), [b.id, a.id]);
    assert.deepEqual(await ids({ scope: 'running' }), [c.id]);
    assert.deepEqual(await ids({ scope: 'branches' }), [c.id, b.id], 'the latest pipeline of each branch');
    assert.deepEqual(await ids({ scope: 'tags' }), [d.id]);
    assert.deepEqual(await ids({ status: 'failed' }), [b.id]);
    assert.deepEqual(await ids({ ref: 'main' }), [c.id, a.id]);
    assert.deepEqual(await ids({ sha: OTHER_SHA }), [b.id]);
    assert.deepEqual(await ids({ yamlErrors: true }), [b.id]);
    assert.deepEqual(await ids({ yamlErrors: false }), [d.id, c.id, a.id]);
    assert.deepEqual(await ids({ username: 'ALICE' }), [c.id, a.id]);
    assert.deepEqual(await ids({ userName: 'bob name' }), [b.id]);
    assert.deepEqual(await ids({ updatedAfter: '2026-01-15T00:00:00.000Z', updatedBefore: '2026-03-15T00:00:00.000Z' }), [c.id, b.id]);
    assert.deepEqual(await ids({ orderBy: 'status', sort: 'asc' }), [b.id, d.id, c.id, a.id]);
    assert.deepEqual(await ids({ orderBy: 'ref', sort: 'asc' }), [b.id, a.id, c.id, d.id]);
    assert.deepEqual(await ids({ orderBy: 'updated_at', sort: 'desc' }), [d.id, c.id, b.id, a.id]);
    const page = await stores.pipelines.list({ projectId: listed.id }, { offset: 1, limit: 2 });
    assert.equal(page.total, 4);
    assert.deepEqual(page.items.map((pipeline) => pipeline.id), [c.id, b.id]);
    assert.equal((await stores.pipelines.list({ projectId: listed.id, username: 'nobody' }, { offset: 0, limit: 20 })).total, 0);
  });

  it('finds the latest pipeline for a sha and ref, and the latest successful one of a ref', async () => {
    const { stores } = database;
    const shaProject = await createProject(stores, group, 'sha-project');
    const older = await createPipeline(stores, shaProject, { status: 'success' });
    const newer = await createPipeline(stores, shaProject, { status: 'failed' });
    const otherRef = await createPipeline(stores, shaProject, { ref: 'feature' });
    assert.equal((await stores.pipelines.latestFor(shaProject.id, SHA))?.id, otherRef.id);
    assert.equal((await stores.pipelines.latestFor(shaProject.id, SHA, 'main'))?.id, newer.id);
    assert.equal(await stores.pipelines.latestFor(shaProject.id, OTHER_SHA), undefined);
    assert.equal((await stores.pipelines.latestSuccessfulForRef(shaProject.id, 'main'))?.id, older.id);
    assert.equal((await stores.pipelines.findInProject(shaProject.id, older.id))?.id, older.id);
    assert.equal(await stores.pipelines.findInProject(project.id, older.id), undefined);
  });

  it('stores 20,000 pipeline variables in one call (more bound values than SQLite or PostgreSQL take in one statement)', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    const variables = Array.from({ length: 20_000 }, (_, index) => ({ key: `VAR_${index}`, value: `value ${index}`, variable_type: 'env_var' as const }));
    await stores.pipelineVariables.add(pipeline.id, variables);
    const stored = await stores.pipelineVariables.list(pipeline.id);
    assert.equal(stored.length, 20_000);
    assert.deepEqual([stored[0], stored[19_999]], [variables[0], variables[19_999]]);
  });

  it('keeps pipeline variables and stages', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    await stores.pipelineVariables.add(pipeline.id, [
      { key: 'A', value: '1', variable_type: 'env_var' },
      { key: 'B', value: 'file body', variable_type: 'file' },
      { key: 'A', value: '2', variable_type: 'env_var' },
    ]);
    assert.deepEqual(await stores.pipelineVariables.list(pipeline.id), [
      { key: 'A', value: '2', variable_type: 'env_var' },
      { key: 'B', value: 'file body', variable_type: 'file' },
    ]);
    const stages = await stores.stages.insertMany(pipeline.id, [
      { name: 'test', position: 2, status: 'created' },
      { name: 'build', position: 1, status: 'created' },
    ]);
    assert.deepEqual(stages.map((stage) => stage.name), ['build', 'test']);
    await stores.stages.updateStatuses(pipeline.id, [{ name: 'build', status: 'running' }]);
    assert.deepEqual((await stores.stages.listForPipeline(pipeline.id)).map((stage) => [stage.name, stage.status]), [['build', 'running'], ['test', 'created']]);
  });

  it('locks a pipeline for processing until the transaction ends', async () => {
    const { stores } = database;
    const pipeline = await createPipeline(stores, project);
    // A second handle: on PostgreSQL another pool, on SQLite the same handle (one connection, transactions in turn).
    const second = database.opened.dialect === 'postgres' ? openDatabase(database.url) : undefined;
    const otherStores = second ? createSqlStores(second.db) : stores;
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = stores.ciTransactions.run(async (ci) => {
      await ci.pipelines.lockForProcessing(pipeline.id);
      events.push('first locked');
      firstLocked();
      await firstHolds;
      await ci.pipelines.update(pipeline.id, { status: 'running' });
      events.push('first done');
    });
    await locked;
    const secondRun = otherStores.ciTransactions.run(async (ci) => {
      const seen = await ci.pipelines.lockForProcessing(pipeline.id);
      events.push(`second locked, saw ${seen?.status}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseFirst();
    await Promise.all([first, secondRun]);
    await second?.close();
    assert.deepEqual(events, ['first locked', 'first done', 'second locked, saw running']);
  });

  it('rolls a transaction back entirely when its work throws', async () => {
    const { stores } = database;
    const rolledBack = await createProject(stores, group, 'rollback');
    await assert.rejects(
      stores.ciTransactions.run(async (ci) => {
        await ci.pipelines.create({ project_id: rolledBack.id, ref: 'main', sha: SHA, source: 'push', status: 'created', created_at: NOW });
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal((await stores.pipelines.list({ projectId: rolledBack.id }, { offset: 0, limit: 5 })).total, 0);
    assert.equal((await createPipeline(stores, rolledBack)).iid, 1, 'the iid counter rolled back too');
  });

  it('goes away with its project', async () => {
    const { stores } = database;
    const doomed = await createProject(stores, group, 'doomed');
    const pipeline = await createPipeline(stores, doomed);
    await stores.pipelineVariables.add(pipeline.id, [{ key: 'K', value: 'v', variable_type: 'env_var' }]);
    assert.equal(await stores.projects.delete(doomed.id), true);
    assert.equal(await stores.pipelines.findById(pipeline.id), undefined);
    assert.deepEqual(await stores.pipelineVariables.list(pipeline.id), []);
  });
});
