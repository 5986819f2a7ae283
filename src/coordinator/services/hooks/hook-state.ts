import type { HookRecord } from '../../../storage/types-hooks.ts';

/** Failures in a row after which a hook is temporarily disabled (GitLab's WebHooks::AutoDisabling). */
export const FAILURE_THRESHOLD = 4;
/** Failures in a row after which it is disabled until edited. */
export const PERMANENT_FAILURE_THRESHOLD = 40;
/** The first temporary disable lasts a minute; each further one doubles it, up to a day. */
export const INITIAL_BACKOFF_MS = 60_000;
export const MAX_BACKOFF_MS = 24 * 60 * 60_000;

export type HookFailureState = Pick<HookRecord, 'recent_failures' | 'backoff_count' | 'disabled_until' | 'permanently_disabled'>;

/** GitLab's `alert_status`. */
export type AlertStatus = 'executable' | 'temporarily_disabled' | 'disabled';

export function alertStatus(hook: HookFailureState, now: number): AlertStatus {
  if (hook.permanently_disabled) return 'disabled';
  if (hook.disabled_until !== null && Date.parse(hook.disabled_until) > now) return 'temporarily_disabled';
  return 'executable';
}

/** Whether events reach the hook now (GitLab fires no disabled hook; their events are not kept for later). */
export function executable(hook: HookFailureState, now: number): boolean {
  return alertStatus(hook, now) === 'executable';
}

export const SUCCEEDED: HookFailureState = { recent_failures: 0, backoff_count: 0, disabled_until: null, permanently_disabled: false };

/**
 * The state after one more failed delivery: from the fourth failure in a row the hook is
 * disabled for INITIAL_BACKOFF_MS · 2^backoff_count (at most a day); at the fortieth, until edited.
 */
export function afterFailure(hook: HookFailureState, now: number): HookFailureState {
  const recentFailures = hook.recent_failures + 1;
  if (recentFailures >= PERMANENT_FAILURE_THRESHOLD) return { recent_failures: recentFailures, backoff_count: hook.backoff_count, disabled_until: null, permanently_disabled: true };
  if (recentFailures < FAILURE_THRESHOLD) return { ...hook, recent_failures: recentFailures };
  const delay = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** hook.backoff_count);
  return { recent_failures: recentFailures, backoff_count: hook.backoff_count + 1, disabled_until: new Date(now + delay).toISOString(), permanently_disabled: false };
}
