import type { JobId, PipelineJob } from './types.ts';

/** Delayed jobs (`when: delayed`) whose time has come at `now`: send each a `scheduled-time-reached`. */
export function dueScheduledJobIds(jobs: readonly PipelineJob[], now: number): JobId[] {
  return jobs
    .filter((job) => isScheduled(job) && (job.scheduledAt ?? Number.POSITIVE_INFINITY) <= now)
    .map((job) => job.id);
}

/** The earliest `scheduledAt` among scheduled jobs, for arming a timer; null when none. */
export function nextScheduledAt(jobs: readonly PipelineJob[]): number | null {
  let earliest: number | null = null;
  for (const job of jobs) {
    if (!isScheduled(job) || job.scheduledAt === null || job.scheduledAt === undefined) continue;
    if (earliest === null || job.scheduledAt < earliest) earliest = job.scheduledAt;
  }
  return earliest;
}

function isScheduled(job: PipelineJob): boolean {
  return job.status === 'scheduled' && !job.retried;
}
