/**
 * `resource_group`: a job of a group is enqueued to `waiting_for_resource`; the group's resource
 * goes to one job at a time, which holds it from its assignment (`pending`) until it completes.
 * Whenever a job starts waiting, a holder lets go (finished, failed, canceled, dropped by a
 * sweep), or a job the group's process mode may be keeping the resource for (`created`,
 * `scheduled`, waiting) ends otherwise, processing records a durable task for the group in the
 * transaction of that event; the task assigns the resource, if no job holds it, to the job the
 * group's process mode puts first when that job waits (`pipeline/resource-group-modes.ts`),
 * through pipeline processing (so the pipeline's status, hooks and the runners' wake-up follow),
 * in a transaction that first serialises the group's assignments (`JobQueueStore.nextForResource`).
 */
import { upcomingStatuses, type JobChange, type JobStatus, type PipelineJob } from '../../../../pipeline/index.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';

/** Payload: ResourceGroupTask. */
export const RESOURCE_GROUP_TASK = 'pipeline.resource-group-assign';

export interface ResourceGroupTask {
  projectId: number;
  /** The group's key, expanded (`ci_jobs.resource_group`). */
  key: string;
}

const HOLDING: ReadonlySet<JobStatus> = new Set(['pending', 'running', 'canceling']);
/** The statuses of jobs that `oldest_first` and `newest_first` keep the resource for. */
const UPCOMING: ReadonlySet<JobStatus> = new Set(upcomingStatuses('oldest_first'));

/**
 * The groups whose resource may change hands after these changes: a job of the group started
 * waiting, a holder of it stopped holding, or an upcoming job left without taking it (the
 * resource may have been kept for it). `jobs` are the pipeline's jobs after them.
 */
export function groupsToAssign(changes: readonly JobChange[], jobs: readonly PipelineJob[]): string[] {
  const keys = new Set<string>();
  let byId: Map<number, PipelineJob> | undefined;
  for (const change of changes) {
    const status = change.kind === 'create' ? change.job.status : change.patch.status;
    if (status === undefined) continue;
    const released = change.kind === 'update' && HOLDING.has(change.previousStatus) && !HOLDING.has(status);
    const leftUpcoming = change.kind === 'update' && UPCOMING.has(change.previousStatus) && !UPCOMING.has(status) && !HOLDING.has(status);
    if (status !== 'waiting_for_resource' && !released && !leftUpcoming) continue;
    byId ??= new Map(jobs.map((job) => [job.id, job]));
    const key = change.kind === 'create' ? change.job.resourceGroup : byId.get(change.jobId)?.resourceGroup;
    if (key) keys.add(key);
  }
  return [...keys];
}

/**
 * In the processing transaction: one assignment task per group the changes concern (one
 * pending task per group at most); answers how many were recorded.
 */
export async function recordResourceAssignments(
  stores: CiStores, projectId: number, changes: readonly JobChange[], jobs: readonly PipelineJob[], now: string,
): Promise<number> {
  return recordAssignmentTasks(stores, projectId, groupsToAssign(changes, jobs), now);
}

/** The groups these jobs hold or may be kept for (a pipeline about to be deleted lets go of them). */
export function groupsLetGo(jobs: readonly PipelineJob[]): string[] {
  return [...new Set(jobs.flatMap((job) => (job.resourceGroup && (HOLDING.has(job.status) || UPCOMING.has(job.status)) ? [job.resourceGroup] : [])))];
}

/** In the pipeline creation's transaction: the project's groups its new jobs name (GitLab makes them with the jobs). */
export async function ensureResourceGroups(stores: Pick<CiStores, 'resourceGroups'>, projectId: number, jobs: ReadonlyArray<{ resource_group: string | null }>, now: string): Promise<void> {
  await stores.resourceGroups.ensure(projectId, jobs.flatMap((job) => (job.resource_group ? [job.resource_group] : [])), now);
}

/** In the caller's transaction: one assignment task per group (deduped while one is pending); answers how many. */
export async function recordAssignmentTasks(stores: Pick<CiStores, 'tasks'>, projectId: number, keys: readonly string[], now: string): Promise<number> {
  for (const key of keys) await stores.tasks.enqueue(resourceAssignmentTask(projectId, key), now);
  return keys.length;
}

/** The task that assigns a group's resource (one pending per group, by its dedupe key). */
export function resourceAssignmentTask(projectId: number, key: string): NewTask {
  const payload: ResourceGroupTask = { projectId, key };
  return { kind: RESOURCE_GROUP_TASK, payload, maxAttempts: 10, dedupeKey: `${RESOURCE_GROUP_TASK}:${projectId}:${key}` };
}
