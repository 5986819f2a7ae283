import type { PipelinesStore, PipelineRecord } from '../../../storage/types-ci.ts';
import type { CiJobsStore } from '../../../storage/types-ci-jobs.ts';
import type { DeploymentStatus, DeploymentsStore, EnvironmentRecord, EnvironmentsStore } from '../../../storage/types-environments.ts';
import type { MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { Permissions } from '../access/permissions.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestSaved } from '../planning/merge-requests/observers.ts';
import type { TaskHandler } from '../task-queue.ts';
import { stopEnvironments } from './environment-branch-stop.ts';
import type { EnvironmentStopAction } from './environment-stop.ts';
import { MAX_NESTED_CHILDREN } from './pipelines/downstream-target.ts';
import type { PipelineProcessing } from './pipelines/processing.ts';

export const MERGE_REQUEST_ENVIRONMENTS_STOP_TASK = 'environments.stop-for-merge-request';

interface MergeRequestStopTask {
  mergeRequestId: number;
  userId: number;
  /** A merge (not a close) cancels the review apps' deployment jobs first. */
  merged?: boolean;
}

export interface EnvironmentMergeRequestStopDeps {
  mergeRequests: Pick<MergeRequestsStore, 'findByIds'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'listBySourceJobs'>;
  environments: Pick<EnvironmentsStore, 'findInProject' | 'update' | 'listCreatedByMergeRequest'>;
  deployments: Pick<DeploymentsStore, 'listForPipeline' | 'listActive'>;
  jobs: Pick<CiJobsStore, 'findByIds' | 'list'>;
  processing: Pick<PipelineProcessing, 'apply'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  permissions: Pick<Permissions, 'canManageEnvironments'>;
  stopAction: Pick<EnvironmentStopAction, 'play'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
}

/**
 * Merging or closing a merge request stops its environments (GitLab's
 * `Environments::StopService#execute_for_merge_request_pipeline`, called by PostMergeService and
 * CloseService): only when the head pipeline is a merge request pipeline, the available
 * environments the request's merge request pipelines created or, when they created none, those
 * one of the head pipeline's jobs deployed successfully are stopped as the merger or closer, in
 * the source project, when they may stop environments there, as a deleted branch's are. Before
 * that, a merge (PostMergeService; not a close) cancels the review apps' deployment jobs still
 * to finish (GitLab's `cancel_review_app_jobs!`): those of every available `review/`
 * environment the head pipeline deploys to, whatever its source. The merge or close leaves a
 * durable task; the task does the work.
 */
export class EnvironmentMergeRequestStop implements MergeRequestObserver {
  constructor(private readonly deps: EnvironmentMergeRequestStopDeps) {}

  async mergeRequestMerged(merged: MergeRequestMerged): Promise<void> {
    await this.record({ mergeRequestId: merged.mergeRequest.id, userId: merged.actor.id, merged: true }, 'merged', merged.at);
  }

  async mergeRequestSaved(change: MergeRequestSaved): Promise<void> {
    if (change.before?.record.state !== 'opened' || change.after.record.state !== 'closed') return;
    await this.record({ mergeRequestId: change.after.record.id, userId: change.actor.id }, 'closed', change.at);
  }

  handler(): TaskHandler {
    return (task) => this.stopForMergeRequest(task.payload as MergeRequestStopTask).then(() => undefined);
  }

  /** Stops the environments; answers their ids. Runs again without harm (stopped ones are skipped). */
  async stopForMergeRequest(task: MergeRequestStopTask): Promise<number[]> {
    const { deps } = this;
    const [[mergeRequest], user] = await Promise.all([deps.mergeRequests.findByIds([task.mergeRequestId]), deps.users.findById(task.userId)]);
    if (!mergeRequest || mergeRequest.source_project_id === null || mergeRequest.head_pipeline_id === null || !user) return [];
    const [project, pipeline] = await Promise.all([deps.projects.findById(mergeRequest.source_project_id), deps.pipelines.findById(mergeRequest.head_pipeline_id)]);
    // GitLab's `diff_head_pipeline`: the pipeline of the request's head commit.
    if (!project || !pipeline || pipeline.sha !== mergeRequest.head_sha) return [];
    if (task.merged === true) await this.cancelReviewAppJobs(project.id, pipeline, user.id);
    // `diff_head_pipeline&.merge_request?`: the environments are stopped for a merge request event's pipeline only.
    if (pipeline.source !== 'merge_request_event') return [];
    if (!(await deps.permissions.canManageEnvironments(project, user))) return [];
    // GitLab stops the environments the request's pipelines created, else those its head pipeline deployed.
    const created = await deps.environments.listCreatedByMergeRequest(project.id, mergeRequest.id);
    const available = created.filter((environment) => environment.state === 'available');
    return stopEnvironments(deps, user, created.length > 0 ? available : await this.deployedBy(project.id, pipeline.id));
  }

  private async record(payload: MergeRequestStopTask, event: string, at: string): Promise<void> {
    await this.deps.queue.enqueue({
      kind: MERGE_REQUEST_ENVIRONMENTS_STOP_TASK, payload, maxAttempts: 5, dedupeKey: `${MERGE_REQUEST_ENVIRONMENTS_STOP_TASK}:${payload.mergeRequestId}:${event}:${at}`,
    });
  }

  /**
   * Cancels the jobs of the active deployments (created or running, any pipeline's) of each
   * available review app the pipeline or one of its child pipelines deploys to (GitLab's
   * `environments_in_head_pipeline`), as GitLab's `cancel_deployment_jobs!` does.
   */
  private async cancelReviewAppJobs(projectId: number, pipeline: PipelineRecord, userId: number): Promise<void> {
    const environments = new Map<number, EnvironmentRecord>();
    for (const pipelineId of await this.selfAndProjectDescendants(pipeline)) {
      for (const environment of await this.environmentsOf(projectId, pipelineId, () => true)) environments.set(environment.id, environment);
    }
    const reviewApps = [...environments.values()].filter((environment) => environment.name.startsWith('review/'));
    const active = await this.deps.deployments.listActive(reviewApps.map((environment) => environment.id));
    const jobs = await this.deps.jobs.findByIds(active.flatMap((deployment) => (deployment.job_id === null ? [] : [deployment.job_id])));
    const byPipeline = new Map<number, number[]>();
    for (const job of jobs) byPipeline.set(job.pipeline_id, [...(byPipeline.get(job.pipeline_id) ?? []), job.id]);
    for (const [pipelineId, jobIds] of byPipeline) await this.deps.processing.apply(pipelineId, { type: 'cancel-jobs', jobIds }, { userId });
  }

  /**
   * The pipeline and its child pipelines in its project, theirs too (GitLab's
   * `self_and_project_descendants`), as deep as children nest (MAX_NESTED_CHILDREN).
   */
  private async selfAndProjectDescendants(pipeline: PipelineRecord): Promise<number[]> {
    const ids = [pipeline.id];
    let level = [pipeline.id];
    for (let depth = 0; depth < MAX_NESTED_CHILDREN && level.length > 0; depth++) {
      const bridges = await Promise.all(level.map((pipelineId) => this.deps.jobs.list({ pipelineId, types: ['bridge'], includeRetried: true }, { offset: 0, limit: 10_000 })));
      const children = await this.deps.pipelines.listBySourceJobs(bridges.flatMap((page) => page.items.map((bridge) => bridge.id)));
      level = children.filter((child) => child.project_id === pipeline.project_id && child.source === 'parent_pipeline').map((child) => child.id);
      ids.push(...level);
    }
    return ids;
  }

  /** The project's available environments that one of the pipeline's jobs deployed successfully. */
  private deployedBy(projectId: number, pipelineId: number): Promise<EnvironmentRecord[]> {
    return this.environmentsOf(projectId, pipelineId, (status) => status === 'success');
  }

  /** The project's available environments of the pipeline's deployments whose status `counts`. */
  private async environmentsOf(projectId: number, pipelineId: number, counts: (status: DeploymentStatus) => boolean): Promise<EnvironmentRecord[]> {
    const deployments = await this.deps.deployments.listForPipeline(pipelineId);
    const environmentIds = [...new Set(deployments.filter((deployment) => counts(deployment.status)).map((deployment) => deployment.environment_id))];
    const found: EnvironmentRecord[] = [];
    for (const id of environmentIds) {
      const environment = await this.deps.environments.findInProject(projectId, id);
      if (environment?.state === 'available') found.push(environment);
    }
    return found;
  }
}
