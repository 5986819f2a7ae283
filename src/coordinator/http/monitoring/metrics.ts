/**
 * The coordinator's Prometheus metrics (prom-client, on a registry of its own per coordinator:
 * never the global one, so a host process and the tests can run several).
 *
 * Requests are tallied by the `onResponse` hook with plain arithmetic on a record kept per
 * route (no label hashing per request: prom-client's labelled `inc` costs about five times
 * the tally, bench/metrics-hook.ts); the tallies, like the byte counts, become counters when
 * Prometheus scrapes. Gauges are read at scrape time, the database ones once per scrape.
 * prom-client itself (about 100 ms of CPU to load) is loaded by the first scrape, not at start.
 */
import type { Registry } from 'prom-client';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../../shared/logger.ts';
import { GANTRY_VERSION } from '../../../shared/version.ts';
import type { BlobObserver } from '../../services/monitoring/blob-counters.ts';
import type { MonitoringReader, MonitoringReadings } from '../../services/monitoring/readings.ts';

/** Requests and seconds answered, by status, of one method of one route. */
interface RouteTally {
  method: string;
  route: string;
  seconds: number;
  byStatus: Map<number, number>;
}

/** The route label of requests no route matched (404s of unknown paths). */
const UNMATCHED = 'unmatched';

/** The exposition format's content type (prom-client's `Registry.PROMETHEUS_CONTENT_TYPE`). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class CoordinatorMetrics implements BlobObserver {
  /** By the route's config object (one per registered route, for the life of the server). */
  private readonly tallies = new Map<object, RouteTally[]>();
  private readonly allTallies: RouteTally[] = [];
  private readonly bytes = { trace: 0, artifact: 0 };
  private readings: MonitoringReadings | undefined;
  private registry: Promise<Registry> | undefined;

  constructor(
    private readonly reader: Pick<MonitoringReader, 'read'>,
    private readonly logger: Logger,
  ) {}

  /** The registry and its metrics, built at the first scrape. */
  private async buildRegistry(): Promise<Registry> {
    const { collectDefaultMetrics, Counter, Gauge, Registry } = await import('prom-client');
    const registry = new Registry();
    const registers = [registry];
    const tallies = this.allTallies;
    const bytes = this.bytes;
    const current = (): MonitoringReadings | undefined => this.readings;
    new Gauge({
      name: 'gantry_version_info',
      help: 'The coordinator version (always 1).',
      labelNames: ['version'],
      registers,
      collect() {
        this.set({ version: GANTRY_VERSION }, 1);
      },
    });
    new Counter({
      name: 'http_requests_total',
      help: 'Requests answered, by method, route (the URL pattern, without a mount prefix) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      collect() {
        this.reset();
        for (const tally of tallies) {
          for (const [status, count] of tally.byStatus) this.inc({ method: tally.method, route: tally.route, status: String(status) }, count);
        }
      },
    });
    new Counter({
      name: 'gantry_http_request_seconds_total',
      help: 'Seconds spent answering requests, by method and route (divided by the requests, the mean time per request).',
      labelNames: ['method', 'route'],
      registers,
      collect() {
        this.reset();
        for (const tally of tallies) this.inc({ method: tally.method, route: tally.route }, tally.seconds);
      },
    });
    new Gauge({
      name: 'gantry_ci_jobs',
      help: 'CI builds pending (the runner queue\'s depth), running, and waiting for their resource group, on every coordinator of the database.',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        const readings = current();
        if (!readings) return;
        this.set({ status: 'pending' }, readings.jobs.pending);
        this.set({ status: 'running' }, readings.jobs.running);
        this.set({ status: 'waiting_for_resource' }, readings.jobs.waitingForResource);
      },
    });
    new Gauge({
      name: 'gantry_ci_job_queue_oldest_seconds',
      help: 'How long the oldest pending build has waited in the runner queue (0 when it is empty).',
      registers,
      collect() {
        this.reset();
        const readings = current();
        if (readings) this.set(readings.jobs.oldestPendingSeconds);
      },
    });
    new Gauge({
      name: 'gantry_ci_runners',
      help: 'Runners by type and status: online (in touch within 2 hours), offline, paused, not_connected (never).',
      labelNames: ['runner_type', 'status'],
      registers,
      collect() {
        this.reset();
        for (const entry of current()?.runners ?? []) this.set({ runner_type: entry.runnerType, status: entry.status }, entry.count);
      },
    });
    new Gauge({
      name: 'gantry_ci_job_request_waiters',
      help: 'Job requests (POST /jobs/request) this coordinator holds open, waiting for a job (long polling).',
      registers,
      collect() {
        this.reset();
        const readings = current();
        if (readings) this.set(readings.jobRequestWaiters);
      },
    });
    new Gauge({
      name: 'gantry_tasks',
      help: 'Tasks of the durable queue by kind and state: ready (due, waiting for a worker), scheduled (due later), running, dead (out of attempts).',
      labelNames: ['kind', 'state'],
      registers,
      collect() {
        this.reset();
        for (const kind of current()?.tasks ?? []) {
          for (const state of ['ready', 'scheduled', 'running', 'dead'] as const) this.set({ kind: kind.kind, state }, kind[state]);
        }
      },
    });
    new Gauge({
      name: 'gantry_tasks_retrying',
      help: 'Pending or running tasks that failed at least once, by kind.',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const kind of current()?.tasks ?? []) this.set({ kind: kind.kind }, kind.retrying);
      },
    });
    new Gauge({
      name: 'gantry_task_queue_oldest_ready_seconds',
      help: 'How long the oldest due task of each kind has waited for a worker.',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const kind of current()?.tasks ?? []) this.set({ kind: kind.kind }, kind.oldestReadySeconds);
      },
    });
    new Counter({
      name: 'gantry_ci_trace_bytes_total',
      help: 'Job log bytes this coordinator accepted from runners.',
      registers,
      collect() {
        this.reset();
        this.inc(bytes.trace);
      },
    });
    new Counter({
      name: 'gantry_ci_artifact_bytes_total',
      help: 'Artifact file bytes this coordinator stored from runners.',
      registers,
      collect() {
        this.reset();
        this.inc(bytes.artifact);
      },
    });
    // Process metrics (CPU, memory, event loop lag, GC) start here, so a coordinator nobody
    // scrapes runs no event-loop monitor.
    collectDefaultMetrics({ register: registry });
    return registry;
  }

  /** The `onResponse` hook's work: one request answered. */
  recordResponse(request: FastifyRequest, reply: FastifyReply): void {
    const options = request.routeOptions;
    const config: object = options.config;
    let tallies = this.tallies.get(config);
    if (!tallies) {
      tallies = [];
      this.tallies.set(config, tallies);
    }
    let tally = tallies.find((entry) => entry.method === request.method);
    if (!tally) {
      tally = { method: request.method, route: routeLabel(options.url, request.coordinatorPrefix), seconds: 0, byStatus: new Map() };
      tallies.push(tally);
      this.allTallies.push(tally);
    }
    const status = reply.statusCode;
    tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
    tally.seconds += reply.elapsedTime / 1000;
  }

  traceBytesAppended(bytes: number): void {
    this.bytes.trace += bytes;
  }

  artifactBytesStored(bytes: number): void {
    this.bytes.artifact += bytes;
  }

  /**
   * The Prometheus text (PROMETHEUS_CONTENT_TYPE). The database is read once; when it does not
   * answer, its gauges are left out (a warning is logged) and the rest is still served.
   */
  async render(): Promise<string> {
    this.registry ??= this.buildRegistry();
    const registry = await this.registry;
    try {
      this.readings = await this.reader.read();
    } catch (error) {
      this.readings = undefined;
      this.logger.warn({ err: error }, 'metrics: the database readings failed; their gauges are left out');
    }
    return registry.metrics();
  }
}

/** `/api/v4/projects/:id` for a route registered as `/ci/api/v4/projects/:id` under the prefix `/ci`. */
function routeLabel(url: string | undefined, prefix: string | undefined): string {
  if (url === undefined || url === '') return UNMATCHED;
  return prefix && url.startsWith(prefix) ? url.slice(prefix.length) || '/' : url;
}
