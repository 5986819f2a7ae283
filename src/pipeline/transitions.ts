import { GantryError } from '../shared/errors.ts';
import type { JobStatus } from './types.ts';

/** Names of the job state-machine events (§3.2). */
export type JobEventName =
  | 'process'
  | 'enqueue'
  | 'actionize'
  | 'schedule'
  | 'enqueue_scheduled'
  | 'enqueue_waiting_for_resource'
  | 'unschedule'
  | 'run'
  | 'success'
  | 'drop'
  | 'skip'
  | 'cancel'
  | 'finish_cancel';

interface TransitionRule {
  readonly event: JobEventName;
  readonly from: readonly JobStatus[];
  readonly to: JobStatus;
}

/** The modern transition table of §3.2 for Gantry's statuses. */
export const JOB_TRANSITIONS: readonly TransitionRule[] = [
  { event: 'process', from: ['skipped', 'manual'], to: 'created' },
  { event: 'enqueue', from: ['created', 'skipped', 'manual', 'scheduled'], to: 'pending' },
  // A job of a `resource_group` is enqueued to wait for its group's resource.
  { event: 'enqueue', from: ['created', 'skipped', 'manual', 'scheduled'], to: 'waiting_for_resource' },
  { event: 'actionize', from: ['created'], to: 'manual' },
  { event: 'schedule', from: ['created'], to: 'scheduled' },
  { event: 'enqueue_scheduled', from: ['scheduled'], to: 'pending' },
  { event: 'enqueue_scheduled', from: ['scheduled'], to: 'waiting_for_resource' },
  // The group assigned the job its resource.
  { event: 'enqueue_waiting_for_resource', from: ['waiting_for_resource'], to: 'pending' },
  { event: 'unschedule', from: ['scheduled'], to: 'manual' },
  { event: 'run', from: ['pending'], to: 'running' },
  { event: 'success', from: ['created', 'waiting_for_resource', 'pending', 'running'], to: 'success' },
  { event: 'drop', from: ['created', 'waiting_for_resource', 'pending', 'running', 'scheduled'], to: 'failed' },
  { event: 'skip', from: ['created', 'waiting_for_resource', 'pending'], to: 'skipped' },
  {
    event: 'cancel',
    from: ['created', 'waiting_for_resource', 'pending', 'running', 'manual', 'scheduled'],
    to: 'canceled',
  },
  // `cancel` of a running job whose runner cancels gracefully (`supports_canceling?`).
  { event: 'cancel', from: ['running'], to: 'canceling' },
  // The runner's final `success` or `drop` (and a forced cancel) of a canceling job end it canceled.
  { event: 'finish_cancel', from: ['canceling'], to: 'canceled' },
];

const ALLOWED_SOURCES = new Map<JobStatus, ReadonlySet<JobStatus>>();
for (const rule of JOB_TRANSITIONS) {
  const sources = new Set(ALLOWED_SOURCES.get(rule.to) ?? []);
  for (const from of rule.from) sources.add(from);
  ALLOWED_SOURCES.set(rule.to, sources);
}

/** Whether one state-machine event moves a job from `from` to `to`. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return ALLOWED_SOURCES.get(to)?.has(from) ?? false;
}

/** The event that leads to `to` (from `from` where several do, e.g. scheduled → pending). */
export function transitionEventName(from: JobStatus, to: JobStatus): JobEventName {
  if ((to === 'pending' || to === 'waiting_for_resource') && from === 'scheduled') return 'enqueue_scheduled';
  if (to === 'pending' && from === 'waiting_for_resource') return 'enqueue_waiting_for_resource';
  if (to === 'manual' && from === 'scheduled') return 'unschedule';
  if (to === 'canceled' && from === 'canceling') return 'finish_cancel';
  const rule = JOB_TRANSITIONS.find((candidate) => candidate.to === to);
  if (!rule) throw new Error(`no event leads to ${to}`);
  return rule.event;
}

/** The refusal of a state-machine `!` event for an impossible transition (§9 step 6), in GitLab's words. */
export function cannotTransitionVia(event: JobEventName, from: JobStatus): GantryError {
  return new GantryError(
    'GANTRY_E_JOB_TRANSITION_INVALID',
    `Cannot transition status via :${event} from :${from} (Reason(s): Status cannot transition via "${event}")`,
  );
}

export function invalidTransitionError(from: JobStatus, to: JobStatus): GantryError {
  return cannotTransitionVia(transitionEventName(from, to), from);
}

export function assertTransition(from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) throw invalidTransitionError(from, to);
}

export type JobTimestampField = 'queuedAt' | 'startedAt' | 'finishedAt';

/**
 * The timestamp a persistence layer sets on entering `status` (§3.2): queued_at on pending,
 * started_at on running, finished_at on success/failed/canceled.
 */
export function timestampFieldFor(status: JobStatus): JobTimestampField | null {
  switch (status) {
    case 'pending':
      return 'queuedAt';
    case 'running':
      return 'startedAt';
    case 'success':
    case 'failed':
    case 'canceled':
      return 'finishedAt';
    default:
      return null;
  }
}
