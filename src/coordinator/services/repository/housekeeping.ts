import { randomBytes } from 'node:crypto';
import { GantryError } from '../../../shared/errors.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { TaskHandler, TaskQueue } from '../task-queue.ts';
import type { RepositoryAccess } from './access.ts';

export const HOUSEKEEPING_TASK = 'repository_housekeeping';
export const HOUSEKEEPING_TASKS = ['eager', 'prune'] as const;
export type HousekeepingTask = (typeof HOUSEKEEPING_TASKS)[number];

/** GitLab's LeaseTaken message (its lease lasts 24 hours unless the worker ends it first, as ours does). */
const LEASE_TAKEN = 'Somebody already triggered housekeeping for this resource in the past 1440 minutes';

type HousekeepingRepositories = Pick<RepositoryManager, 'exists' | 'runHousekeeping' | 'takeHousekeepingLease' | 'releaseHousekeepingLease'>;

export interface HousekeepingDeps {
  access: Pick<RepositoryAccess, 'forSettings'>;
  repositories: HousekeepingRepositories;
  queue: Pick<TaskQueue, 'enqueue'>;
}

/**
 * `POST /projects/:id/housekeeping` (Maintainers and up): takes the repository's housekeeping
 * lease and queues the work on the durable task queue; the request never waits for git.
 * While the lease is held (queued or running) another request is refused as GitLab does.
 * The answer is a job id, as GitLab's is the id of the Sidekiq job it queued (24 hex digits).
 */
export class HousekeepingService {
  constructor(private readonly deps: HousekeepingDeps) {}

  async request(projectRef: string, actor: UserRecord, task: HousekeepingTask): Promise<string> {
    const target = await this.deps.access.forSettings(projectRef, actor);
    // A project without a repository has nothing to clean: GitLab queues its job all the same.
    if (!target.repository) return randomBytes(12).toString('hex');
    const projectId = target.project.id;
    if (!(await this.deps.repositories.takeHousekeepingLease(projectId))) throw new GantryError('GANTRY_E_HOUSEKEEPING_IN_PROGRESS', LEASE_TAKEN);
    try {
      const queued = await this.deps.queue.enqueue({ kind: HOUSEKEEPING_TASK, payload: { projectId, task }, dedupeKey: `housekeeping:${projectId}`, maxAttempts: 3 });
      return jobId(queued.task.id);
    } catch (error) {
      await this.deps.repositories.releaseHousekeepingLease(projectId);
      throw error;
    }
  }
}

/** The queued task's id in the shape of a Sidekiq job id: 24 hex digits. */
function jobId(taskId: number): string {
  return taskId.toString(16).padStart(24, '0');
}

/** Runs one queued housekeeping (gc, or repack and prune) and ends the lease, whatever git made of it. */
export function housekeepingTaskHandler(repositories: HousekeepingRepositories): TaskHandler {
  return async (task) => {
    const payload = parsePayload(task.payload);
    if (!payload) return;
    try {
      if (await repositories.exists(payload.projectId)) await repositories.runHousekeeping(payload.projectId, { gc: true, prune: payload.task === 'prune' });
    } finally {
      await repositories.releaseHousekeepingLease(payload.projectId);
    }
  };
}

function parsePayload(payload: unknown): { projectId: number; task: HousekeepingTask } | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { projectId, task } = payload as { projectId?: unknown; task?: unknown };
  if (typeof projectId !== 'number' || !Number.isSafeInteger(projectId) || projectId <= 0) return null;
  return { projectId, task: task === 'prune' ? 'prune' : 'eager' };
}
