import path from 'node:path';
import { probeDirectory } from '../storage/fs/directory-probe.ts';
import { checkGit } from '../storage/git/health.ts';
import type { MonitoringStore } from '../storage/types-monitoring.ts';
import type { CoordinatorContext } from './context.ts';
import type { MonitoringAllowList } from './http/monitoring/allow-list.ts';
import { CoordinatorMetrics } from './http/monitoring/metrics.ts';
import type { MonitoringRoutes } from './http/monitoring/routes.ts';
import { CountingArtifactStore, CountingTraceStore } from './services/monitoring/blob-counters.ts';
import { HealthChecks } from './services/monitoring/health-checks.ts';
import { MonitoringReader } from './services/monitoring/readings.ts';
import { dataDirectoryCheck, databaseCheck, gitCheck, instanceCheck } from './services/monitoring/service-checks.ts';
import type { CiBlobStores, CiServices } from './wiring-ci.ts';

export interface Monitoring {
  metrics: CoordinatorMetrics;
  routes: MonitoringRoutes;
  /** The CI trace and artifact stores, counting the bytes they take in. */
  countBlobs(blobs: CiBlobStores): CiBlobStores;
  /** Tells the metrics about the CI services once they exist (their long polls). */
  attachCi(ci: Pick<CiServices, 'jobQueueWakeups'>): void;
}

/**
 * Health checks and metrics. Readiness checks this coordinator's heartbeat (where GitLab checks
 * its Puma master); `?all=1` adds the database, the data directory and git.
 */
export function buildMonitoring(context: CoordinatorContext, store: MonitoringStore, allowList: MonitoringAllowList): Monitoring {
  let jobRequestWaiters: () => number = () => 0;
  const reader = new MonitoringReader({ store, tasks: context.stores.tasks, jobRequestWaiters: () => jobRequestWaiters() });
  const metrics = new CoordinatorMetrics(reader, context.logger);
  const health = new HealthChecks({
    instance: [instanceCheck(context.instance)],
    services: [
      databaseCheck(store),
      dataDirectoryCheck(context.config.dataDir, probeDirectory),
      gitCheck(path.join(context.config.dataDir, 'repositories'), checkGit),
    ],
  });
  return {
    metrics,
    routes: { allowList, health, metrics, metricsEnabled: async () => (await context.settings.values()).prometheus_metrics_enabled !== false },
    countBlobs: (blobs) => ({ traces: new CountingTraceStore(blobs.traces, metrics), artifactFiles: new CountingArtifactStore(blobs.artifactFiles, metrics) }),
    attachCi(ci) {
      jobRequestWaiters = () => ci.jobQueueWakeups.waiting();
    },
  };
}
