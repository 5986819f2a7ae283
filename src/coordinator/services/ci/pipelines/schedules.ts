import { Cron } from 'croner';
import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import type { SchedulesStore } from '../../../../storage/types-ci-settings.ts';
import type { NewTask } from '../../../../storage/types-tasks.ts';
import type { ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';
import type { RefWriteAccess } from '../../repository/ref-write-access.ts';
import type { TaskHandler } from '../../task-queue.ts';
import { isNoPipelineRefusal } from './no-pipeline.ts';
import type { PipelineCreation } from './creation.ts';
import { completing } from './push.ts';

/** Task kind of one scheduled run (payload: SchedulePipelineTask). */
export const SCHEDULE_PIPELINE_TASK = 'pipeline.create-for-schedule';

export interface SchedulePipelineTask {
  projectId: number;
  scheduleId: number;
  /** Who played the schedule: the run is theirs. Absent for due runs, which are the owner's. */
  playerId?: number;
}

/** The next time `cron` fires after `after`, read in `timeZone` (IANA); null for a pattern or zone croner refuses. */
export function nextCronRun(cron: string, timeZone: string, after: Date): Date | null {
  try {
    return new Cron(cron, { timezone: timeZone || 'UTC', paused: true }).nextRun(after);
  } catch {
    return null;
  }
}

export interface SchedulePipelinesDeps {
  schedules: Pick<SchedulesStore, 'listDue' | 'advance' | 'findInProject' | 'listVariables' | 'update'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  creation: Pick<PipelineCreation, 'create'>;
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canPlayPipelineSchedule'>;
  refs: Pick<RefWriteAccess, 'scheduleRefWritable'>;
  logger: Logger;
  /** Epoch milliseconds. */
  clock?: () => number;
}

/**
 * Pipeline schedules: `tick` moves each due schedule's next_run_at on (a compare-and-swap, so
 * one coordinator of several wins) and leaves a durable task for the winner; the task creates
 * the pipeline (source `schedule`, the schedule's variables, its owner as user; a played one
 * as its player, like GitLab's RunPipelineScheduleWorker) and completes in the same
 * transaction.
 */
export class SchedulePipelines {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private readonly clock: () => number;

  constructor(private readonly deps: SchedulePipelinesDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async tick(limit = 100): Promise<number> {
    const now = new Date(this.clock());
    let started = 0;
    for (const schedule of await this.deps.schedules.listDue(now.toISOString(), limit)) {
      if (schedule.next_run_at === null) continue;
      const next = nextCronRun(schedule.cron, schedule.cron_timezone, now);
      if (!(await this.deps.schedules.advance(schedule.id, schedule.next_run_at, next?.toISOString() ?? null, now.toISOString()))) continue;
      await this.enqueue(schedule.project_id, schedule.id, `${SCHEDULE_PIPELINE_TASK}:${schedule.id}:${schedule.next_run_at}`);
      started++;
    }
    return started;
  }

  /**
   * `POST /projects/:id/pipeline_schedules/:id/play`: a run now, as the player, for who may run
   * pipelines in the project and update the schedule's ref (`play_pipeline_schedule`).
   */
  async play(projectRef: string, actor: UserRecord, scheduleId: number): Promise<void> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const schedule = await this.deps.schedules.findInProject(project.id, scheduleId);
    if (!schedule) throw new GantryError('GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND');
    const refWritable = await this.deps.refs.scheduleRefWritable(project, actor, schedule.ref);
    if (!(await this.deps.permissions.canPlayPipelineSchedule(project, actor, refWritable))) throw accessDenied();
    await this.enqueue(project.id, schedule.id, `${SCHEDULE_PIPELINE_TASK}:${schedule.id}:play:${actor.id}`, actor.id);
  }

  handler(): TaskHandler {
    return async (task) => {
      const { projectId, scheduleId, playerId } = task.payload as SchedulePipelineTask;
      const project = await this.deps.projects.findById(projectId);
      const schedule = project && !project.pending_delete ? await this.deps.schedules.findInProject(projectId, scheduleId) : undefined;
      if (!project || !schedule) return;
      const runAs = playerId ?? schedule.owner_id;
      // Creation checks the run's user again (Developer, protected ref); a played run whose player is gone gets no pipeline.
      const user = runAs === null ? null : ((await this.deps.users.findById(runAs)) ?? null);
      if (playerId !== undefined && !user) return;
      const variables = await this.deps.schedules.listVariables(schedule.id);
      try {
        const pipeline = await this.deps.creation.create({
          project, ref: schedule.ref, source: 'schedule', user, variables, scheduleId: schedule.id, saveOnErrors: true, ignoreSkipCi: true, inTransaction: completing(task),
        });
        await this.deps.schedules.update(schedule.id, { last_pipeline_id: pipeline.id, updated_at: new Date(this.clock()).toISOString() });
      } catch (error) {
        if (!isNoPipelineRefusal(error)) throw error;
        this.deps.logger.info({ project: projectId, schedule: scheduleId, code: error.code, reason: error.message }, 'scheduled run creates no pipeline');
      }
    };
  }

  /** Ticks every `intervalMs` until stopped. */
  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.ticking ??= this.tick()
        .then(() => undefined, (error: unknown) => this.deps.logger.warn({ err: error }, 'pipeline schedule tick failed'))
        .finally(() => (this.ticking = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  private async enqueue(projectId: number, scheduleId: number, dedupeKey: string, playerId?: number): Promise<void> {
    const payload: SchedulePipelineTask = playerId === undefined ? { projectId, scheduleId } : { projectId, scheduleId, playerId };
    await this.deps.queue.enqueue({ kind: SCHEDULE_PIPELINE_TASK, payload, dedupeKey });
  }
}
