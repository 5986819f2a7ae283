import { GantryError } from '../../../../shared/errors.ts';
import type { PipelineRecord, PipelinesStore } from '../../../../storage/types-ci.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import type { ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { TaskHandler } from '../../task-queue.ts';
import type { SystemNotes } from '../system-notes.ts';
import type { MergeOptions, MergeService } from './merge.ts';
import { headPipelineOf, notMergeable, openAndReady, updateWhile } from './merge-rules.ts';
import type { VisibleMergeRequests } from './visible.ts';

/** Task kind of a finished pipeline whose waiting merges are due (payload: AutoMergeTask). */
export const AUTO_MERGE_TASK = 'merge-requests.auto-merge';

export interface AutoMergeTask {
  pipelineId: number;
}

/** Statuses after which a pipeline changes no more (without a retry). */
const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

export interface AutoMergeDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  merges: Pick<MergeService, 'assertCanMerge' | 'check' | 'mergeChecked' | 'mergeCheckedIf' | 'canMerge'>;
  mergeRequests: Pick<MergeRequestsStore, 'openBySource' | 'findByIds' | 'findByIid' | 'updateIfUnchanged' | 'update'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  systemNotes: Pick<SystemNotes, 'add'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
}

/**
 * Merge when pipeline succeeds (GitLab's AutoMerge::MergeWhenPipelineSucceedsService): a merge
 * asked for while the head pipeline runs is stored on the request (merge_params, merge_user_id);
 * when that pipeline finishes, a durable task merges it (success) or drops it (anything else).
 * The merge compares the pipeline with what the task read once the merge lock is held.
 */
export class AutoMerge {
  constructor(private readonly deps: AutoMergeDeps) {}

  /**
   * `PUT .../merge` with merge_when_pipeline_succeeds: waits while the head pipeline is
   * active; with no active pipeline it is an ordinary merge, as in GitLab.
   */
  async mergeWhenPipelineSucceeds(projectRef: string, actor: UserRecord, iid: number, options: MergeOptions): Promise<MergeRequestRecord> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    await this.deps.merges.assertCanMerge(project, actor, mergeRequest);
    const tips = await this.deps.merges.check(project, mergeRequest, options, true);
    const pipeline = await headPipelineOf(this.deps.pipelines, mergeRequest, tips.sourceSha);
    if (!pipeline || FINISHED.has(pipeline.status)) {
      await this.deps.merges.check(project, mergeRequest, options, false);
      return this.deps.merges.mergeChecked(project, mergeRequest, actor, options);
    }
    const waiting = await updateWhile(this.deps.mergeRequests, mergeRequest, openAndReady, {
      merge_when_pipeline_succeeds: true,
      merge_user_id: actor.id,
      merge_params: { ...options, sha: options.sha ?? tips.sourceSha },
      updated_at: new Date().toISOString(),
    });
    if (!waiting) throw notMergeable();
    if (!mergeRequest.merge_when_pipeline_succeeds) {
      await this.note(waiting, actor.id, `enabled an automatic merge when the pipeline for ${tips.sourceSha} succeeds`);
    }
    return waiting;
  }

  /**
   * `POST .../cancel_merge_when_pipeline_succeeds`: the merger or whoever may merge may cancel;
   * null when no merge is waiting (an open request not set, a merged or closed one), which
   * GitLab answers as its auto-merge service's error, not as a failed request.
   */
  async cancel(projectRef: string, actor: UserRecord, iid: number): Promise<MergeRequestRecord | null> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    if (mergeRequest.merge_user_id !== actor.id && !(await this.deps.merges.canMerge(project, actor, mergeRequest))) throw new GantryError('GANTRY_E_MERGE_NOT_PERMITTED');
    if (!mergeRequest.merge_when_pipeline_succeeds || mergeRequest.state !== 'opened') return null;
    const canceled = await this.drop(mergeRequest);
    if (!canceled) return null;
    await this.note(canceled, actor.id, 'canceled the automatic merge');
    return canceled;
  }

  /** After a pipeline's status changed: a finished one with merges waiting for it leaves a task. */
  async recordPipelineFinished(pipeline: PipelineRecord): Promise<void> {
    if (!FINISHED.has(pipeline.status) || pipeline.tag) return;
    if ((await this.waitingOn(pipeline)).length === 0) return;
    await this.deps.queue.enqueue({ kind: AUTO_MERGE_TASK, payload: { pipelineId: pipeline.id } satisfies AutoMergeTask, maxAttempts: 5, dedupeKey: `${AUTO_MERGE_TASK}:${pipeline.id}:${pipeline.status}` });
  }

  handler(): TaskHandler {
    return (task) => this.process(task.payload as AutoMergeTask);
  }

  /** Merges or drops each request waiting on this pipeline; runs again harmlessly (a merged or dropped request no longer waits). */
  async process({ pipelineId }: AutoMergeTask): Promise<void> {
    const pipeline = await this.deps.pipelines.findById(pipelineId);
    if (!pipeline || !FINISHED.has(pipeline.status)) return;
    for (const mergeRequest of await this.waitingOn(pipeline)) {
      const project = await this.deps.projects.findById(mergeRequest.project_id);
      if (!project) continue;
      const head = await headPipelineOf(this.deps.pipelines, mergeRequest, pipeline.sha);
      // A pipeline of an older commit (or an older pipeline of this one) decides nothing.
      if (head?.id !== pipeline.id || (mergeRequest.merge_params?.sha !== undefined && mergeRequest.merge_params.sha !== pipeline.sha)) continue;
      if (pipeline.status === 'success') await this.mergeWaiting(project, mergeRequest, pipeline);
      else await this.abort(mergeRequest, 'the pipeline did not succeed');
    }
  }

  /**
   * Whether `read` (a successful pipeline) is still as read: the same status at the same version.
   * A pipeline retried or failed since leaves the request waiting; its next finished status
   * queues a task of its own, which merges or drops it.
   */
  async pipelineUnchanged(read: PipelineRecord): Promise<boolean> {
    const now = await this.deps.pipelines.findById(read.id);
    return now?.status === read.status && now.lock_version === read.lock_version;
  }

  /** Open requests waiting to merge whose source this pipeline ran for: a branch pipeline, or a merge request pipeline. */
  private async waitingOn(pipeline: PipelineRecord): Promise<MergeRequestRecord[]> {
    const candidates =
      pipeline.merge_request_id === null
        ? await this.deps.mergeRequests.openBySource(pipeline.project_id, pipeline.ref)
        : await this.deps.mergeRequests.findByIds([pipeline.merge_request_id]);
    return candidates.filter((request) => request.state === 'opened' && request.merge_when_pipeline_succeeds);
  }

  /** Merges a request waiting on `pipeline` (read as successful), unless that pipeline changed once the merge lock is held. */
  async mergeWaiting(project: ProjectRecord, mergeRequest: MergeRequestRecord, pipeline: PipelineRecord): Promise<void> {
    const merger = mergeRequest.merge_user_id === null ? undefined : await this.deps.users.findById(mergeRequest.merge_user_id);
    if (!merger || merger.state !== 'active' || !(await this.deps.merges.canMerge(project, merger, mergeRequest))) {
      await this.abort(mergeRequest, 'the user who set it may no longer merge');
      return;
    }
    const options = mergeRequest.merge_params ?? {};
    try {
      await this.deps.merges.check(project, mergeRequest, options, false);
      await this.deps.merges.mergeCheckedIf(project, mergeRequest, merger, options, () => this.pipelineUnchanged(pipeline));
    } catch (error) {
      if (!(error instanceof GantryError)) throw error;
      await this.abort(mergeRequest, error.message === 'Method Not Allowed' ? 'the merge request cannot be merged' : error.message);
    }
  }

  private async abort(mergeRequest: MergeRequestRecord, reason: string): Promise<void> {
    const dropped = await this.drop(mergeRequest, reason);
    if (dropped && mergeRequest.merge_user_id !== null) await this.note(dropped, mergeRequest.merge_user_id, `aborted the automatic merge because ${reason}`);
  }

  private drop(mergeRequest: MergeRequestRecord, mergeError: string | null = null): Promise<MergeRequestRecord | undefined> {
    const stillWaiting = (current: MergeRequestRecord): boolean => current.state === 'opened' && current.merge_when_pipeline_succeeds;
    return updateWhile(this.deps.mergeRequests, mergeRequest, stillWaiting, {
      merge_when_pipeline_succeeds: false,
      merge_user_id: null,
      merge_params: null,
      merge_error: mergeError,
      updated_at: new Date().toISOString(),
    });
  }

  private async note(mergeRequest: MergeRequestRecord, authorId: number, body: string): Promise<void> {
    await this.deps.systemNotes.add({ type: 'MergeRequest', id: mergeRequest.id, project_id: mergeRequest.project_id }, authorId, body);
  }
}
