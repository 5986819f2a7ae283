/**
 * What counting a request for /-/metrics costs, printed as one JSON line: the CPU time of the
 * coordinator's `onResponse` tally (CoordinatorMetrics.recordResponse, on a real request and
 * reply of a parametric route), next to what prom-client's own labelled counter would cost
 * for the same request (`inc` with method, route and status) and to the CPU time per request
 * of a bare fastify route and of `GET /api/v4/version` on a coordinator, all measured in this
 * run through `inject` (no sockets: the figure is the server's work alone). CPU time, not wall
 * time, so a loaded machine inflates the figures less.
 * Run: node --import tsx bench/metrics-hook.ts [iterations]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Counter, Registry } from 'prom-client';
import { createCoordinator } from '../src/coordinator/app.ts';
import { CoordinatorMetrics } from '../src/coordinator/http/monitoring/metrics.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median } from './support/coordinator.ts';

const ITERATIONS = Number(process.argv[2] ?? 2_000_000);
const REQUESTS = 20_000;
const ROUNDS = 5;

/** CPU nanoseconds per call of `work`, over `count` calls. */
function cpuNanosPerCall(count: number, work: () => void): number {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) work();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / count;
}

/** CPU microseconds per injected request, over `count` requests (after a warm-up). */
async function cpuMicrosPerRequest(inject: () => Promise<unknown>, count: number): Promise<number> {
  for (let index = 0; index < 2_000; index += 1) await inject();
  const before = process.cpuUsage();
  for (let index = 0; index < count; index += 1) await inject();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

async function main(): Promise<void> {
  // A real request and reply of a parametric route, caught after their response.
  const bare = Fastify();
  let caught: { request: FastifyRequest; reply: FastifyReply } | undefined;
  bare.decorateRequest('coordinatorPrefix', '');
  bare.addHook('onResponse', (request, reply, done) => {
    caught = { request, reply };
    done();
  });
  bare.get('/api/v4/projects/:id', async () => ({ id: 1 }));
  await bare.inject({ url: '/api/v4/projects/42' });
  const { request, reply } = caught!;

  const metrics = new CoordinatorMetrics({ read: async () => ({ jobs: { pending: 0, running: 0, waitingForResource: 0, oldestPendingSeconds: 0 }, runners: [], tasks: [], jobRequestWaiters: 0 }) }, silentLogger());
  const labelled = new Counter({ name: 'requests', help: 'requests', labelNames: ['method', 'route', 'status'], registers: [new Registry()] });
  const tally: number[] = [];
  const promClient: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    tally.push(cpuNanosPerCall(ITERATIONS, () => metrics.recordResponse(request, reply)));
    promClient.push(cpuNanosPerCall(ITERATIONS, () => labelled.inc({ method: request.method, route: request.routeOptions.url ?? '', status: String(reply.statusCode) })));
  }
  const counted = (await metrics.render()).match(/^http_requests_total\{[^}]*route="\/api\/v4\/projects\/:id"[^}]*\} (\d+)$/m);
  if (Number(counted?.[1]) !== ITERATIONS * ROUNDS) throw new Error(`the tally counted ${counted?.[1]} requests, not ${ITERATIONS * ROUNDS}`);

  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-metrics-'));
  const coordinator = await createCoordinator({ dataDir: work, databaseUrl: ':memory:', logger: silentLogger() });
  const bareRequests: number[] = [];
  const versionRequests: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      bareRequests.push(await cpuMicrosPerRequest(() => bare.inject({ url: '/api/v4/projects/42' }), REQUESTS));
      versionRequests.push(await cpuMicrosPerRequest(() => coordinator.app.inject({ url: '/api/v4/version' }), REQUESTS));
    }
  } finally {
    await coordinator.close();
    await bare.close();
    await rm(work, { recursive: true, force: true });
  }
  const round2 = (value: number) => Math.round(value * 100) / 100;
  const tallyNs = median(tally);
  const bareUs = median(bareRequests);
  console.log(JSON.stringify({
    rounds: ROUNDS,
    tally_ns_per_request: round2(tallyNs),
    prom_client_labelled_inc_ns_per_request: round2(median(promClient)),
    bare_fastify_inject_cpu_us_per_request: round2(bareUs),
    coordinator_version_inject_cpu_us_per_request: round2(median(versionRequests)),
    tally_percent_of_bare_request: round2((100 * tallyNs) / 1000 / bareUs),
  }));
}

await main();
