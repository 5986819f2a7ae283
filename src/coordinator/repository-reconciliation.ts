import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../shared/logger.ts';
import type { RepositoryState } from '../storage/git/types.ts';
import type { ProjectRepositoryState } from '../storage/types.ts';
import type { CoordinatorContext } from './context.ts';
import { buildProjectsService } from './wiring.ts';

export interface ReconciliationReport {
  projects: number;
  repositories: number;
  /** One line per repair, as logged. */
  repairs: string[];
  /** Projects whose repository had files that could not be read: left as they were, and logged as errors. */
  unreadable: number[];
  durationMs: number;
}

/** Where a coordinator instance streams multipart uploads: `<dataDir>/tmp/uploads/<instance id>`. */
export function uploadsDirectory(dataDir: string, instanceId: string): string {
  return path.join(uploadsRoot(dataDir), instanceId);
}

const uploadsRoot = (dataDir: string) => path.join(dataDir, 'tmp', 'uploads');

/**
 * Start-up repair. A coordinator starting alone (no other one has a recent heartbeat, or the
 * database is SQLite, which serves one process) repairs everything (reconcileRepositories).
 * Beside running coordinators it cleans up only after the dead ones (cleanUpAfterDeadInstances):
 * the full repair assumes no git process is at work, which only holds when nobody else runs.
 */
export async function reconcileAtStart(context: CoordinatorContext): Promise<ReconciliationReport> {
  const peers = await context.instance.livePeers();
  if (peers.length === 0) return reconcileRepositories(context);
  context.logger.info(
    { coordinators: peers.map((peer) => ({ instance_id: peer.id, hostname: peer.hostname, pid: peer.pid })) },
    'reconciliation: other coordinators are running; cleaning up after dead ones only (the full repair runs when a coordinator starts alone)',
  );
  return cleanUpAfterDeadInstances(context);
}

/**
 * Repair of what a crash (or an older version) left between the database and the
 * repositories directory, while no other coordinator is at work (at start, alone). Each repair
 * is logged:
 *
 * - temporary files of other instances (`.tmp/<instance>`: repositories being built or
 *   deleted, commit indexes; `tmp/uploads/<instance>`) and stale git lock files are removed;
 * - a project row still marked pending_delete (by another instance) is an interrupted creation
 *   or deletion (both mark the row first): the deletion is finished;
 * - a repository directory without a project row (a deletion interrupted after the row went)
 *   is removed, unless the database has no projects at all (a wrong database, most likely:
 *   then nothing is touched and an error is logged);
 * - a project whose repository is missing gets an empty one: its rows (members, settings,
 *   pipelines) are kept, and the error log tells that the code is gone;
 * - a config file that differs from the canonical one is rewritten whole;
 * - HEAD naming a branch that does not exist, while branches exist, is pointed at the
 *   project's default branch or else the first branch;
 * - default_branch in the database is set to HEAD's branch when they differ and it exists;
 * - the rows of earlier instances are forgotten and their task leases ended.
 *
 * A repository with a file that exists but cannot be read (a read error, not a missing file)
 * is left alone: what was read of it is no ground to rewrite its config or move its HEAD.
 */
export async function reconcileRepositories(context: CoordinatorContext): Promise<ReconciliationReport> {
  const { stores, repositories, logger, instance } = context;
  const started = performance.now();
  const { repairs, repaired } = repairLog(logger);

  const inventory = await repositories.inventory();
  const rows = await stores.projects.repositoryStates();
  for (const leftover of inventory.removed) repaired({ path: leftover }, 'reconciliation: removed a temporary leftover');
  // Alone at start (others wait for the start-up lock), every other row is dead whatever its heartbeat says.
  await forgetInstances(context, new Set([instance.id]), null, repaired);
  await removeTemporaryFiles(context, new Set([instance.id]), await temporaryOwners(context), repaired);
  const onDisk = new Map(inventory.repositories.map((state) => [state.projectId, state]));
  const rowIds = new Set(rows.map((row) => row.id));

  const projects = buildProjectsService(context);
  for (const row of rows.filter((candidate) => candidate.pending_delete && candidate.pending_instance_id !== instance.id)) {
    const record = await stores.projects.findById(row.id);
    if (record) await projects.remove(record);
    repaired({ project_id: row.id }, 'reconciliation: finished the interrupted creation or deletion of a project (removed)');
  }

  const orphans = inventory.repositories.filter((state) => !rowIds.has(state.projectId));
  if (rows.length === 0 && orphans.length > 0) {
    logger.error({ repositories: orphans.length }, 'reconciliation: the database has no projects but the repositories directory has repositories; is this the right database? Nothing was removed');
  } else {
    for (const orphan of orphans) {
      await repositories.remove(orphan.projectId);
      repaired({ project_id: orphan.projectId }, 'reconciliation: removed a repository without a project');
    }
  }

  const canonicalConfig = await repositories.canonicalConfig();
  const unreadable: number[] = [];
  for (const row of rows.filter((candidate) => !candidate.pending_delete)) {
    const state = onDisk.get(row.id);
    for (const leftover of state?.removedLeftovers ?? []) repaired({ project_id: row.id, path: leftover }, 'reconciliation: removed a stale git lock or quarantine');
    if (state && state.unreadable.length > 0) {
      unreadable.push(row.id);
      logger.error({ project_id: row.id, unreadable: state.unreadable }, 'reconciliation skipped a repository it could not read; nothing of it was changed');
    } else if (state) {
      await repairRepository(context, row, state, canonicalConfig, repaired);
    } else {
      await recreateRepository(context, row, repaired);
    }
  }

  const report = { projects: rows.length, repositories: inventory.repositories.length, repairs, unreadable, durationMs: Math.round(performance.now() - started) };
  logger.info(
    { projects: report.projects, repositories: report.repositories, repairs: repairs.length, unreadable: unreadable.length, duration_ms: report.durationMs },
    'repositories reconciled',
  );
  return report;
}

/**
 * Cleans up after coordinators that stopped without a goodbye (their heartbeat is older than
 * the instance's `staleAfterMs`), while others keep working: their rows go (the one
 * coordinator that removes a row reports it), their task leases end, their temporary files
 * and uploads are removed, the projects they were creating or deleting are removed, and git
 * lock files too old to be anyone's are removed. What a live coordinator owns is never
 * touched. Runs at start beside live coordinators and then periodically (InstanceUpkeep).
 */
export async function cleanUpAfterDeadInstances(context: CoordinatorContext): Promise<ReconciliationReport> {
  const { stores, repositories, logger, instance } = context;
  const started = performance.now();
  const { repairs, repaired } = repairLog(logger);
  // git holds a ref, HEAD or config lock for milliseconds: one older than a heartbeat interval
  // is a killed process's, and a dead coordinator's are far older than that.
  const locksBefore = Date.now() - instance.heartbeatIntervalMs;
  // Read before the live instances: whatever is listed here was made by an instance already
  // registered, so a new instance's files are never taken for a dead one's.
  const owners = await temporaryOwners(context);
  const pending = (await stores.projects.repositoryStates()).filter((row) => row.pending_delete);
  const liveBefore = await instance.liveIds();
  const forgotten = await forgetInstances(context, liveBefore, instance.staleAfterMs, repaired);
  // An instance whose heartbeat came in meanwhile is alive after all.
  const live = new Set([...liveBefore, ...(await instance.liveIds())]);
  const removedFiles = await removeTemporaryFiles(context, live, owners, repaired);

  const projects = buildProjectsService(context);
  for (const row of pending) {
    if (row.pending_instance_id !== null && live.has(row.pending_instance_id)) continue;
    // One coordinator takes the row over; the others leave it to that one.
    if (!(await stores.instances.takeOverPendingProject(row.id, row.pending_instance_id, instance.id))) continue;
    const record = await stores.projects.findById(row.id);
    if (record) await projects.remove(record);
    repaired({ project_id: row.id, instance_id: row.pending_instance_id }, 'reconciliation: finished the interrupted creation or deletion of a project by a dead coordinator (removed)');
  }

  if (forgotten > 0 || removedFiles > 0) {
    for (const lock of await repositories.removeStaleLocks(locksBefore)) {
      repaired({ project_id: lock.projectId, path: lock.path }, 'reconciliation: removed a stale git lock');
    }
  }
  const durationMs = Math.round(performance.now() - started);
  if (repairs.length > 0) logger.info({ repairs: repairs.length, duration_ms: durationMs }, 'cleaned up after dead coordinators');
  return { projects: pending.length, repositories: 0, repairs, unreadable: [], durationMs };
}

function repairLog(logger: Logger): { repairs: string[]; repaired: Repaired } {
  const repairs: string[] = [];
  const repaired: Repaired = (fields, message, level = 'warn') => {
    repairs.push(`${message} ${JSON.stringify(fields)}`);
    logger[level](fields, message);
  };
  return { repairs, repaired };
}

interface TemporaryOwners {
  repositories: string[];
  uploads: string[];
}

async function temporaryOwners(context: CoordinatorContext): Promise<TemporaryOwners> {
  const uploads = await readdir(uploadsRoot(context.config.dataDir)).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  return { repositories: await context.repositories.temporaryOwners(), uploads };
}

/** Removes the temporary files of every owner not in `live`; answers how many owners had some. */
async function removeTemporaryFiles(context: CoordinatorContext, live: ReadonlySet<string>, owners: TemporaryOwners, repaired: Repaired): Promise<number> {
  let removed = 0;
  for (const owner of owners.repositories.filter((name) => !live.has(name))) {
    await context.repositories.removeTemporaryFilesOf(owner);
    repaired({ path: `.tmp/${owner}` }, 'reconciliation: removed a temporary leftover');
    removed += 1;
  }
  for (const owner of owners.uploads.filter((name) => !live.has(name))) {
    await rm(path.join(uploadsRoot(context.config.dataDir), owner), { recursive: true, force: true });
    repaired({ path: `tmp/uploads/${owner}` }, 'reconciliation: removed the uploads a dead coordinator was receiving');
    removed += 1;
  }
  return removed;
}

/**
 * Removes the rows of recorded instances not in `live` whose heartbeat is older than
 * `staleAfterMs` (any, when null) and ends their task leases; answers how many this call removed.
 */
async function forgetInstances(context: CoordinatorContext, live: ReadonlySet<string>, staleAfterMs: number | null, repaired: Repaired): Promise<number> {
  const { stores } = context;
  let forgotten = 0;
  for (const dead of (await stores.instances.list()).filter((row) => !live.has(row.id))) {
    if (!(await stores.instances.removeIfStale(dead.id, staleAfterMs))) continue;
    forgotten += 1;
    const leases = await stores.instances.expireTaskLeases(dead.id);
    repaired(
      { instance_id: dead.id, hostname: dead.hostname, pid: dead.pid, last_heartbeat_at: new Date(dead.heartbeat_at_ms).toISOString(), task_leases: leases },
      'reconciliation: a coordinator stopped without a goodbye; cleaning up after it',
    );
  }
  return forgotten;
}

type Repaired = (fields: Record<string, unknown>, message: string, level?: 'warn' | 'error') => void;

async function recreateRepository(context: CoordinatorContext, row: ProjectRepositoryState, repaired: Repaired): Promise<void> {
  await context.repositories.create(row.id, {
    initializeWithReadme: false,
    defaultBranch: row.default_branch ?? 'main',
    projectName: row.name,
    author: { name: 'Gantry', email: 'gantry@localhost' },
  });
  if (row.default_branch !== null) await context.stores.projects.update(row.id, { default_branch: null });
  repaired({ project_id: row.id }, 'reconciliation: the project had no repository; created an empty one', 'error');
}

async function repairRepository(context: CoordinatorContext, row: ProjectRepositoryState, state: RepositoryState, canonicalConfig: string, repaired: Repaired): Promise<void> {
  const { repositories, stores } = context;
  if (state.config !== canonicalConfig) {
    await repositories.writeCanonicalConfig(row.id);
    repaired({ project_id: row.id }, 'reconciliation: rewrote a repository config that differed from the canonical one');
  }
  if (state.branches.length === 0) return;
  let head = state.head;
  if (head === null || !state.branches.includes(head)) {
    const target = row.default_branch !== null && state.branches.includes(row.default_branch) ? row.default_branch : state.branches[0]!;
    await repositories.open(row.id).setDefaultBranch(target);
    repaired({ project_id: row.id, from: head, to: target }, 'reconciliation: HEAD named a missing branch; pointed it at an existing one');
    head = target;
  }
  if (row.default_branch !== head) {
    await stores.projects.update(row.id, { default_branch: head });
    repaired({ project_id: row.id, from: row.default_branch, to: head }, "reconciliation: set the project's default_branch from the repository's HEAD");
  }
}
