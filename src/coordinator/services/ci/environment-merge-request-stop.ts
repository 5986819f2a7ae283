import type { PipelinesStore } from '../../../storage/types-ci.ts';
import type { DeploymentsStore, EnvironmentRecord, EnvironmentsStore } from '../../../storage/types-environments.ts';
import type { MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { Permissions } from '../access/permissions.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestSaved } from '../planning/merge-requests/observers.ts';
import type { TaskHandler } from '../task-queue.ts';
import { stopEnvironments } from './environment-branch-stop.ts';
import type { EnvironmentStopAction } from './environment-stop.ts';

export const MERGE_REQUEST_ENVIRONMENTS_STOP_TASK = 'environments.stop-for-merge-request';

interface MergeRequestStopTask {
  mergeRequestId: number;
  userId: number;
}

export interface EnvironmentMergeRequestStopDeps {
  mergeRequests: Pick<MergeRequestsStore, 'findByIds'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  environments: Pick<EnvironmentsStore, 'findInProject' | 'update'>;
  deployments: Pick<DeploymentsStore, 'listForPipeline'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  permissions: Pick<Permissions, 'canManageEnvironments'>;
  stopAction: Pick<EnvironmentStopAction, 'play'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
}

/**
 * Merging or closing a merge request stops the environments its head pipeline deployed
 * (GitLab's `Environments::StopService#execute_for_merge_request_pipeline`, called by
 * PostMergeService and CloseService): only when the head pipeline is a merge request pipeline,
 * each environment one of its jobs deployed successfully is stopped as the merger or closer, in
 * the source project, when they may stop environments there, as a deleted branch's are. The
 * merge or close leaves a durable task; the task does the work.
 */
export class EnvironmentMergeRequestStop implements MergeRequestObserver {
  constructor(private readonly deps: EnvironmentMergeRequestStopDeps) {}

  async mergeRequestMerged(merged: MergeRequestMerged): Promise<void> {
    await this.record(merged.mergeRequest.id, merged.actor.id, 'merged', merged.at);
  }

  async mergeRequestSaved(change: MergeRequestSaved): Promise<void> {
    if (change.before?.record.state !== 'opened' || change.after.record.state !== 'closed') return;
    await this.record(change.after.record.id, change.actor.id, 'closed', change.at);
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
    // GitLab's `diff_head_pipeline&.merge_request?`: the head's own pipeline, of a merge request event.
    if (!project || !pipeline || pipeline.source !== 'merge_request_event' || pipeline.sha !== mergeRequest.head_sha) return [];
    if (!(await deps.permissions.canManageEnvironments(project, user))) return [];
    return stopEnvironments(deps, user, await this.deployedBy(project.id, pipeline.id));
  }

  private async record(mergeRequestId: number, userId: number, event: string, at: string): Promise<void> {
    const payload: MergeRequestStopTask = { mergeRequestId, userId };
    await this.deps.queue.enqueue({
      kind: MERGE_REQUEST_ENVIRONMENTS_STOP_TASK, payload, maxAttempts: 5, dedupeKey: `${MERGE_REQUEST_ENVIRONMENTS_STOP_TASK}:${mergeRequestId}:${event}:${at}`,
    });
  }

  /** The project's available environments that one of the pipeline's jobs deployed successfully. */
  private async deployedBy(projectId: number, pipelineId: number): Promise<EnvironmentRecord[]> {
    const deployments = await this.deps.deployments.listForPipeline(pipelineId);
    const environmentIds = [...new Set(deployments.filter((deployment) => deployment.status === 'success').map((deployment) => deployment.environment_id))];
    const found: EnvironmentRecord[] = [];
    for (const id of environmentIds) {
      const environment = await this.deps.environments.findInProject(projectId, id);
      if (environment?.state === 'available') found.push(environment);
    }
    return found;
  }
}
