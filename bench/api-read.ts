/**
 * API read figures on SQLite, printed as one JSON line. The load comes from separate
 * processes (bench/support/load.ts, autocannon), never from the server's own event loop.
 *  1. `GET /api/v4/projects/:id` by a developer of a private project in a private group, at 50
 *     connections, next to a bare fastify route answering JSON of the same size, measured in
 *     the same run: with the read cache off, and with it on while another client performs 200
 *     unrelated writes per second (edits of another project). The figure that matters is the
 *     server's CPU time per request (the wall-time ratios drift with the machine's load).
 *  2. The SQL statements one such request runs, uncached.
 *  3. `GET /api/v4/projects?per_page=100` over 10,000 projects: p50 and p95 for the
 *     administrator and for a member of a few groups (target: p50 under 30 ms).
 * After a warm-up (not counted: 2 seconds of each read load, and the cached load for
 * BENCH_WRITE_WARMUP seconds, default 10, under the writes, whose code V8 optimises only after
 * about two thousand of them; its figures are printed as `*_warmup`), the three loads alternate over
 * BENCH_ROUNDS rounds (default 3), each round's ratios taken
 * against that round's bare figure; the line shows the medians and each round's ratios, and
 * the server process's CPU time per request of each load (for the cached one, the writes'
 * CPU spread over the reads).
 * Run: node --import tsx bench/api-read.ts [seconds]
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median, ratioTo } from './support/coordinator.ts';

const SECONDS = Number(process.argv[2] ?? 5);
/** Bare, uncached and cached loads alternate this many times; the figures are medians (this machine's speed drifts between loads). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** How long the cached load runs under the writes before the measured rounds (its figures are printed apart). */
const WRITE_WARMUP_SECONDS = Number(process.env.BENCH_WRITE_WARMUP ?? 10);
const CONNECTIONS = 50;
const WRITES_PER_SECOND = 200;
const PROJECTS = 10_000;
const ROOT_TOKEN = 'bench-root-token-0123456789';
const SUPPORT = path.join(import.meta.dirname, 'support');
const run = promisify(execFile);
let loadErrors = 0;

/**
 * Requests per second (and latency) of `url` under load from another process, and this
 * process's CPU time per request meanwhile (the servers run here; the figure the load
 * generator's speed does not cap).
 */
async function load(url: string, headers: Record<string, string>, seconds = SECONDS): Promise<{ rps: number; p99_ms: number; cpuMicros: number }> {
  const args = ['--import', 'tsx', path.join(SUPPORT, 'load.ts'), url, String(seconds), String(CONNECTIONS), ...Object.entries(headers).map(([key, value]) => `${key}=${value}`)];
  const before = process.cpuUsage();
  const { stdout } = await run(process.execPath, args);
  const cpu = process.cpuUsage(before);
  const result = JSON.parse(stdout) as { rps: number; p99_ms: number; non2xx: number; errors: number };
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  // Requests the load generator gave up on (a busy machine): counted, not fatal.
  loadErrors += result.errors;
  return { ...result, cpuMicros: Math.round((cpu.user + cpu.system) / (result.rps * seconds)) };
}

/** Runs `measure` while another process writes `WRITES_PER_SECOND` times a second to `url`. */
async function whileWriting<T>(url: string, token: string, measure: () => Promise<T>): Promise<{ result: T; writesPerSecond: number }> {
  const writer = spawn(process.execPath, ['--import', 'tsx', path.join(SUPPORT, 'writer.ts'), url, String(WRITES_PER_SECOND), token], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  writer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => writer.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  let result: T;
  try {
    result = await measure();
  } finally {
    writer.kill('SIGTERM');
    await exited;
  }
  const { per_second: writesPerSecond } = JSON.parse(output) as { per_second: number };
  return { result, writesPerSecond };
}

async function timings(url: string, headers: Record<string, string>, runs = 50): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let run = 0; run < runs + 5; run += 1) {
    const started = performance.now();
    // A pooled connection the server closed while idle (the load phases take minutes) resets once; ask again.
    const response = await fetch(url, { headers }).catch(() => fetch(url, { headers }));
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    await response.arrayBuffer();
    if (run >= 5) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (fraction: number) => Math.round(times[Math.min(times.length - 1, Math.floor(times.length * fraction))]! * 100) / 100;
  return { p50: at(0.5), p95: at(0.95) };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-api-'));
  // SQLite serves one coordinator process per database: the uncached coordinator gets a database of its own.
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'cached'), rootToken: ROOT_TOKEN, logger: silentLogger() });
  const figures: Record<string, number | string> = {};
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (coordinator.app.server.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}/api/v4`;
    const setup = await developerOfPrivateProject(base);
    const body = JSON.stringify(await (await fetch(`${base}/projects/${setup.projectId}`, { headers: { 'private-token': setup.token } })).json());

    const bare = Fastify();
    bare.get('/bare', async (_request, reply) => reply.type('application/json').send(body));
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`;
    const asDeveloper = { 'private-token': setup.token };
    const cachedUrl = `${base}/projects/${setup.projectId}`;
    const uncachedWork = path.join(work, 'uncached');
    const uncachedSetup = await statementsOfOneRequest(uncachedWork);
    figures.project_uncached_statements = uncachedSetup.statements;
    const uncachedRoute = `/api/v4/projects/${uncachedSetup.projectId}`;
    const asUncachedDeveloper = { 'private-token': uncachedSetup.token };
    const uncached = await uncachedCoordinator(uncachedWork);
    const rounds: Array<{ bare: number; uncached: number; cached: number; writes: number; bareCpu: number; uncachedCpu: number; cachedCpu: number }> = [];
    try {
      // Warm-up, not counted: the first load of a fresh process runs before its code is optimised.
      await load(bareUrl, {}, 2);
      await load(`${uncached.origin}${uncachedRoute}`, asUncachedDeveloper, 2);
      // The cached load warms up under the writes: at 200 a second V8 takes about ten seconds
      // to optimise the write path (measured: 102 us of server CPU per read in the first 4 s of
      // writes, 78-86 us from the tenth second on), and a server runs far longer than that.
      const warmup = await whileWriting(`${base}/projects/${setup.otherProjectId}`, ROOT_TOKEN, () => load(cachedUrl, asDeveloper, WRITE_WARMUP_SECONDS));
      figures.writes_warmup_s = WRITE_WARMUP_SECONDS;
      figures.project_cached_under_writes_warmup_rps = warmup.result.rps;
      figures.server_cpu_us_per_read_cached_writes_included_warmup = warmup.result.cpuMicros;
      for (let round = 0; round < ROUNDS; round += 1) {
        const bareLoad = await load(bareUrl, {});
        const uncachedLoad = await load(`${uncached.origin}${uncachedRoute}`, asUncachedDeveloper);
        const cached = await whileWriting(`${base}/projects/${setup.otherProjectId}`, ROOT_TOKEN, () => load(cachedUrl, asDeveloper));
        rounds.push({
          bare: bareLoad.rps, uncached: uncachedLoad.rps, cached: cached.result.rps, writes: cached.writesPerSecond,
          bareCpu: bareLoad.cpuMicros, uncachedCpu: uncachedLoad.cpuMicros, cachedCpu: cached.result.cpuMicros,
        });
      }
    } finally {
      await uncached.close();
      await bare.close();
    }
    figures.rounds = ROUNDS;
    figures.bare_rps = median(rounds.map((round) => round.bare));
    figures.project_uncached_rps = median(rounds.map((round) => round.uncached));
    figures.project_uncached_vs_bare = median(rounds.map((round) => ratioTo(round.bare, round.uncached)));
    figures.project_uncached_vs_bare_by_round = rounds.map((round) => ratioTo(round.bare, round.uncached)).join(' ');
    figures.project_cached_under_writes_rps = median(rounds.map((round) => round.cached));
    figures.project_cached_under_writes_vs_bare = median(rounds.map((round) => ratioTo(round.bare, round.cached)));
    figures.project_cached_under_writes_vs_bare_by_round = rounds.map((round) => ratioTo(round.bare, round.cached)).join(' ');
    figures.unrelated_writes_per_second = median(rounds.map((round) => round.writes));
    figures.server_cpu_us_per_request_bare = median(rounds.map((round) => round.bareCpu));
    figures.server_cpu_us_per_request_uncached = median(rounds.map((round) => round.uncachedCpu));
    figures.server_cpu_us_per_read_cached_writes_included = median(rounds.map((round) => round.cachedCpu));
    // Each round's bare/uncached/cached CPU: the bare route's moves with the machine's load, so it says how far the others did.
    figures.server_cpu_us_by_round = rounds.map((round) => `${round.bareCpu}/${round.uncachedCpu}/${round.cachedCpu}`).join(' ');

    const member = await seedProjects(coordinator.context, setup.namespace);
    figures.projects = PROJECTS;
    const auth = { 'private-token': ROOT_TOKEN };
    const admin = await timings(`${base}/projects?per_page=100`, auth);
    figures.list_admin_p50_ms = admin.p50;
    figures.list_admin_p95_ms = admin.p95;
    const asMember = await timings(`${base}/projects?per_page=100`, { 'private-token': member });
    figures.list_member_p50_ms = asMember.p50;
    figures.list_member_p95_ms = asMember.p95;
    const anonymous = await timings(`${base}/projects?per_page=100&page=5`, {});
    figures.list_anonymous_page5_p50_ms = anonymous.p50;
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
  figures.load_errors = loadErrors;
  console.log(JSON.stringify(figures));
}

/** A private group with a private project, a developer of the group, and another project to write to. */
async function developerOfPrivateProject(base: string) {
  const call = async (method: string, url: string, body?: unknown, token = ROOT_TOKEN) => {
    const response = await fetch(`${base}${url}`, { method, headers: { 'private-token': token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown> & { id: number };
  };
  const user = await call('POST', '/users', { username: 'dev', name: 'Dev', email: 'dev@example.com', password: 'secret-password-1', skip_confirmation: true });
  const token = (await call('POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] })).token as string;
  const group = await call('POST', '/groups', { name: 'acme', path: 'acme', visibility: 'private' });
  await call('POST', `/groups/${group.id}/members`, { user_id: user.id, access_level: 30 });
  const project = await call('POST', '/projects', { name: 'tool', namespace_id: group.id, initialize_with_readme: true });
  const other = await call('POST', '/projects', { name: 'elsewhere' });
  return { token, projectId: project.id, otherProjectId: other.id, namespace: other.namespace as { id: number } };
}

/** A coordinator with its read cache off, over a database of its own (set up by statementsOfOneRequest). */
async function uncachedCoordinator(dataDir: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const uncached = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger: silentLogger(), cacheReads: false });
  await uncached.app.listen({ port: 0, host: '127.0.0.1' });
  return { origin: `http://127.0.0.1:${(uncached.app.server.address() as AddressInfo).port}`, close: () => uncached.close() };
}

/**
 * Sets up the developer and project of developerOfPrivateProject in `dataDir`, and counts the
 * SQL statements one uncached request for the project runs (after a first request warmed
 * everything up). The counting coordinator closes before the measured one opens.
 */
async function statementsOfOneRequest(dataDir: string): Promise<{ statements: number; token: string; projectId: number }> {
  let statements: number | undefined;
  const counting = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger: silentLogger(), cacheReads: false, onStatement: () => {
    if (statements !== undefined) statements += 1;
  } });
  try {
    await counting.app.listen({ port: 0, host: '127.0.0.1' });
    const setup = await developerOfPrivateProject(`http://127.0.0.1:${(counting.app.server.address() as AddressInfo).port}/api/v4`);
    const route = `/api/v4/projects/${setup.projectId}`;
    const ask = async () => {
      const response = await counting.app.inject({ method: 'GET', url: route, headers: { 'private-token': setup.token } });
      if (response.statusCode !== 200) throw new Error(`${route}: ${response.statusCode}`);
    };
    await ask();
    statements = 0;
    await ask();
    return { statements, token: setup.token, projectId: setup.projectId };
  } finally {
    await counting.close();
  }
}

type Context = Awaited<ReturnType<typeof createCoordinator>>['context'];

/** 10,000 projects in 20 groups (rows only: repositories play no part in listings); a member of 3 groups. */
async function seedProjects(context: Context, rootNamespace: { id: number }): Promise<string> {
  const user = await context.accounts.createUser({ username: 'reader', name: 'Reader', email: 'reader@example.com', projects_limit: 10, is_admin: false, can_create_group: true, external: false });
  const token = await context.accounts.issueToken(user.id, 'bench');
  const now = new Date().toISOString();
  const groups: number[] = [];
  for (let index = 0; index < 20; index += 1) {
    const group = await context.stores.namespaces.create({
      kind: 'group', name: `Group ${index}`, path: `group-${index}`, full_path: `group-${index}`, full_name: `Group ${index}`, parent_id: null,
      owner_id: null, description: '', visibility: index % 2 === 0 ? 'private' : 'internal', lfs_enabled: true, request_access_enabled: false,
      avatar_url: null, created_at: now, updated_at: now,
    });
    groups.push(group.id);
    if (index < 3) await context.stores.members.add({ source_type: 'namespace', source_id: group.id, user_id: user.id, access_level: 30, notification_level: 3, expires_at: null, created_by_id: 1, created_at: now, updated_at: now });
  }
  await context.db.transaction().execute(async (transaction) => {
    for (let index = 0; index < PROJECTS; index += 1) {
      const visibility = (['private', 'internal', 'public'] as const)[index % 3]!;
      const stamp = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
      await transaction
        .insertInto('projects')
        .values({
          namespace_id: index === 0 ? rootNamespace.id : groups[index % groups.length]!, creator_id: 1, name: `Project ${index}`, path: `project-${index}`,
          description: 'generated', visibility, runners_token: `bench-token-${index}`, tag_list: '[]', created_at: stamp, updated_at: stamp, last_activity_at: stamp,
        } as never)
        .execute();
    }
  });
  return token;
}

await main();
