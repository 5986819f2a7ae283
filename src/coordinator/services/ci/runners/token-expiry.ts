import type { RunnerRecord, RunnerType } from '../../../../storage/types-runners.ts';

/** The application settings that bound runner token lifetimes (seconds; null: no expiry). */
export interface TokenExpirySettings {
  runner_token_expiration_interval: number | null;
  group_runner_token_expiration_interval: number | null;
  project_runner_token_expiration_interval: number | null;
}

const SETTING_OF: Readonly<Record<RunnerType, keyof TokenExpirySettings>> = {
  instance_type: 'runner_token_expiration_interval',
  group_type: 'group_runner_token_expiration_interval',
  project_type: 'project_runner_token_expiration_interval',
};

/**
 * GitLab's `Ci::Runner#compute_token_expiration`: a token set now expires after the interval
 * of the runner's kind (instance, group or project runners), or never when it is unset.
 */
export function tokenExpiresAt(runnerType: RunnerType, settings: TokenExpirySettings, nowMs: number): string | null {
  const seconds = settings[SETTING_OF[runnerType]];
  return seconds === null || seconds === undefined ? null : new Date(nowMs + seconds * 1000).toISOString();
}

/** An expired token authenticates nothing (GitLab's `token_expired?`). */
export function isTokenExpired(runner: Pick<RunnerRecord, 'token_expires_at'>, nowMs: number): boolean {
  return runner.token_expires_at !== null && Date.parse(runner.token_expires_at) <= nowMs;
}
