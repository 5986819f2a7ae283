/**
 * GitLab's "Prevent outdated deployment jobs" (project setting `ci_forward_deployment_enabled`,
 * on by default), as GitLab does it since the cleanup of its `prevent_outdated_deployment_jobs`
 * feature flag:
 * - Processing, about to enqueue a job (its `created` job's turn, or its resource group's
 *   assignment), fails it with `failed_outdated_deployment_job` instead when its deployment is
 *   older than its environment's last successful deployment (`Ci::ProcessBuildService#enqueue`,
 *   `AssignResourceFromResourceGroupService`): `outdatedDeploymentJobIds` gives the pure rules
 *   that set, read in the event's transaction.
 * - `hasOutdatedDeployment` is GitLab's `has_outdated_deployment?`, which the permission
 *   module reads to refuse playing, retrying and canceling such a job, and a pipeline retry to
 *   leave it (`unretryableDeploymentJobIds`).
 * Older deployments still pending or running when a newer one starts are left alone: GitLab's
 * `Deployments::OlderDeploymentsDropService`, which failed them with
 * `forward_deployment_failure`, went with that flag.
 */
import type { JobStatus, PipelineJob } from '../../../../pipeline/types.ts';
import type { CiStores } from '../../../../storage/types-ci-transactions.ts';
import type { DeploymentRecord, DeploymentsStore, ForwardDeploymentSettings } from '../../../../storage/types-environments.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import type { JobRecord } from '../../../../storage/types-ci-jobs.ts';

type Deployment = Pick<DeploymentRecord, 'id' | 'sha'>;

/**
 * GitLab's `Deployment#older_than_last_successful_deployment?`: the environment has a last
 * successful deployment, not this one nor one of the same commit, and this one is older.
 */
export function isOlderThanLastSuccessful(deployment: Deployment, lastSuccessful: Deployment | undefined): boolean {
  if (!lastSuccessful || lastSuccessful.id === deployment.id || lastSuccessful.sha === deployment.sha) return false;
  return deployment.id < lastSuccessful.id;
}

/**
 * GitLab's `has_outdated_deployment?` of a job with a deployment: forward deployment enabled,
 * and the job not finished unless rollbacks are refused, and its deployment older than the
 * environment's last successful one.
 */
export function hasOutdatedDeployment(
  settings: ForwardDeploymentSettings, jobStatus: JobStatus, deployment: Deployment | undefined, lastSuccessful: Deployment | undefined,
): boolean {
  if (!settings.enabled || !deployment) return false;
  if (settings.rollbackAllowed && COMPLETE.has(jobStatus)) return false;
  return isOlderThanLastSuccessful(deployment, lastSuccessful);
}

const COMPLETE: ReadonlySet<JobStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);

/** The statuses from which an event may enqueue a job: processing (a skipped one reset first) or an assignment. */
const ABOUT_TO_ENQUEUE: ReadonlySet<JobStatus> = new Set(['created', 'waiting_for_resource', 'skipped']);

/**
 * In the event's transaction, before the rules: the jobs of the pipeline that the event could
 * enqueue (`created`, waiting for their resource, or skipped and reset) whose deployment is
 * outdated. No read at all when no such job has a deployment; else the project's settings and
 * the last successful deployments of their environments.
 */
export async function outdatedDeploymentJobIds(
  stores: Pick<CiStores, 'deployments'>, projectId: number, deployments: readonly DeploymentRecord[], jobs: readonly PipelineJob[],
): Promise<Set<number>> {
  const outdated = new Set<number>();
  const waiting = new Set(jobs.flatMap((job) => (!job.retried && ABOUT_TO_ENQUEUE.has(job.status) ? [job.id] : [])));
  const candidates = deployments.filter((deployment) => deployment.job_id !== null && waiting.has(deployment.job_id));
  if (candidates.length === 0) return outdated;
  if (!(await stores.deployments.forwardDeploymentSettings(projectId)).enabled) return outdated;
  const last = await stores.deployments.lastSuccessful(candidates.map((deployment) => deployment.environment_id));
  for (const deployment of candidates) {
    if (deployment.job_id !== null && isOlderThanLastSuccessful(deployment, last.get(deployment.environment_id))) outdated.add(deployment.job_id);
  }
  return outdated;
}

/**
 * A pipeline retry's jobs its caller may not retry (GitLab's `can_be_retried?`): with forward
 * deployment on and rollbacks refused, the failed or canceled jobs whose deployment is older
 * than their environment's last successful one. No read unless the project refuses rollbacks.
 */
export async function unretryableDeploymentJobIds(
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'lastSuccessful'>, settings: ForwardDeploymentSettings, pipelineId: number,
): Promise<number[]> {
  if (!settings.enabled || settings.rollbackAllowed) return [];
  const finished = (await deployments.listForPipeline(pipelineId)).filter((deployment) => deployment.job_id !== null && (deployment.status === 'failed' || deployment.status === 'canceled'));
  if (finished.length === 0) return [];
  const last = await deployments.lastSuccessful(finished.map((deployment) => deployment.environment_id));
  return finished.flatMap((deployment) => (deployment.job_id !== null && isOlderThanLastSuccessful(deployment, last.get(deployment.environment_id)) ? [deployment.job_id] : []));
}

/**
 * The jobs (builds or bridges) whose deployment is outdated (`hasOutdatedDeployment`), asked
 * for many at once: no read unless one has an environment in a project that prevents outdated
 * deployments; then each pipeline's deployments and their environments' last successful ones, once.
 */
export async function jobsWithOutdatedDeployment(
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'lastSuccessful'>,
  project: Pick<ProjectRecord, 'ci_forward_deployment_enabled' | 'ci_forward_deployment_rollback_allowed'>,
  jobs: readonly Pick<JobRecord, 'id' | 'pipeline_id' | 'environment' | 'status'>[],
): Promise<Set<number>> {
  const deploying = [...new Map(jobs.filter((job) => job.environment !== null).map((job) => [job.id, job])).values()];
  if (deploying.length === 0 || !project.ci_forward_deployment_enabled) return new Set();
  const pipelineIds = [...new Set(deploying.map((job) => job.pipeline_id))];
  const found = (await Promise.all(pipelineIds.map((id) => deployments.listForPipeline(id)))).flat();
  const byJob = new Map(found.flatMap((deployment) => (deployment.job_id === null ? [] : [[deployment.job_id, deployment] as const])));
  const environmentIds = [...new Set(deploying.flatMap((job) => byJob.get(job.id)?.environment_id ?? []))];
  if (environmentIds.length === 0) return new Set();
  const last = await deployments.lastSuccessful(environmentIds);
  const settings = { enabled: project.ci_forward_deployment_enabled, rollbackAllowed: project.ci_forward_deployment_rollback_allowed };
  return new Set(deploying.flatMap((job) => {
    const deployment = byJob.get(job.id);
    return deployment && hasOutdatedDeployment(settings, job.status, deployment, last.get(deployment.environment_id)) ? [job.id] : [];
  }));
}
