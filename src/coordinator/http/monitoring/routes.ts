/**
 * GitLab's monitoring endpoints, at the coordinator's root (under a host's prefix when
 * mounted): `/-/health`, `/-/liveness`, `/-/readiness` (`?all=1`) and `/-/metrics`. Only
 * callers in the monitoring allow-list get them; anyone else gets what a path that does not
 * exist answers (GitLab renders its 404 page; `/-/health` answers an empty `text/plain` 404, as
 * GitLab's BasicHealthCheck middleware does). They pass no sign-in and no throttle.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GantryError } from '../../../shared/errors.ts';
import type { CheckResult, HealthChecks, ProbeReport } from '../../services/monitoring/health-checks.ts';
import type { MonitoringAllowList } from './allow-list.ts';
import { PROMETHEUS_CONTENT_TYPE, type CoordinatorMetrics } from './metrics.ts';

export interface MonitoringRoutes {
  allowList: MonitoringAllowList;
  health: HealthChecks;
  metrics: CoordinatorMetrics;
  /** The application setting `prometheus_metrics_enabled`. */
  metricsEnabled: () => Promise<boolean>;
}

/** GitLab's text while `prometheus_metrics_enabled` is off (its help link becomes the setting's name). */
const METRICS_DISABLED = '# Metrics are disabled, see: the application setting prometheus_metrics_enabled\n';

export function registerMonitoringRoutes(instance: FastifyInstance, routes: MonitoringRoutes): void {
  const refuseOutsiders = async (request: FastifyRequest): Promise<void> => {
    if (!routes.allowList.allows(request)) throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND');
  };

  instance.get('/-/health', { schema: { hide: true } }, async (request, reply) => {
    if (!routes.allowList.allows(request)) return reply.code(404).type('text/plain').send('');
    return reply.type('text/plain').send('GitLab OK');
  });

  instance.get('/-/liveness', { schema: { hide: true }, onRequest: refuseOutsiders }, async (_request, reply) => sendProbe(reply, await routes.health.liveness()));

  instance.get<{ Querystring: { all?: unknown } }>('/-/readiness', { schema: { hide: true }, onRequest: refuseOutsiders }, async (request, reply) => {
    // Rails' `params[:all]`: any value turns it on, `all=0` included.
    const all = typeof request.query.all === 'string';
    return sendProbe(reply, await routes.health.readiness(all));
  });

  instance.get('/-/metrics', { schema: { hide: true }, onRequest: refuseOutsiders }, async (_request, reply) => {
    const text = (await routes.metricsEnabled()) ? await routes.metrics.render() : METRICS_DISABLED;
    return reply.type(PROMETHEUS_CONTENT_TYPE).send(text);
  });
}

/** GitLab's probe answer: 200 `{"status":"ok", <check>: [results]}`, or 503 with `"failed"`. */
function sendProbe(reply: FastifyReply, report: ProbeReport): FastifyReply {
  const body: Record<string, unknown> = { status: report.success ? 'ok' : 'failed' };
  for (const { name, results } of report.results) body[name] = results.map(payload);
  // GitLab asks Workhorse not to swap the answer for its error page: the prober reads this body.
  if (!report.success) void reply.header('x-gitlab-custom-error', '1');
  return reply.code(report.success ? 200 : 503).send(body);
}

function payload(result: CheckResult): Record<string, unknown> {
  return {
    status: result.success ? 'ok' : 'failed',
    ...(result.message === undefined ? {} : { message: result.message }),
    ...(result.labels === undefined ? {} : { labels: result.labels }),
  };
}
