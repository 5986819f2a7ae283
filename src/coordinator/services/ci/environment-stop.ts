import { isGantryError } from '../../../shared/errors.ts';
import type { CiJobsStore } from '../../../storage/types-ci-jobs.ts';
import type { DeploymentsStore, EnvironmentRecord } from '../../../storage/types-environments.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { PipelineProcessing } from './pipelines/processing.ts';

export interface EnvironmentStopActionDeps {
  deployments: Pick<DeploymentsStore, 'lastSuccessful'>;
  jobs: Pick<CiJobsStore, 'findById' | 'list'>;
  processing: Pick<PipelineProcessing, 'apply'>;
}

/**
 * Stopping an environment plays its stop action (GitLab's `stop_with_action!`): the manual job
 * named by `environment:on_stop` in the pipeline of the newest successful deployment.
 */
export class EnvironmentStopAction {
  constructor(private readonly deps: EnvironmentStopActionDeps) {}

  /**
   * Plays the stop job when there is one waiting to be played; answers its id, if played. With
   * no actor (the auto-stop sweep) it is played as the stop job's own user, as GitLab does.
   */
  async play(environment: EnvironmentRecord, actor: Pick<UserRecord, 'id'> | null): Promise<number | undefined> {
    const deployment = (await this.deps.deployments.lastSuccessful([environment.id])).get(environment.id);
    if (!deployment?.on_stop || deployment.job_id === null) return undefined;
    const deployJob = await this.deps.jobs.findById(deployment.job_id);
    if (!deployJob) return undefined;
    const { items } = await this.deps.jobs.list({ pipelineId: deployJob.pipeline_id }, { offset: 0, limit: 10_000 });
    const stopJob = items.find((job) => job.name === deployment.on_stop && (job.status === 'manual' || job.status === 'scheduled'));
    if (!stopJob) return undefined;
    try {
      await this.deps.processing.apply(stopJob.pipeline_id, { type: 'play-job', jobId: stopJob.id }, { userId: actor?.id ?? stopJob.user_id });
      return stopJob.id;
    } catch (error) {
      // Played or removed by someone else meanwhile: the environment is stopped all the same.
      if (isGantryError(error) && (error.code === 'GANTRY_E_JOB_NOT_PLAYABLE' || error.code === 'GANTRY_E_JOB_NOT_FOUND')) return undefined;
      throw error;
    }
  }
}
