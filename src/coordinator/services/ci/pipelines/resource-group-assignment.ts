import { resourceTaker } from '../../../../pipeline/index.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { PipelineProcessing, ProcessedEvent } from './processing.ts';
import type { ResourceGroupTask } from './resource-groups.ts';

/** Assigns a group's free resource to the job its process mode puts first, if that job waits for it. */
export class ResourceGroupAssignment {
  constructor(private readonly deps: { processing: Pick<PipelineProcessing, 'applyChosen'> }) {}

  /** Moves the group's first upcoming job to `pending` if it waits and no job holds the resource; answers what processing did, if anything. */
  async assign(projectId: number, key: string): Promise<ProcessedEvent | undefined> {
    return this.deps.processing.applyChosen(async (stores) => {
      const next = resourceTaker(await stores.jobQueue.nextForResource(projectId, key));
      return next && { pipelineId: next.pipeline_id, event: { type: 'assign-resource', jobId: next.id } };
    });
  }

  handler(): TaskHandler {
    return async (task) => {
      const { projectId, key } = task.payload as ResourceGroupTask;
      await this.assign(projectId, key);
    };
  }
}
