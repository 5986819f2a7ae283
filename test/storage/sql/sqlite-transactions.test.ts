import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { createSqlStores } from '../../../src/storage/sql/stores/index.ts';
import { createGroup, createPipeline, createProject } from './ci-fixtures.ts';
import { scriptArgs } from '../../helpers/script-args.ts';

const run = promisify(execFile);
const ROUNDS = 60;

describe('SQLite transactions across processes', () => {
  let directory: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gantry-sqlite-tx-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('serialises two processes processing one pipeline: no lost update, no busy error', async () => {
    const file = join(directory, 'gantry.sqlite3');
    const opened = openDatabase(file);
    await migrateToLatest(opened.db, opened.dialect);
    const stores = createSqlStores(opened.db);
    const project = await createProject(stores, await createGroup(stores, 'tx'), 'app');
    const pipeline = await createPipeline(stores, project, { coverage: '0' });
    await opened.close();

    const writer = join(import.meta.dirname, 'sqlite-writer.ts');
    const startAt = String(Date.now() + 3000);
    const children = await Promise.all(
      [1, 2].map(() => run(process.execPath, [...scriptArgs(writer), file, String(ROUNDS), String(pipeline.id), startAt], { cwd: process.cwd() })),
    );
    const results = children.map((child) => JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as { done: number; errorCount: number; errors: string[] });
    assert.deepEqual(results.map((result) => result.errors), [[], []]);
    assert.deepEqual(results.map((result) => result.done), [ROUNDS, ROUNDS]);

    const reopened = openDatabase(file);
    try {
      const final = await createSqlStores(reopened.db).pipelines.findById(pipeline.id);
      assert.equal(final?.coverage, String(2 * ROUNDS), 'every read-then-write saw the previous one');
    } finally {
      await reopened.close();
    }
  });
});
