import type { CoordinatorContext } from './context.ts';
import { PipelineCreation } from './services/pipelines/creation.ts';
import { PipelineProcessing, SCHEDULED_TIME_TASK, scheduledTimeHandler } from './services/pipelines/processing.ts';
import { PUSH_PIPELINE_TASK, PushPipelines } from './services/pipelines/push.ts';
import { CiLint } from './services/pipelines/lint.ts';
import { PipelineRuns } from './services/pipelines/runs.ts';
import { SCHEDULE_PIPELINE_TASK, SchedulePipelines } from './services/pipelines/schedules.ts';
import { TaskQueue, TaskWorker } from './services/task-queue.ts';

/** How the CI background work runs (tests shorten the intervals). */
export interface CiRuntimeOptions {
  /** Task worker poll interval when idle (default 1 s; in-process enqueues wake it at once). */
  taskPollIntervalMs?: number;
  /** How often due pipeline schedules are looked for (default 10 s). */
  scheduleIntervalMs?: number;
  /**
   * Run queued tasks and schedules in this process (default true). False leaves them to other
   * coordinators on the same database; pushes still record their tasks.
   */
  runTasks?: boolean;
}

/** The CI area's services (pipelines, jobs, statuses, settings), each with its narrow dependencies. */
export function buildCiServices(context: CoordinatorContext, options: CiRuntimeOptions = {}) {
  const { stores, lookup, permissions, repositories, logger } = context;
  let wakeWorker: () => void = () => {};
  const taskQueue = new TaskQueue(stores.tasks, () => wakeWorker());
  const pipelineProcessing = new PipelineProcessing({ transactions: stores.ciTransactions });
  const pipelineCreation = new PipelineCreation({
    repositories,
    lookup,
    permissions,
    namespaces: stores.namespaces,
    projectVariables: stores.projectVariables,
    groupVariables: stores.groupVariables,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    transactions: stores.ciTransactions,
    processing: pipelineProcessing,
  });
  const pipelineRuns = new PipelineRuns({ creation: pipelineCreation, lookup, permissions, triggers: stores.triggers, users: stores.users, namespaces: stores.namespaces });
  const pushPipelines = new PushPipelines({ queue: taskQueue, creation: pipelineCreation, projects: stores.projects, users: stores.users, repositories, logger });
  const schedulePipelines = new SchedulePipelines({
    schedules: stores.schedules, queue: taskQueue, creation: pipelineCreation, projects: stores.projects, users: stores.users, lookup, permissions, logger,
  });
  const ciLint = new CiLint({ creation: pipelineCreation, lookup, permissions });
  const taskWorker = new TaskWorker(stores.tasks, {
    handlers: {
      [PUSH_PIPELINE_TASK]: pushPipelines.handler(),
      [SCHEDULE_PIPELINE_TASK]: schedulePipelines.handler(),
      [SCHEDULED_TIME_TASK]: scheduledTimeHandler(pipelineProcessing),
    },
    logger,
    pollIntervalMs: options.taskPollIntervalMs,
  });
  wakeWorker = () => taskWorker.wake();

  /** Background work: pushes' pipelines, delayed jobs and schedules through the durable task queue. */
  const ciRuntime = {
    start(): void {
      context.events.onPushRecorded((push) => pushPipelines.record(push));
      if (options.runTasks === false) return;
      taskWorker.start();
      schedulePipelines.start(options.scheduleIntervalMs ?? 10_000);
    },
    async stop(): Promise<void> {
      await schedulePipelines.stop();
      await taskWorker.stop(5_000);
    },
  };
  return { pipelineProcessing, pipelineCreation, pipelineRuns, ciLint, pushPipelines, schedulePipelines, taskQueue, taskWorker, ciRuntime };
}

export type CiServices = ReturnType<typeof buildCiServices>;
