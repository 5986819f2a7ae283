import type { JobQueueReading } from '../../../services/monitoring/job-queue.ts';

export interface QueueMetricsJson {
  queues: Record<string, { backlog: number; latency: number }>;
}

export interface ProcessMetricsJson {
  processes: Array<{ hostname: string; pid: number; tag: string; started_at: string; queues: string[]; labels: string[]; concurrency: number; busy: number }>;
}

export interface JobStatsJson {
  jobs: { processed: number; failed: number; enqueued: number; dead: number };
}

/** GitLab's `/sidekiq/queue_metrics`: each queue's backlog and latency in seconds. */
export function serializeQueueMetrics(reading: JobQueueReading): QueueMetricsJson {
  return { queues: Object.fromEntries(reading.queues.map((queue) => [queue.name, { backlog: queue.backlog, latency: queue.latencySeconds }])) };
}

/** GitLab's `/sidekiq/process_metrics`; the tag names the coordinator instance. */
export function serializeProcessMetrics(reading: JobQueueReading): ProcessMetricsJson {
  return {
    processes: reading.processes.map((process) => ({
      hostname: process.hostname,
      pid: process.pid,
      tag: `gantry ${process.instanceId}`,
      started_at: process.startedAt,
      queues: process.queues,
      labels: [],
      concurrency: process.concurrency,
      busy: process.busy,
    })),
  };
}

export function serializeJobStats(reading: JobQueueReading): JobStatsJson {
  return { jobs: { ...reading.jobs } };
}

export function serializeCompoundMetrics(reading: JobQueueReading): QueueMetricsJson & ProcessMetricsJson & JobStatsJson {
  return { ...serializeQueueMetrics(reading), ...serializeProcessMetrics(reading), ...serializeJobStats(reading) };
}
