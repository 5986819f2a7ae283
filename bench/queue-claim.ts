/**
 * Job queue claim latency with a crowded queue, printed as one JSON line: 10,000 pending
 * jobs in a big project and one in a small project, each claim timed alone (the claimed job
 * is put back afterwards, untimed, so every claim sees the same queue), next to a bare
 * `SELECT 1` round trip through the same handle.
 *  - project_runner: the small project's own runner (must not wade through the big project);
 *  - shared_fair: an instance runner while the big project already runs 50 jobs on instance
 *    runners, so fair usage picks the small project;
 *  - shared_oldest: an instance runner taking the big project's oldest job;
 *  - tag_miss: a runner that takes only tagged jobs; only the small project's job is tagged
 *    (the worst case: it looks past 10,000 jobs it cannot take).
 * SQLite file by default; PostgreSQL with GANTRY_BENCH_DATABASE_URL=postgres://.../postgres
 * (a scratch database is created and dropped). `--explain` prints the query plans to stderr.
 * Run: node --import tsx bench/queue-claim.ts [--explain]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CompiledQuery, sql } from '#deps/kysely';
import pg from 'pg';
import { openDatabase, type OpenedDatabase } from '../src/storage/sql/database.ts';
import { migrateToLatest } from '../src/storage/sql/migrate.ts';
import { claimStatement } from '../src/storage/sql/stores/ci-job-queue.ts';
import { createSqlStores, type SqlStores } from '../src/storage/sql/stores/index.ts';
import type { NewJob } from '../src/storage/types-ci-jobs.ts';
import type { RunnerRecord } from '../src/storage/types-runners.ts';
import type { ProjectRecord } from '../src/storage/types.ts';

const BIG_QUEUE = 10_000;
const RUNS = 400;
const WARMUP = 30;
const NOW = new Date().toISOString();

async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.GANTRY_BENCH_DATABASE_URL;
  if (!adminUrl) {
    const directory = await mkdtemp(path.join(tmpdir(), 'gantry-bench-queue-'));
    return { url: path.join(directory, 'gantry.sqlite3'), drop: () => rm(directory, { recursive: true, force: true }) };
  }
  const name = `gantry_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function project(stores: SqlStores, namespaceId: number, name: string): Promise<ProjectRecord> {
  return stores.projects.create({
    namespace_id: namespaceId, creator_id: 1, name, path: name, description: '', default_branch: 'main', visibility: 'private', archived: false,
    issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true, container_registry_enabled: false,
    resolve_outdated_diff_discussions: false, shared_runners_enabled: true, public_jobs: true, request_access_enabled: false,
    only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true,
    lfs_enabled: true, tag_list: [], forked_from_id: null, runners_token: randomBytes(10).toString('hex'), import_status: 'none', import_error: null,
    avatar_url: null, ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: NOW, updated_at: NOW, last_activity_at: NOW,
  });
}

async function pendingJobs(stores: SqlStores, target: ProjectRecord, count: number, fields: Partial<NewJob> = {}): Promise<void> {
  const pipeline = await stores.pipelines.create({ project_id: target.id, ref: 'main', sha: 'a'.repeat(40), source: 'push', status: 'pending', created_at: NOW });
  const jobs: NewJob[] = Array.from({ length: count }, (_, index) => ({
    pipeline_id: pipeline.id, project_id: target.id, stage: 'test', stage_idx: 1, name: `job ${index}`, type: 'build', status: 'pending',
    when: 'on_success', allow_failure: false, ref: 'main', sha: pipeline.sha, created_at: NOW, ...fields,
  }));
  await stores.ciTransactions.run((ci) => ci.jobs.insertMany(jobs).then(() => undefined));
}

const percentile = (sorted: number[], fraction: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] * 1000) / 1000;

async function time(operation: () => Promise<void>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let run = 0; run < RUNS + WARMUP; run++) {
    const started = performance.now();
    await operation();
    if (run >= WARMUP) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** Times claims by `runner`, each checked to take `expectProject`'s job and put back untimed. */
async function claims(database: OpenedDatabase, stores: SqlStores, runner: RunnerRecord, expectProject: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let run = 0; run < RUNS + WARMUP; run++) {
    const started = performance.now();
    const job = (await stores.jobQueue.claim(runner, { now: NOW, tokenDigest: randomBytes(32).toString('hex') }))?.job;
    const elapsed = performance.now() - started;
    if (job?.project_id !== expectProject) throw new Error(`runner ${runner.id} took ${job ? `job ${job.id} of project ${job.project_id}` : 'nothing'}`);
    await database.db.updateTable('ci_jobs').set({ status: 'pending', runner_id: null, runner_type: null, token_digest: null, started_at: null }).where('id', '=', job.id).execute();
    if (run >= WARMUP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function explain(database: OpenedDatabase, runner: RunnerRecord, label: string): Promise<void> {
  const statement = claimStatement(runner, { now: NOW, tokenDigest: 'explain' }, database.dialect).compile(database.db);
  await database.db.transaction().execute(async (trx) => {
    const prefix = database.dialect === 'postgres' ? 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ' : 'EXPLAIN QUERY PLAN ';
    const plan = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(`${prefix}${statement.sql}`, [...statement.parameters]));
    process.stderr.write(`--- ${label}\n`);
    for (const row of plan.rows) process.stderr.write(`${Object.values(row).at(-1)}\n`);
    throw new RollBack();
  }).catch((error: unknown) => {
    if (!(error instanceof RollBack)) throw error;
  });
}

class RollBack extends Error {}

async function main(): Promise<void> {
  const scratch = await scratchDatabase();
  const database = openDatabase(scratch.url);
  try {
    await migrateToLatest(database.db, database.dialect);
    const stores = createSqlStores(database.db);
    const group = await stores.namespaces.create({
      kind: 'group', name: 'bench', path: 'bench', full_path: 'bench', full_name: 'bench', parent_id: null, owner_id: null, description: '',
      visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null, created_at: NOW, updated_at: NOW,
    });
    const big = await project(stores, group.id, 'big');
    const small = await project(stores, group.id, 'small');
    await pendingJobs(stores, big, BIG_QUEUE);
    await pendingJobs(stores, small, 1, { tag_list: ['docker'] });
    const runner = (fields: Partial<RunnerRecord> & Pick<RunnerRecord, 'runner_type'>, projectIds?: number[]) =>
      stores.runners.create({ created_at: NOW, ...fields }, randomBytes(16).toString('hex'), { projectIds });
    const projectRunner = await runner({ runner_type: 'project_type', tag_list: ['docker'] }, [small.id]);
    const shared = await runner({ runner_type: 'instance_type', tag_list: ['docker'] });
    const taggedOnly = await runner({ runner_type: 'instance_type', tag_list: ['docker'], run_untagged: false });
    if (database.dialect === 'postgres') await sql`ANALYZE`.execute(database.db);

    const select1 = await time(async () => {
      await sql`SELECT 1`.execute(database.db);
    });
    const projectRunnerTimes = await claims(database, stores, projectRunner, small.id);
    const tagMiss = await claims(database, stores, taggedOnly, small.id);
    const oldest = await claims(database, stores, shared, big.id);
    // The big project now runs 50 jobs on instance runners: fair usage serves the small one first.
    await pendingJobs(stores, big, 50, { status: 'running', runner_id: shared.id, runner_type: 'instance_type' });
    const fair = await claims(database, stores, shared, small.id);

    if (process.argv.includes('--explain')) {
      await explain(database, projectRunner, 'project runner');
      await explain(database, shared, 'instance runner, fair usage');
      await explain(database, taggedOnly, 'tagged-only runner');
    }
    console.log(
      JSON.stringify({
        bench: 'queue-claim',
        dialect: database.dialect,
        pending_in_big_project: BIG_QUEUE,
        runs: RUNS,
        select1_p50_ms: select1.p50,
        select1_p99_ms: select1.p99,
        claim_project_runner_p50_ms: projectRunnerTimes.p50,
        claim_project_runner_p99_ms: projectRunnerTimes.p99,
        claim_shared_fair_p50_ms: fair.p50,
        claim_shared_fair_p99_ms: fair.p99,
        claim_shared_oldest_p50_ms: oldest.p50,
        claim_shared_oldest_p99_ms: oldest.p99,
        claim_tag_miss_p50_ms: tagMiss.p50,
        claim_tag_miss_p99_ms: tagMiss.p99,
      }),
    );
  } finally {
    await database.close();
    await scratch.drop();
  }
}

await main();
