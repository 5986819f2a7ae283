import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isValidCron, isValidTimeZone, nextRunAt } from '../../../shared/cron-schedule.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { CiVariableType, PipelineRecord, PipelinesStore } from '../../../storage/types-ci.ts';
import type { ScheduleChanges, ScheduleRecord, SchedulesStore, ScheduleVariableRecord } from '../../../storage/types-ci-settings.ts';
import type { NamespacesStore, ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import { keyErrors, keyTaken, valueErrors, type FieldErrors } from './variable-rules.ts';
import { exceedsLength, tooLongMessage } from '../field-limits.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { ciProject } from './pipelines/job-views.ts';
import { checkScheduleVariableCount } from './pipelines/pipeline-variable-limits.ts';
import type { RefWriteAccess } from '../repository/ref-write-access.ts';
import type { Page, Paged } from '../repository/pages.ts';

export interface NewScheduleInput {
  description: string;
  ref: string;
  cron: string;
  cronTimezone?: string;
  active?: boolean;
}

export type ScheduleInputChanges = Partial<NewScheduleInput>;

export interface ScheduleVariableInput {
  key: string;
  value: string;
  variableType?: CiVariableType;
}

/** A schedule with its owner and, for single answers to those who may read them, its variables. */
export interface ScheduleView {
  schedule: ScheduleRecord;
  owner: UserRecord | null;
  variables?: ScheduleVariableRecord[];
  /** The single answer's newest pipeline of the schedule (absent in lists); null before its first run or once that pipeline is gone. */
  lastPipeline?: { pipeline: PipelineRecord; projectFullPath: string } | null;
}

/** `take_ownership`'s answer: the schedule, and whether the caller owned it already (GitLab answers 200 then, else 201). */
export interface OwnershipTaken {
  view: ScheduleView;
  alreadyOwned: boolean;
}

export interface PipelineSchedulesServiceDeps {
  schedules: Omit<SchedulesStore, 'listDue' | 'advance'>;
  users: Pick<UsersStore, 'findByIds'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'list'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<
    Permissions,
    'canReadPipelineSchedules' | 'canReadPipelines' | 'canCreatePipelineSchedule' | 'canCreatePipelineScheduleFor' | 'canAdminPipelineSchedule' | 'canEditPipelineSchedule' | 'canReadPipelineScheduleVariables'
  >;
  /** Whether the caller may update a schedule's ref (protected branches and tags). */
  refs: Pick<RefWriteAccess, 'scheduleRefWritable'>;
  /** The clock next_run_at is computed from (tests pass a fixed one). */
  now?: () => Date;
}

const LIMITS = { description: 255, ref: 1024, cron: 255, cron_timezone: 255 } as const;

/**
 * `/projects/:id/pipeline_schedules`: Reporters read, Developers create (and own what they
 * create) for refs they may update, the owner edits, owners and Maintainers delete and take
 * over (the permission module's schedule rules). `next_run_at` is the next cron time in the
 * schedule's time zone; running due schedules is the pipeline creator's business.
 */
export class PipelineSchedulesService {
  constructor(private readonly deps: PipelineSchedulesServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, scope: 'active' | 'inactive' | undefined, page: Page): Promise<Paged<ScheduleView>> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadPipelineSchedules(project, actor))) throw accessDenied();
    const filter = scope === undefined ? {} : { active: scope === 'active' };
    const { items, total } = await this.deps.schedules.list(project.id, filter, page);
    return { items: await this.views(items, false), total };
  }

  /** The pipelines the schedule created (GitLab 15.3's `.../pipelines`), by id; GitLab also asks for read_pipeline. */
  async pipelines(projectRef: string, actor: UserRecord, scheduleId: number, sort: 'asc' | 'desc', page: Page): Promise<Paged<PipelineRecord> & { projectFullPath: string }> {
    const { project, schedule } = await this.readable(projectRef, actor, scheduleId);
    if (!(await this.deps.permissions.canReadPipelines(project, actor))) throw accessDenied();
    const { items, total } = await this.deps.pipelines.list({ projectId: project.id, scheduleId: schedule.id, orderBy: 'id', sort }, page);
    return { items, total, projectFullPath: (await ciProject(this.deps.namespaces, project)).fullPath };
  }

  async get(projectRef: string, actor: UserRecord, scheduleId: number): Promise<ScheduleView> {
    const { project, schedule } = await this.readable(projectRef, actor, scheduleId);
    return this.view(project, schedule, actor);
  }

  async create(projectRef: string, actor: UserRecord, input: NewScheduleInput): Promise<ScheduleView> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const { permissions, refs } = this.deps;
    if (!(await permissions.canCreatePipelineSchedule(project, actor))) throw accessDenied();
    const fields = { description: input.description, ref: input.ref, cron: input.cron, cron_timezone: input.cronTimezone ?? 'UTC' };
    if (!(await permissions.canCreatePipelineScheduleFor(project, actor, await refs.scheduleRefWritable(project, actor, fields.ref)))) throw notAuthorizedToSave('create');
    checkSchedule(fields);
    const now = this.now();
    const schedule = await this.deps.schedules.create({
      project_id: project.id,
      ...fields,
      next_run_at: nextRunAt(fields.cron, fields.cron_timezone, now)?.toISOString() ?? null,
      active: input.active ?? true,
      owner_id: actor.id,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    return this.view(project, schedule, actor);
  }

  async update(projectRef: string, actor: UserRecord, scheduleId: number, changes: ScheduleInputChanges): Promise<ScheduleView> {
    const { project, schedule } = await this.editable(projectRef, actor, scheduleId);
    const fields = {
      description: changes.description ?? schedule.description,
      ref: changes.ref ?? schedule.ref,
      cron: changes.cron ?? schedule.cron,
      cron_timezone: changes.cronTimezone ?? schedule.cron_timezone,
    };
    // As GitLab's UpdateService: the rule is asked again with the new ref, so nobody moves a schedule onto a ref they may not update.
    if (fields.ref !== schedule.ref && !(await this.mayEdit(project, schedule, actor, fields.ref))) throw notAuthorizedToSave('update');
    checkSchedule(fields);
    const now = this.now();
    return this.save(project, schedule, actor, {
      ...fields,
      active: changes.active ?? schedule.active,
      next_run_at: nextRunAt(fields.cron, fields.cron_timezone, now)?.toISOString() ?? null,
      updated_at: now.toISOString(),
    });
  }

  /** The caller becomes the owner (pipelines of the schedule then run as them). */
  async takeOwnership(projectRef: string, actor: UserRecord, scheduleId: number): Promise<OwnershipTaken> {
    const { project, schedule } = await this.administrable(projectRef, actor, scheduleId);
    if (schedule.owner_id === actor.id) return { view: await this.view(project, schedule, actor), alreadyOwned: true };
    return { view: await this.save(project, schedule, actor, { owner_id: actor.id, updated_at: this.now().toISOString() }), alreadyOwned: false };
  }

  async remove(projectRef: string, actor: UserRecord, scheduleId: number): Promise<void> {
    const { schedule } = await this.administrable(projectRef, actor, scheduleId);
    if (!(await this.deps.schedules.delete(schedule.id))) throw new GantryError('GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND');
  }

  async createVariable(projectRef: string, actor: UserRecord, scheduleId: number, input: ScheduleVariableInput): Promise<ScheduleVariableRecord> {
    const { schedule } = await this.editable(projectRef, actor, scheduleId);
    const errors: FieldErrors = keyErrors(input.key);
    valueErrors(input.value, false, errors);
    const existing = await this.deps.schedules.listVariables(schedule.id);
    if (Object.keys(errors).length === 0 && existing.some((variable) => variable.key === input.key)) Object.assign(errors, keyTaken(input.key));
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    checkScheduleVariableCount(existing.length + 1);
    const variable = { key: input.key, value: input.value, variable_type: input.variableType ?? 'env_var' } as const;
    try {
      return await this.deps.schedules.createVariable(schedule.id, variable, this.now().toISOString());
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed(keyTaken(input.key));
      throw error;
    }
  }

  async updateVariable(projectRef: string, actor: UserRecord, scheduleId: number, key: string, changes: { value?: string; variableType?: CiVariableType }): Promise<ScheduleVariableRecord> {
    const { schedule } = await this.editable(projectRef, actor, scheduleId);
    await this.variable(schedule, key);
    if (changes.value !== undefined) {
      const errors = valueErrors(changes.value, false);
      if (Object.keys(errors).length > 0) throw validationFailed(errors);
    }
    const updated = await this.deps.schedules.updateVariable(schedule.id, key, { value: changes.value, variable_type: changes.variableType }, this.now().toISOString());
    if (!updated) throw variableNotFound();
    return updated;
  }

  /** Deletes the variable and answers it as it was. */
  async removeVariable(projectRef: string, actor: UserRecord, scheduleId: number, key: string): Promise<ScheduleVariableRecord> {
    const { schedule } = await this.administrable(projectRef, actor, scheduleId);
    const variable = await this.variable(schedule, key);
    if (!(await this.deps.schedules.deleteVariable(schedule.id, key))) throw variableNotFound();
    return variable;
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private async save(project: ProjectRecord, schedule: ScheduleRecord, actor: UserRecord, changes: ScheduleChanges): Promise<ScheduleView> {
    const updated = await this.deps.schedules.update(schedule.id, changes);
    if (!updated) throw new GantryError('GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND');
    return this.view(project, updated, actor);
  }

  /** A schedule the caller may read; one they may not is 404 like a missing one (as GitLab). */
  private async readable(projectRef: string, actor: UserRecord, scheduleId: number): Promise<{ project: ProjectRecord; schedule: ScheduleRecord }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const schedule = await this.deps.schedules.findInProject(project.id, scheduleId);
    if (!schedule || !(await this.deps.permissions.canReadPipelineSchedules(project, actor))) throw new GantryError('GANTRY_E_PIPELINE_SCHEDULE_NOT_FOUND');
    return { project, schedule };
  }

  /** `admin_pipeline_schedule`: delete, take over, delete a variable. */
  private async administrable(projectRef: string, actor: UserRecord, scheduleId: number): Promise<{ project: ProjectRecord; schedule: ScheduleRecord }> {
    const found = await this.readable(projectRef, actor, scheduleId);
    if (!(await this.deps.permissions.canAdminPipelineSchedule(found.project, found.schedule, actor))) throw accessDenied();
    return found;
  }

  /** `update_pipeline_schedule` on the schedule's current ref: edit, create and change variables. */
  private async editable(projectRef: string, actor: UserRecord, scheduleId: number): Promise<{ project: ProjectRecord; schedule: ScheduleRecord }> {
    const found = await this.readable(projectRef, actor, scheduleId);
    if (!(await this.mayEdit(found.project, found.schedule, actor, found.schedule.ref))) throw accessDenied();
    return found;
  }

  private async mayEdit(project: ProjectRecord, schedule: ScheduleRecord, actor: UserRecord, ref: string): Promise<boolean> {
    return this.deps.permissions.canEditPipelineSchedule(project, schedule, actor, await this.deps.refs.scheduleRefWritable(project, actor, ref));
  }

  private async variable(schedule: ScheduleRecord, key: string): Promise<ScheduleVariableRecord> {
    const variable = (await this.deps.schedules.listVariables(schedule.id)).find((candidate) => candidate.key === key);
    if (!variable) throw variableNotFound();
    return variable;
  }

  /** One schedule; its variables only for who may read their values. */
  private async view(project: ProjectRecord, schedule: ScheduleRecord, actor: UserRecord): Promise<ScheduleView> {
    const withVariables = await this.deps.permissions.canReadPipelineScheduleVariables(project, schedule, actor);
    const [view] = await this.views([schedule], withVariables);
    const pipeline = schedule.last_pipeline_id === null ? undefined : await this.deps.pipelines.findById(schedule.last_pipeline_id);
    const lastPipeline = pipeline ? { pipeline, projectFullPath: (await ciProject(this.deps.namespaces, project)).fullPath } : null;
    return { ...view!, lastPipeline };
  }

  private async views(schedules: readonly ScheduleRecord[], withVariables: boolean): Promise<ScheduleView[]> {
    const ownerIds = [...new Set(schedules.flatMap((schedule) => (schedule.owner_id === null ? [] : [schedule.owner_id])))];
    const owners = new Map((ownerIds.length ? await this.deps.users.findByIds(ownerIds) : []).map((user) => [user.id, user]));
    return Promise.all(
      schedules.map(async (schedule) => ({
        schedule,
        owner: schedule.owner_id === null ? null : (owners.get(schedule.owner_id) ?? null),
        variables: withVariables ? await this.deps.schedules.listVariables(schedule.id) : undefined,
      })),
    );
  }
}

/** GitLab's refusal of a schedule saved for a ref the caller may not update: 400 `{"message":{"base":[...]}}`. */
function notAuthorizedToSave(action: 'create' | 'update'): GantryError {
  return validationFailed({ base: [`The current user is not authorized to ${action} the pipeline schedule`] });
}

function variableNotFound(): GantryError {
  return new GantryError('GANTRY_E_VARIABLE_NOT_FOUND', undefined, { resource: 'Pipeline Schedule Variable' });
}

/** GitLab's schedule validations: presence, cron syntax and time zone (" is invalid syntax", as GitLab words it). */
function checkSchedule(fields: { description: string; ref: string; cron: string; cron_timezone: string }): void {
  const errors: FieldErrors = {};
  for (const [field, value] of Object.entries(fields) as Array<[keyof typeof LIMITS, string]>) {
    if (value.trim() === '') errors[field] = ["can't be blank"];
    else if (exceedsLength(value, LIMITS[field])) errors[field] = [tooLongMessage(LIMITS[field])];
  }
  if (!errors.cron && !isValidCron(fields.cron)) errors.cron = [' is invalid syntax'];
  if (!errors.cron_timezone && !isValidTimeZone(fields.cron_timezone)) errors.cron_timezone = [' is invalid syntax'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}
