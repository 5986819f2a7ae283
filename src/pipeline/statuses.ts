import type { JobStatus } from './types.ts';

/** Status groups of modern `Ci::HasStatus` (§3.1), restricted to Gantry's statuses. */
export const JOB_STATUSES: readonly JobStatus[] = [
  'created',
  'waiting_for_resource',
  'pending',
  'running',
  'canceling',
  'success',
  'failed',
  'canceled',
  'skipped',
  'manual',
  'scheduled',
];

const COMPLETED: ReadonlySet<JobStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);
const BLOCKED: ReadonlySet<JobStatus> = new Set(['manual', 'scheduled']);
const ACTIVE: ReadonlySet<JobStatus> = new Set(['waiting_for_resource', 'pending', 'running']);
const ALIVE: ReadonlySet<JobStatus> = new Set(['created', 'waiting_for_resource', 'pending', 'running']);
const CANCELABLE: ReadonlySet<JobStatus> = new Set(['created', 'waiting_for_resource', 'pending', 'running', 'scheduled']);

export function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

/** success, failed, canceled, skipped */
export function isCompletedStatus(status: JobStatus): boolean {
  return COMPLETED.has(status);
}

/** manual, scheduled */
export function isBlockedStatus(status: JobStatus): boolean {
  return BLOCKED.has(status);
}

/** waiting_for_resource, pending, running */
export function isActiveStatus(status: JobStatus): boolean {
  return ACTIVE.has(status);
}

/** created, waiting_for_resource, pending, running */
export function isAliveStatus(status: JobStatus): boolean {
  return ALIVE.has(status);
}

/** Completed or blocked: a job leaving these for an alive status makes its dependents processable again. */
export function isStoppedStatus(status: JobStatus): boolean {
  return COMPLETED.has(status) || BLOCKED.has(status);
}

/**
 * ALIVE + scheduled: what a job or pipeline cancel touches (§3.1, §6). `canceling` is none
 * of ACTIVE, ALIVE, COMPLETED or CANCELABLE, as in GitLab: it waits for its runner.
 */
export function isCancelableStatus(status: JobStatus): boolean {
  return CANCELABLE.has(status);
}
