/**
 * API read figures on SQLite, printed as one JSON line:
 *  1. Authenticated `GET /api/v4/projects/:id` at 50 concurrent connections against a bare
 *     fastify route answering JSON of the same size, measured in the same run (target: at
 *     least 40 % of the bare requests per second). Printed twice: as served (answers kept
 *     by the read cache until the database changes) and with the read cache turned off.
 *  2. `GET /api/v4/projects?per_page=100` over 10,000 projects: p50 and p95 for the
 *     administrator and for a member of a few groups (target: p50 under 30 ms).
 * Run: node --import tsx bench/api-read.ts [seconds]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = 50;
const PROJECTS = 10_000;
const ROOT_TOKEN = 'bench-root-token-0123456789';

/** Keeps `CONNECTIONS` keep-alive requests in flight for `SECONDS`; returns requests per second. */
async function load(port: number, route: string, headers: Record<string, string>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const deadline = performance.now() + SECONDS * 1000;
  let completed = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get({ host: '127.0.0.1', port, path: route, headers, agent }, (response) => {
          if (response.statusCode !== 200) reject(new Error(`${route}: ${response.statusCode}`));
          response.resume();
          response.on('end', resolve);
        });
        request.on('error', reject);
      });
      completed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  return Math.round(completed / ((performance.now() - started) / 1000));
}

async function timings(url: string, headers: Record<string, string>, runs = 50): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let run = 0; run < runs + 5; run += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers });
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
  const coordinator = await createCoordinator({ dataDir: work, rootToken: ROOT_TOKEN, logger: silentLogger() });
  const figures: Record<string, number | string> = {};
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (coordinator.app.server.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}/api/v4`;
    const auth = { 'private-token': ROOT_TOKEN };
    const created = await fetch(`${base}/projects`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) });
    const project = (await created.json()) as Record<string, unknown>;
    const body = JSON.stringify(project);

    const bare = Fastify();
    bare.get('/bare', async (_request, reply) => reply.type('application/json').send(body));
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const barePort = (bare.server.address() as AddressInfo).port;
    figures.bare_rps = await load(barePort, '/bare', {});
    figures.project_rps = await load(port, `/api/v4/projects/${project.id}`, auth);
    figures.project_vs_bare = Math.round((figures.project_rps / figures.bare_rps) * 100) / 100;
    figures.project_uncached_rps = await loadUncached(work, project.id as number);
    figures.project_uncached_vs_bare = Math.round((figures.project_uncached_rps / figures.bare_rps) * 100) / 100;
    await bare.close();

    const member = await seedProjects(coordinator.context, project.namespace as { id: number });
    figures.projects = PROJECTS;
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
  console.log(JSON.stringify(figures));
}

/** The same request on a second coordinator over the same database with its read cache off. */
async function loadUncached(work: string, projectId: number): Promise<number> {
  const uncached = await createCoordinator({ dataDir: work, rootToken: ROOT_TOKEN, logger: silentLogger(), cacheReads: false });
  try {
    await uncached.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (uncached.app.server.address() as AddressInfo).port;
    return await load(port, `/api/v4/projects/${projectId}`, { 'private-token': ROOT_TOKEN });
  } finally {
    await uncached.close();
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
