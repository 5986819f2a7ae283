import { CHANGED_PATHS_NEEDED } from '../../../../ci/path-clauses.ts';
import { ZERO_SHA } from '../../../../ci/pipeline-variables.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { PipelineRecord } from '../../../../storage/types-ci.ts';
import type { NewTask, TaskRecord } from '../../../../storage/types-tasks.ts';
import type { ProjectsStore, UsersStore } from '../../../../storage/types.ts';
import type { PushEvent } from '../../events.ts';
import type { TaskHandler } from '../../task-queue.ts';
import { isNoPipelineRefusal } from './no-pipeline.ts';
import type { PipelineCreation, PipelineCreationInput } from './creation.ts';

/** Task kind of a push's pipeline (payload: PushPipelineTask). */
export const PUSH_PIPELINE_TASK = 'pipeline.create-for-push';

export interface PushPipelineTask {
  projectId: number;
  /** Full ref: refs/heads/… or refs/tags/…. */
  ref: string;
  before: string;
  after: string;
  userId: number | null;
  /** The push's `ci.skip` option. */
  ciSkip?: true;
}

export interface PushPipelinesDeps {
  queue: { enqueue(task: NewTask): Promise<unknown> };
  creation: Pick<PipelineCreation, 'create'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  logger: Logger;
  /** After a pipeline is saved (outside its transaction): merge requests from the branch take it as head pipeline. */
  afterCreate?: (pipeline: PipelineRecord) => Promise<void>;
}

/**
 * Pipelines for pushes. `record` runs before the push is acknowledged and leaves a durable
 * task; the task's handler creates the pipeline and completes the task in the same
 * transaction, so a task that runs again (a crash, a lost lease) never creates a second one.
 */
export class PushPipelines {
  constructor(private readonly deps: PushPipelinesDeps) {}

  async record(push: PushEvent): Promise<void> {
    if (push.after === ZERO_SHA || !/^refs\/(heads|tags)\//.test(push.ref)) return;
    const payload: PushPipelineTask = { projectId: push.project_id, ref: push.ref, before: push.before, after: push.after, userId: push.user_id, ...(push.ci_skip === true ? { ciSkip: true as const } : {}) };
    await this.deps.queue.enqueue({ kind: PUSH_PIPELINE_TASK, payload, maxAttempts: 10, dedupeKey: `${PUSH_PIPELINE_TASK}:${push.project_id}:${push.ref}:${push.after}` });
  }

  handler(): TaskHandler {
    return async (task) => {
      const push = task.payload as PushPipelineTask;
      const project = await this.deps.projects.findById(push.projectId);
      if (!project || project.pending_delete) return;
      const user = push.userId === null ? null : ((await this.deps.users.findById(push.userId)) ?? null);
      const input: PipelineCreationInput = {
        project,
        ref: push.ref,
        sha: push.after,
        source: 'push',
        user,
        beforeSha: push.before,
        changedPaths: await this.changedPaths(push),
        saveOnErrors: true,
        skipCi: push.ciSkip === true,
        inTransaction: completing(task),
      };
      try {
        const pipeline = await this.deps.creation.create(input);
        await this.deps.afterCreate?.(pipeline);
      } catch (error) {
        if (!isNoPipelineRefusal(error)) throw error;
        this.deps.logger.info({ project: push.projectId, ref: push.ref, sha: push.after, code: error.code, reason: error.message }, 'push creates no pipeline');
      }
    };
  }

  /** A new branch or a tag: unknown, so `changes` always matches (as GitLab does); else the diff of the push, read as far as `changes` needs. */
  private async changedPaths(push: PushPipelineTask): Promise<string[] | null> {
    if (push.before === ZERO_SHA || push.ref.startsWith('refs/tags/')) return null;
    if (!(await this.deps.repositories.exists(push.projectId))) return null;
    return this.deps.repositories.open(push.projectId).changedPaths(push.before, push.after, CHANGED_PATHS_NEEDED);
  }
}

/** Completes the task inside the creating transaction; a task whose lease went elsewhere rolls the creation back. */
export function completing(task: TaskRecord): PipelineCreationInput['inTransaction'] {
  return async (stores) => {
    if (task.locked_by === null) return;
    if (!(await stores.tasks.complete(task.id, task.locked_by))) throw new Error(`task ${task.id} is no longer held by this worker`);
  };
}
