import { performance } from 'node:perf_hooks';
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

/**
 * Start-up repair of what a crash (or an older version) left between the database and the
 * repositories directory. Runs before the coordinator serves anything, so no git process is
 * at work. Each repair is logged:
 *
 * - temporary files (`.tmp`: repositories being built, commit indexes, half-deleted
 *   repositories) and stale git lock files are removed;
 * - a project row still marked pending_delete is an interrupted creation or deletion (both
 *   mark the row first): the deletion is finished;
 * - a repository directory without a project row (a deletion interrupted after the row went)
 *   is removed, unless the database has no projects at all (a wrong database, most likely:
 *   then nothing is touched and an error is logged);
 * - a project whose repository is missing gets an empty one: its rows (members, settings,
 *   pipelines) are kept, and the error log tells that the code is gone;
 * - a config file that differs from the canonical one is rewritten whole;
 * - HEAD naming a branch that does not exist, while branches exist, is pointed at the
 *   project's default branch or else the first branch;
 * - default_branch in the database is set to HEAD's branch when they differ and it exists.
 *
 * A repository with a file that exists but cannot be read (a read error, not a missing file)
 * is left alone: what was read of it is no ground to rewrite its config or move its HEAD.
 */
export async function reconcileRepositories(context: CoordinatorContext): Promise<ReconciliationReport> {
  const { stores, repositories, logger } = context;
  const started = performance.now();
  const repairs: string[] = [];
  const repaired = (fields: Record<string, unknown>, message: string, level: 'warn' | 'error' = 'warn'): void => {
    repairs.push(`${message} ${JSON.stringify(fields)}`);
    logger[level](fields, message);
  };

  const inventory = await repositories.inventory();
  const rows = await stores.projects.repositoryStates();
  for (const leftover of inventory.removed) repaired({ path: leftover }, 'reconciliation: removed a temporary leftover');
  const onDisk = new Map(inventory.repositories.map((state) => [state.projectId, state]));
  const rowIds = new Set(rows.map((row) => row.id));

  const projects = buildProjectsService(context);
  for (const row of rows.filter((candidate) => candidate.pending_delete)) {
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
