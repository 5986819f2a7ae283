/**
 * GitLab's default project build timeout (`build_timeout`, seconds): how long a job that sets
 * no `timeout:` may run. Projects have no setting of their own yet, so this is every project's.
 */
export const DEFAULT_JOB_TIMEOUT_SECONDS = 3600;

/** How long a job may run: its own `timeout:` or the default, capped by the runner's `maximum_timeout` when it has one. */
export function effectiveJobTimeout(own: number | null | undefined, runnerMaximum: number | null | undefined): number {
  const timeout = own ?? DEFAULT_JOB_TIMEOUT_SECONDS;
  return runnerMaximum !== null && runnerMaximum !== undefined && runnerMaximum > 0 ? Math.min(timeout, runnerMaximum) : timeout;
}
