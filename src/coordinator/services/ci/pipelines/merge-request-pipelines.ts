import { GantryError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelineRecord } from '../../../../storage/types-ci.ts';
import type { MergeRequestPipelinesStore } from '../../../../storage/types-merge-request-pipelines.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import type { ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { MergeRequestInfo } from '../../../../ci/merge-request-variables.ts';
import { CHANGED_PATHS_NEEDED } from '../../../../ci/path-clauses.ts';
import type { MergeRequestObserver, MergeRequestRefreshed } from '../../planning/merge-requests/observers.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { PipelineCreation, PipelineCreationInput } from './creation.ts';
import type { MergeRequestInfos } from './merge-request-info.ts';
import { isNoPipelineRefusal } from './no-pipeline.ts';
import { completing } from './push.ts';

/** Task kind of a merge request pipeline due after a refresh (payload: MergeRequestPipelineTask). */
export const MERGE_REQUEST_PIPELINE_TASK = 'pipeline.create-for-merge-request';

export interface MergeRequestPipelineTask {
  mergeRequestId: number;
  /** The head the refresh saw: a request moved on since gets the pipeline of its next refresh. */
  sha: string;
  userId: number | null;
  /** The push's `ci.skip` option (GitLab passes push options to merge request pipelines since 15.1). */
  ciSkip?: true;
}

export interface MergeRequestPipelinesDeps {
  queue: { enqueue(task: NewTask): Promise<unknown> };
  creation: Pick<PipelineCreation, 'create'>;
  infos: Pick<MergeRequestInfos, 'of'>;
  mergeRequests: Pick<MergeRequestsStore, 'findByIds' | 'openBySource'>;
  requestPipelines: Pick<MergeRequestPipelinesStore, 'refreshHeadPipeline' | 'hasOwnPipelineAt'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  logger: Logger;
}

/**
 * Merge request pipelines (source `merge_request_event`), run in the target project on
 * `refs/merge-requests/<iid>/head`, and each request's head pipeline. A refresh that moved the
 * source leaves a durable task (the creation completes it in its transaction, as push
 * pipelines do); the CI file decides whether any job runs for merge requests.
 */
export class MergeRequestPipelines implements MergeRequestObserver {
  constructor(private readonly deps: MergeRequestPipelinesDeps) {}

  async mergeRequestRefreshed(refreshed: MergeRequestRefreshed): Promise<void> {
    const request = refreshed.mergeRequest;
    if (refreshed.sourceMoved && request.state === 'opened' && request.head_sha !== null) {
      const payload: MergeRequestPipelineTask = { mergeRequestId: request.id, sha: request.head_sha, userId: refreshed.actor?.id ?? null, ...(refreshed.ciSkip === true ? { ciSkip: true as const } : {}) };
      await this.deps.queue.enqueue({ kind: MERGE_REQUEST_PIPELINE_TASK, payload, maxAttempts: 10, dedupeKey: `${MERGE_REQUEST_PIPELINE_TASK}:${request.id}:${request.head_sha}` });
    }
    // The branch pipeline of the new head may exist already.
    await this.deps.requestPipelines.refreshHeadPipeline(request.id);
  }

  handler(): TaskHandler {
    return async (task) => {
      const due = task.payload as MergeRequestPipelineTask;
      const [request] = await this.deps.mergeRequests.findByIds([due.mergeRequestId]);
      if (!request || request.state !== 'opened' || request.head_sha !== due.sha) return;
      // A task run again after its pipeline was saved finds it (GitLab: no duplicate on a retried refresh).
      if (await this.deps.requestPipelines.hasOwnPipelineAt(request.id, due.sha)) return;
      const project = await this.deps.projects.findById(request.project_id);
      if (!project || project.pending_delete) return;
      const user = due.userId === null ? null : ((await this.deps.users.findById(due.userId)) ?? null);
      try {
        await this.deps.creation.create({ ...(await this.inputFor(project, request, user)), saveOnErrors: true, skipCi: due.ciSkip === true, inTransaction: completing(task) });
      } catch (error) {
        if (!isNoPipelineRefusal(error)) throw error;
        this.deps.logger.info({ project: project.id, mergeRequest: request.iid, sha: due.sha, code: error.code, reason: error.message }, 'merge request creates no pipeline');
      }
      await this.deps.requestPipelines.refreshHeadPipeline(request.id);
    };
  }

  /**
   * `POST .../merge_requests/:iid/pipelines`: a pipeline now, even when one exists for the head;
   * refusals (no job for merge requests, no permission) are the creation's 400s.
   */
  async createNow(project: ProjectRecord, request: MergeRequestRecord, user: UserRecord): Promise<PipelineRecord> {
    if (request.head_sha === null || request.state !== 'opened' || request.head_sha === request.base_sha) throw new GantryError('GANTRY_E_MERGE_REQUEST_PIPELINE_REFUSED', 'Cannot create a pipeline for this merge request.');
    const pipeline = await this.deps.creation.create({ ...(await this.inputFor(project, request, user)), saveOnErrors: false });
    await this.deps.requestPipelines.refreshHeadPipeline(request.id);
    return pipeline;
  }

  /**
   * After a branch pipeline is saved: the requests from that branch whose head it built take it
   * as head pipeline (unless they have their own). A child pipeline is never one: it changes
   * nothing (and a refresh of its own could race the request pipeline's on PostgreSQL).
   */
  async branchPipelineCreated(pipeline: PipelineRecord): Promise<void> {
    if (pipeline.tag || pipeline.merge_request_id !== null || pipeline.source === 'parent_pipeline') return;
    for (const request of await this.deps.mergeRequests.openBySource(pipeline.project_id, pipeline.ref)) {
      if (request.head_sha === pipeline.sha) await this.deps.requestPipelines.refreshHeadPipeline(request.id);
    }
  }

  /** The request a job's pipeline ran for, as its payload shows it; undefined for other pipelines. */
  async infoForPipeline(pipeline: Pick<PipelineRecord, 'merge_request_id'>): Promise<MergeRequestInfo | undefined> {
    if (pipeline.merge_request_id === null) return undefined;
    const [request] = await this.deps.mergeRequests.findByIds([pipeline.merge_request_id]);
    const project = request && (await this.deps.projects.findById(request.project_id));
    return request && project ? this.deps.infos.of(request, project) : undefined;
  }

  /** The creation input of a pipeline for the request's head (`runner exec` makes its own request's pipeline with it). */
  async inputFor(project: ProjectRecord, request: MergeRequestRecord, user: UserRecord | null): Promise<Omit<PipelineCreationInput, 'saveOnErrors'>> {
    const info = await this.deps.infos.of(request, project);
    return {
      project,
      ref: info.refPath,
      sha: request.head_sha ?? undefined,
      source: 'merge_request_event',
      user,
      changedPaths: await this.changedPaths(project, request),
      mergeRequest: info,
    };
  }

  /** `rules:changes` of a merge request pipeline: the request's diff, from the merge base (GitLab's diff_base_sha). */
  private async changedPaths(project: ProjectRecord, request: MergeRequestRecord): Promise<string[] | null> {
    if (request.base_sha === null || request.head_sha === null || !(await this.deps.repositories.exists(project.id))) return null;
    return this.deps.repositories.open(project.id).changedPaths(request.base_sha, request.head_sha, CHANGED_PATHS_NEEDED);
  }
}
