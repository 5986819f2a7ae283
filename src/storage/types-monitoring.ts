/** What the health checks and the metrics read of the database. */

/** Builds (the jobs runners run) waiting in the runner queue, running now, and waiting for a resource. */
export interface CiJobCounts {
  pending: number;
  running: number;
  /** Builds waiting for their resource group's resource. */
  waitingForResource: number;
  /** `queued_at` of the oldest pending build; null when none waits. */
  oldestPendingQueuedAt: string | null;
}

/** How many runners of a type are active or paused, by their last contact. */
export interface RunnerContactCount {
  runner_type: string;
  active: boolean;
  /** `never`: not contacted yet; `recent`: contacted after the instant asked about; `earlier`: before it. */
  contact: 'never' | 'recent' | 'earlier';
  count: number;
}

export interface MonitoringStore {
  /** One trivial statement (`SELECT 1`): throws when the database does not answer. */
  ping(): Promise<void>;
  /** Counted through the partial indexes of the runner queue and of running jobs. */
  ciJobCounts(): Promise<CiJobCounts>;
  runnerContactCounts(recentSince: string): Promise<RunnerContactCount[]>;
}
