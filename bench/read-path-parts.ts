/**
 * What each mechanism of the SQLite read path saves, printed as one JSON line (microseconds
 * per operation, medians of 5 rounds of 20,000): reading one project row by id
 *  - through kysely as the stores' other queries do (build, compile, connection queue) — the
 *    baseline — and through `preparedQuery` (compiled once, run on the connection directly);
 *  - building and compiling that query alone (what `preparedQuery` skips);
 *  - `prepare` of its SQL text (what the statement cache skips) against running the prepared
 *    statement, in autocommit and inside one open read transaction (what `read-batch.ts`
 *    saves: the WAL read lock taken once);
 *  - converting the row into a record (`ColumnKinds.toRecord`, 17 boolean and JSON columns).
 * Run: node --import tsx bench/read-path-parts.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../src/storage/sql/database.ts';
import { migrateToLatest } from '../src/storage/sql/migrate.ts';
import { preparedQuery } from '../src/storage/sql/prepared.ts';
import { toProject } from '../src/storage/sql/stores/projects.ts';
import { createSqlStores } from '../src/storage/sql/stores/index.ts';
import { median } from './support/coordinator.ts';

const NOW = '2026-11-27T00:00:00.000Z';
const ROUNDS = 5;
const OPERATIONS = 20_000;

async function microsPerOperation(operation: () => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round += 1) {
    const started = performance.now();
    for (let index = 0; index < OPERATIONS; index += 1) {
      const result = operation();
      if (result instanceof Promise) await result;
    }
    // The first round warms up and is not counted.
    if (round > 0) rounds.push(((performance.now() - started) * 1000) / OPERATIONS);
  }
  return Math.round(median(rounds) * 100) / 100;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-read-path-'));
  const file = path.join(work, 'gantry.sqlite3');
  const database = openDatabase(file);
  const raw = new BetterSqlite3(file);
  try {
    await migrateToLatest(database.db, database.dialect);
    const stores = createSqlStores(database.db);
    const group = await stores.namespaces.create({
      kind: 'group', name: 'bench', path: 'bench', full_path: 'bench', full_name: 'bench', parent_id: null, owner_id: null, description: '',
      visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null, created_at: NOW, updated_at: NOW,
    });
    const project = await stores.projects.create({
      namespace_id: group.id, creator_id: 1, name: 'hammer', path: 'hammer', description: '', default_branch: 'main', visibility: 'private', archived: false,
      issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true, container_registry_enabled: false,
      resolve_outdated_diff_discussions: false, shared_runners_enabled: true, public_jobs: true, request_access_enabled: false,
      only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true,
      lfs_enabled: true, tag_list: ['a', 'b'], forked_from_id: null, runners_token: randomBytes(10).toString('hex'), import_status: 'none', import_error: null,
      avatar_url: null, ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: NOW, updated_at: NOW, last_activity_at: NOW,
    });
    const { db } = database;
    const id = project.id;
    const build = () => db.selectFrom('projects').selectAll().where('id', '=', id).compile();
    const byId = preparedQuery(db, (projectId: number) => db.selectFrom('projects').selectAll().where('id', '=', projectId).compile());
    const text = build().sql;
    const statement = raw.prepare(text);
    const rows = Array.from({ length: (ROUNDS + 1) * OPERATIONS }, () => statement.get(id) as object);
    let next = 0;

    const figures = {
      kysely_read_us: await microsPerOperation(() => db.selectFrom('projects').selectAll().where('id', '=', id).execute()),
      prepared_query_read_us: await microsPerOperation(() => byId(id)),
      kysely_build_compile_us: await microsPerOperation(build),
      sqlite_prepare_us: await microsPerOperation(() => raw.prepare(text)),
      statement_run_autocommit_us: await microsPerOperation(() => statement.all(id)),
      statement_run_in_read_transaction_us: 0,
      row_to_record_us: await microsPerOperation(() => toProject(rows[next++]!)),
    };
    raw.prepare('begin').run();
    figures.statement_run_in_read_transaction_us = await microsPerOperation(() => statement.all(id));
    raw.prepare('commit').run();
    console.log(JSON.stringify(figures));
  } finally {
    raw.close();
    await database.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
