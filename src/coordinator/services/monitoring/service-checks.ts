import type { DirectoryProbe } from '../../../storage/fs/directory-probe.ts';
import type { GitHealth } from '../../../storage/git/health.ts';
import type { MonitoringStore } from '../../../storage/types-monitoring.ts';
import type { InstanceHealth } from '../instance/instances.ts';
import { errorSummary } from '../../../shared/errors.ts';
import type { CheckResult, HealthCheck } from './health-checks.ts';

/** GitLab's DbCheck waits 10 seconds for `SELECT 1`. */
const DATABASE_TIMEOUT_MS = 10_000;
/** A file system that takes longer than this to write and read 128 bytes is not serving. */
const DATA_DIRECTORY_TIMEOUT_MS = 5_000;
const GIT_TIMEOUT_MS = 5_000;
/** The instance check reads this process's memory only. */
const INSTANCE_TIMEOUT_MS = 1_000;

const ok: CheckResult[] = [{ success: true }];

/** `db_check`: the database answers `SELECT 1`. */
export function databaseCheck(store: Pick<MonitoringStore, 'ping'>): HealthCheck {
  return {
    name: 'db_check',
    humanName: 'Db',
    timeoutMs: DATABASE_TIMEOUT_MS,
    async run() {
      await store.ping();
      return ok;
    },
  };
}

const DIRECTORY_FAILURES: Record<Exclude<DirectoryProbe, { ok: true }>['step'], string> = {
  stat: 'cannot stat data directory',
  write: 'cannot write to data directory',
  read: 'cannot read from data directory',
};

/**
 * `data_directory_check`: a file can be written in the data directory and read back (GitLab's
 * former `fs_shards_check`, whose messages it keeps), where repositories, artifacts, traces and
 * uploads live.
 */
export function dataDirectoryCheck(dataDir: string, probe: (directory: string) => Promise<DirectoryProbe>): HealthCheck {
  return {
    name: 'data_directory_check',
    humanName: 'Data directory',
    timeoutMs: DATA_DIRECTORY_TIMEOUT_MS,
    async run() {
      const outcome = await probe(dataDir);
      return outcome.ok ? ok : [{ success: false, message: `${DIRECTORY_FAILURES[outcome.step]} (${errorSummary(outcome.error)})` }];
    },
  };
}

/** `git_check`: the repositories directory is there and git runs (the part Gitaly's check plays in GitLab). */
export function gitCheck(repositoriesRoot: string, check: (root: string, signal: AbortSignal) => Promise<GitHealth>): HealthCheck {
  return {
    name: 'git_check',
    humanName: 'Git',
    timeoutMs: GIT_TIMEOUT_MS,
    async run(signal) {
      const outcome = await check(repositoriesRoot, signal);
      if (outcome.ok) return ok;
      const what = outcome.step === 'repositories' ? 'cannot stat repositories directory' : 'git does not run';
      return [{ success: false, message: `${what} (${errorSummary(outcome.error)})` }];
    },
  };
}

/**
 * `instance_check`: this coordinator's row is recorded and its heartbeat recent enough that no
 * other coordinator takes it for dead (and cleans up its temporary files). It reads what the
 * heartbeat last did and touches nothing, so a slow shared database does not fail every
 * coordinator's readiness at once; a heartbeat that cannot be written fails it once the
 * heartbeat is stale.
 */
export function instanceCheck(instance: { health(): InstanceHealth }): HealthCheck {
  return {
    name: 'instance_check',
    humanName: 'Instance',
    timeoutMs: INSTANCE_TIMEOUT_MS,
    async run() {
      const health = instance.health();
      if (health.healthy) return ok;
      const because = health.last_heartbeat_error === null ? '' : ` (${health.last_heartbeat_error})`;
      if (!health.registered) return [{ success: false, message: `coordinator instance ${health.id} is not recorded in the database${because}` }];
      return [{ success: false, message: `coordinator instance ${health.id}: no heartbeat written since ${health.last_heartbeat_at ?? 'its start'}${because}` }];
    },
  };
}
