import { GantryError } from '../../../shared/errors.ts';

/** GitLab's `web_hook_test` limit: 5 test calls a minute per hook and user. */
export const HOOK_TESTS_PER_MINUTE = 5;
const WINDOW_MS = 60_000;
/** Pairs tracked at most; the oldest are forgotten first (a bounded map, whatever the callers do). */
const TRACKED_MAX = 10_000;

/**
 * Counts test calls per hook and user in a sliding minute, in this process (as GitLab's limit
 * is per Redis; several coordinators each allow 5).
 */
export class HookTestRateLimit {
  private readonly calls = new Map<string, number[]>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Counts one call, or throws `429` when the pair has made 5 in the last minute. */
  take(hookId: number, userId: number): void {
    const key = `${hookId}:${userId}`;
    const now = this.clock();
    const recent = (this.calls.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= HOOK_TESTS_PER_MINUTE) {
      this.calls.set(key, recent);
      throw new GantryError('GANTRY_E_HOOK_TEST_RATE_LIMITED', 'This endpoint has been requested too many times. Try again later.');
    }
    recent.push(now);
    this.calls.delete(key);
    this.calls.set(key, recent);
    if (this.calls.size > TRACKED_MAX) this.calls.delete(this.calls.keys().next().value as string);
  }
}
