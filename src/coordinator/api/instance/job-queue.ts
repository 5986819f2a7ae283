import type { FastifyPluginAsync } from 'fastify';
import { requireActor } from '../../http/auth.ts';
import { serializeCompoundMetrics, serializeJobStats, serializeProcessMetrics, serializeQueueMetrics } from '../../http/serializers/instance/job-queue.ts';
import type { JobQueueReading } from '../../services/monitoring/job-queue.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const METRICS: ReadonlyArray<[path: string, summary: string, shape: (reading: JobQueueReading) => unknown]> = [
  ['queue_metrics', "Each task kind's backlog and latency (administrators)", serializeQueueMetrics],
  ['process_metrics', 'The coordinators working the task queue (administrators)', serializeProcessMetrics],
  ['job_stats', 'Tasks processed, failed, enqueued and dead (administrators)', serializeJobStats],
  ['compound_metrics', 'Queues, processes and jobs together (administrators)', serializeCompoundMetrics],
];

/**
 * The background-job metrics of the durable task queue at `/jobqueue/*`, and at `/sidekiq/*`,
 * where GitLab's clients call them.
 */
export function jobQueueRoutes({ jobQueueMetrics }: CoordinatorServices, _edge: EdgeConfig): FastifyPluginAsync {
  return async (api) => {
    for (const prefix of ['jobqueue', 'sidekiq']) {
      for (const [path, summary, shape] of METRICS) {
        api.get(`/${prefix}/${path}`, { schema: { summary, tags: ['jobqueue'] } }, async (request) => shape(await jobQueueMetrics.read(requireActor(request))));
      }
    }
  };
}
