import { GantryError } from '../../../../shared/errors.ts';
import type { CiJobsStore } from '../../../../storage/types-ci-jobs.ts';
import type { DeploymentsStore } from '../../../../storage/types-environments.ts';
import type { TaskHandler } from '../../task-queue.ts';
import { FORWARD_DEPLOYMENT_FAILURE, type OlderDeploymentsDropTask } from './forward-deployments.ts';
import type { PipelineProcessing } from './processing.ts';

export interface OlderDeploymentsDropDeps {
  deployments: Pick<DeploymentsStore, 'findById' | 'olderActive'>;
  jobs: Pick<CiJobsStore, 'findByIds'>;
  processing: Pick<PipelineProcessing, 'apply'>;
}

/** The task: GitLab's `Deployments::OlderDeploymentsDropService`. */
export class OlderDeploymentsDrop {
  constructor(private readonly deps: OlderDeploymentsDropDeps) {}

  /**
   * While the deployment still runs: the jobs of its environment's older `created` or
   * `running` deployments fail with `forward_deployment_failure` (those that can fail: not
   * manual actions, not already finished meanwhile), one processing event per pipeline.
   * Answers how many jobs it asked to drop.
   */
  async drop(deploymentId: number): Promise<number> {
    const deployment = await this.deps.deployments.findById(deploymentId);
    if (!deployment || deployment.status !== 'running') return 0;
    const older = await this.deps.deployments.olderActive(deployment);
    const jobIds = older.flatMap((item) => (item.job_id === null ? [] : [item.job_id]));
    if (jobIds.length === 0) return 0;
    const byPipeline = new Map<number, number[]>();
    for (const job of await this.deps.jobs.findByIds(jobIds)) {
      if (job.status === 'manual') continue;
      byPipeline.set(job.pipeline_id, [...(byPipeline.get(job.pipeline_id) ?? []), job.id]);
    }
    let dropped = 0;
    for (const [pipelineId, ids] of byPipeline) {
      try {
        await this.deps.processing.apply(pipelineId, { type: 'drop-jobs', jobIds: ids, failureReason: FORWARD_DEPLOYMENT_FAILURE });
        dropped += ids.length;
      } catch (error) {
        // The pipeline or job was deleted meanwhile: nothing to drop there.
        if (!(error instanceof GantryError && (error.code === 'GANTRY_E_PIPELINE_NOT_FOUND' || error.code === 'GANTRY_E_JOB_NOT_FOUND'))) throw error;
      }
    }
    return dropped;
  }

  handler(): TaskHandler {
    return async (task) => {
      const { deploymentId } = task.payload as OlderDeploymentsDropTask;
      await this.drop(deploymentId);
    };
  }
}
