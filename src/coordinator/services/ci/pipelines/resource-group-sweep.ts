import type { JobQueueStore } from '../../../../storage/types-ci-jobs.ts';
import { PeriodicSweep, type PeriodicTaskDeps } from '../../periodic-task.ts';
import { resourceAssignmentTask } from './resource-groups.ts';

export const RESOURCE_GROUP_SWEEP_TASK = 'pipeline.resource-group-sweep';

/** Groups looked at per sweep; the next sweep takes the rest. */
const GROUPS_PER_SWEEP = 1_000;

/**
 * Re-checks resource groups now and then: a group with a job waiting for its resource and no
 * job holding it gets an assignment task. Every event that frees a resource records that task
 * in its own transaction; this sweep is for the task that was lost nonetheless (its attempts
 * used up), so no job waits for ever.
 */
export class ResourceGroupSweep extends PeriodicSweep {
  constructor(private readonly deps: PeriodicTaskDeps & { jobQueue: Pick<JobQueueStore, 'groupsAwaitingResource'> }) {
    super(deps, RESOURCE_GROUP_SWEEP_TASK, 'the resource group sweep');
  }

  /** Records an assignment task for each group due; answers how many groups. */
  override async sweep(signal?: AbortSignal): Promise<number> {
    const groups = await this.deps.jobQueue.groupsAwaitingResource(GROUPS_PER_SWEEP);
    for (const group of groups) {
      signal?.throwIfAborted();
      await this.deps.queue.enqueue(resourceAssignmentTask(group.projectId, group.key));
    }
    if (groups.length > 0) this.deps.logger.info({ groups: groups.length }, 'resource groups with a waiting job and a free resource: assignment recorded');
    return groups.length;
  }
}
