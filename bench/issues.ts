/**
 * Issue list and create figures, printed as one JSON line. One coordinator serves a project
 * of 10,000 issues, 20 labels (`a`..`t`; `a` on 30% of the issues, `b` on 25%, each other on
 * 10%) and 5 milestones, seeded through the issue store in one transaction (not measured).
 * The clients run in their own processes (bench/support), so this process's CPU time is the
 * server's:
 *  1. `GET /projects/:id/issues?labels=a,b&state=opened&per_page=100` by a Developer,
 *     sequential requests after a warm-up: p50, p99 and the server's CPU time per request,
 *     next to `GET /projects/:id/repository/branches` on the same coordinator (the bare
 *     baseline), measured the same way and alternated with it over BENCH_ROUNDS rounds
 *     (default 3; the figures are medians of the rounds).
 *  2. The SQL statements one list request runs at per_page=20 and per_page=100 (must be equal).
 *  3. The create rate of 20 concurrent creators (`POST /projects/:id/issues`), iids checked.
 * Targets: list p50 under 30 ms, p99 under 100 ms.
 * SQLite by default; `--postgres` uses a scratch database on the PostgreSQL server of
 * GANTRY_BENCH_DATABASE_URL or GANTRY_TEST_DATABASE_URL (scripts/with-postgres.sh sets the latter).
 * Run: node --import tsx bench/issues.ts [--postgres] [samples per round, default 200]
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { sql } from '#deps/kysely';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { SqlIssuesStore } from '../src/storage/sql/stores/issues.ts';
import { median } from './support/coordinator.ts';

const POSTGRES = process.argv.includes('--postgres');
const SAMPLES = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP = 50;
const ISSUES = 10_000;
const LABELS = 'abcdefghijklmnopqrst'.split('');
const MILESTONES = 5;
const CREATORS = 20;
const CREATES = 1_000;
const ROOT_TOKEN = 'bench-root-token-0123456789';
const SUPPORT = path.join(import.meta.dirname, 'support');
const run = promisify(execFile);

type Coordinator = Awaited<ReturnType<typeof createCoordinator>>;

/** A scratch PostgreSQL database (created here, dropped at the end), or undefined for SQLite. */
async function scratchPostgres(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (!POSTGRES) return undefined;
  const adminUrl = process.env.GANTRY_BENCH_DATABASE_URL ?? process.env.GANTRY_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('--postgres needs GANTRY_BENCH_DATABASE_URL or GANTRY_TEST_DATABASE_URL (scripts/with-postgres.sh)');
  const name = `gantry_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The same pseudo-random sequence every run (the seeded data does not vary between runs). */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function call(base: string, method: string, url: string, body?: unknown, token = ROOT_TOKEN): Promise<Record<string, unknown> & { id: number }> {
  const response = await fetch(`${base}${url}`, { method, headers: { 'private-token': token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown> & { id: number };
}

/** A private project with a few branches, its labels and milestones, three Developers, and 10,000 issues. */
async function seed(coordinator: Coordinator, base: string): Promise<{ projectId: number; token: string }> {
  const users: number[] = [];
  for (const name of ['dev', 'ann', 'bob']) {
    const user = await call(base, 'POST', '/users', { username: name, name, email: `${name}@example.com`, password: 'secret-password-1', skip_confirmation: true });
    users.push(user.id);
  }
  const token = (await call(base, 'POST', `/users/${users[0]}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).token as string;
  const project = await call(base, 'POST', '/projects', { name: 'tracker', visibility: 'private', initialize_with_readme: true });
  for (const user of users) await call(base, 'POST', `/projects/${project.id}/members`, { user_id: user, access_level: 30 });
  for (let branch = 0; branch < 5; branch += 1) await call(base, 'POST', `/projects/${project.id}/repository/branches`, { branch: `feature-${branch}`, ref: 'main' });
  const labels: number[] = [];
  for (const [index, title] of LABELS.entries()) labels.push((await call(base, 'POST', `/projects/${project.id}/labels`, { name: title, color: `#${(index * 12).toString(16).padStart(2, '0')}6699` })).id);
  const milestones: number[] = [];
  for (let index = 0; index < MILESTONES; index += 1) milestones.push((await call(base, 'POST', `/projects/${project.id}/milestones`, { title: `v${index + 1}` })).id);

  const random = seededRandom(27);
  const chance = (title: string) => (title === 'a' ? 0.3 : title === 'b' ? 0.25 : 0.1);
  await coordinator.context.db.transaction().execute(async (trx) => {
    const store = new SqlIssuesStore(trx);
    for (let index = 0; index < ISSUES; index += 1) {
      const stamp = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
      const closed = random() < 1 / 3;
      await store.create(
        {
          project_id: project.id, author_id: users[index % users.length]!, title: `Issue ${index}`, description: `Generated issue ${index}.`,
          state: closed ? 'closed' : 'opened', confidential: false, discussion_locked: null,
          milestone_id: random() < 0.8 ? milestones[index % MILESTONES]! : null, due_date: null, time_estimate: 0, total_time_spent: 0,
          closed_at: closed ? stamp : null, closed_by_id: closed ? users[0]! : null, created_at: stamp, updated_at: stamp,
        },
        { labelIds: labels.filter((_, label) => random() < chance(LABELS[label]!)), assigneeIds: random() < 0.5 ? [users[index % users.length]!] : [] },
      );
    }
  });
  return { projectId: project.id, token };
}

/** Sequential GETs from another process; the server's CPU time per request meanwhile. */
async function sequential(url: string, token: string, count: number): Promise<{ p50_ms: number; p99_ms: number; cpu_us: number }> {
  const before = process.cpuUsage();
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(SUPPORT, 'sequential.ts'), url, String(count), `private-token=${token}`]);
  const cpu = process.cpuUsage(before);
  const result = JSON.parse(stdout) as { p50_ms: number; p99_ms: number; non200: number };
  if (result.non200 > 0) throw new Error(`${url}: ${result.non200} answers other than 200`);
  return { p50_ms: result.p50_ms, p99_ms: result.p99_ms, cpu_us: Math.round((cpu.user + cpu.system) / count) };
}

/** The fewest statements of three in-process requests (background work only ever adds some). */
async function statementsOf(coordinator: Coordinator, url: string, token: string, counter: { counting: boolean; statements: number }): Promise<{ statements: number; items: number }> {
  const runs: number[] = [];
  let items = 0;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    counter.statements = 0;
    counter.counting = true;
    const response = await coordinator.app.inject({ method: 'GET', url, headers: { 'private-token': token } });
    counter.counting = false;
    if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
    runs.push(counter.statements);
    items = (response.json() as unknown[]).length;
  }
  return { statements: Math.min(...runs), items };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-issues-'));
  const postgres = await scratchPostgres();
  const counter = { counting: false, statements: 0 };
  const figures: Record<string, number | string | boolean> = { database: postgres ? 'postgres' : 'sqlite' };
  const coordinator = await createCoordinator({
    dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger(), databaseUrl: postgres?.url,
    onStatement: () => { if (counter.counting) counter.statements += 1; },
  });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(coordinator.app.server.address() as AddressInfo).port}/api/v4`;
    const seedStarted = performance.now();
    const { projectId, token } = await seed(coordinator, base);
    figures.seed_s = Math.round((performance.now() - seedStarted) / 100) / 10;
    if (postgres) await sql`ANALYZE`.execute(coordinator.context.db);
    const listRoute = `/api/v4/projects/${projectId}/issues?labels=a,b&state=opened`;
    const listUrl = `${base}/projects/${projectId}/issues?labels=a,b&state=opened&per_page=100`;
    const branchesUrl = `${base}/projects/${projectId}/repository/branches`;
    const total = await fetch(listUrl, { headers: { 'private-token': token } });
    figures.issues = ISSUES;
    figures.list_matches = Number(total.headers.get('x-total'));
    figures.list_page_items = ((await total.json()) as unknown[]).length;

    // Warm-up, not counted: a fresh process's code runs unoptimised at first.
    await sequential(listUrl, token, WARMUP);
    await sequential(branchesUrl, token, WARMUP);
    const rounds: Array<{ list: Awaited<ReturnType<typeof sequential>>; branches: Awaited<ReturnType<typeof sequential>> }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      rounds.push({ list: await sequential(listUrl, token, SAMPLES), branches: await sequential(branchesUrl, token, SAMPLES) });
    }
    figures.samples = `${ROUNDS}x${SAMPLES}`;
    figures.list_p50_ms = median(rounds.map((round) => round.list.p50_ms));
    figures.list_p99_ms = median(rounds.map((round) => round.list.p99_ms));
    figures.list_cpu_us_per_request = median(rounds.map((round) => round.list.cpu_us));
    figures.branches_p50_ms = median(rounds.map((round) => round.branches.p50_ms));
    figures.branches_p99_ms = median(rounds.map((round) => round.branches.p99_ms));
    figures.branches_cpu_us_per_request = median(rounds.map((round) => round.branches.cpu_us));
    figures.by_round_list_p50_p99_cpu = rounds.map((round) => `${round.list.p50_ms}/${round.list.p99_ms}/${round.list.cpu_us}`).join(' ');
    figures.by_round_branches_p50_p99_cpu = rounds.map((round) => `${round.branches.p50_ms}/${round.branches.p99_ms}/${round.branches.cpu_us}`).join(' ');
    figures.list_target_met = figures.list_p50_ms < 30 && figures.list_p99_ms < 100;

    const small = await statementsOf(coordinator, `${listRoute}&per_page=20`, token, counter);
    const large = await statementsOf(coordinator, `${listRoute}&per_page=100`, token, counter);
    if (small.items !== 20 || large.items !== 100) throw new Error(`pages of ${small.items} and ${large.items} issues, not 20 and 100`);
    figures.statements_per_page_20 = small.statements;
    figures.statements_per_page_100 = large.statements;

    const before = process.cpuUsage();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(SUPPORT, 'creators.ts'), `${base}/projects/${projectId}/issues`, String(CREATORS), String(CREATES), token]);
    const cpu = process.cpuUsage(before);
    const created = JSON.parse(stdout) as { created: number; failed: number; per_second: number; iids_unique: boolean };
    figures.creators = CREATORS;
    figures.created = created.created;
    figures.create_failed = created.failed;
    figures.create_per_second = created.per_second;
    figures.create_cpu_us_per_request = Math.round((cpu.user + cpu.system) / CREATES);
    figures.create_iids_unique = created.iids_unique;
    figures.load_average_1m = Math.round(loadavg()[0]! * 100) / 100;
  } finally {
    await coordinator.close();
    await postgres?.drop();
    await rm(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify(figures));
}

await main();
