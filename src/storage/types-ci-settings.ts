/** CI settings of projects and groups: variables, pipeline triggers, pipeline schedules. */
import type { CiVariableType, Page } from './types-ci.ts';

export interface CiVariableRecord {
  key: string;
  value: string;
  variable_type: CiVariableType;
  /** Only given to pipelines on protected refs. */
  protected: boolean;
  masked: boolean;
  /** Project variables: `*` or an environment name or pattern; group and instance variables: always `*`. */
  environment_scope: string;
  /** The runner does not expand `$` references in the value. */
  raw: boolean;
  /** GitLab's description: null or at most 255 characters. */
  description: string | null;
  /**
   * Project and group variables created masked and hidden: the API never shows the value
   * again (jobs still get it) and it stays hidden. Instance variables are never hidden.
   */
  hidden: boolean;
}

/** The owner id the instance's variables go by in a CiVariablesStore (which does not read it: the instance is their one owner). */
export const INSTANCE_VARIABLES_OWNER = 0;

/** What an update may change: a variable's key, scope and hiddenness are fixed once created. */
export type CiVariableChanges = Partial<Omit<CiVariableRecord, 'key' | 'environment_scope' | 'hidden'>>;

/**
 * Variables of one owner (a project, or a group): unique by key and environment scope.
 * Implemented for projects (`ci_variables`), groups (`ci_group_variables`) and the instance
 * (`ci_instance_variables`, its one owner: the owner id is not read).
 */
export interface CiVariablesStore {
  /** Oldest first. */
  list(ownerId: number): Promise<CiVariableRecord[]>;
  /** Variables of several owners (a group and its ancestors), by owner. */
  listForOwners(ownerIds: readonly number[]): Promise<Map<number, CiVariableRecord[]>>;
  /** Without a scope: the `*` one, else the first by scope. */
  find(ownerId: number, key: string, environmentScope?: string): Promise<CiVariableRecord | undefined>;
  /** Throws a unique violation when (key, scope) exists. */
  create(ownerId: number, variable: CiVariableRecord, now: string): Promise<CiVariableRecord>;
  update(ownerId: number, key: string, environmentScope: string, changes: CiVariableChanges, now: string): Promise<CiVariableRecord | undefined>;
  delete(ownerId: number, key: string, environmentScope: string): Promise<boolean>;
}

export interface TriggerRecord {
  id: number;
  project_id: number;
  /** Kept as given: the API shows it to the trigger's owner and the trigger endpoint looks it up. */
  token: string;
  description: string;
  owner_id: number | null;
  last_used: string | null;
  created_at: string;
  updated_at: string;
}

export interface TriggersStore {
  create(trigger: Omit<TriggerRecord, 'id' | 'last_used' | 'updated_at'>): Promise<TriggerRecord>;
  findInProject(projectId: number, id: number): Promise<TriggerRecord | undefined>;
  findByToken(token: string): Promise<TriggerRecord | undefined>;
  list(projectId: number): Promise<TriggerRecord[]>;
  update(id: number, changes: Partial<Pick<TriggerRecord, 'description' | 'owner_id' | 'last_used' | 'updated_at'>>): Promise<TriggerRecord | undefined>;
  delete(id: number): Promise<boolean>;
}

export interface ScheduleRecord {
  id: number;
  project_id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string | null;
  active: boolean;
  owner_id: number | null;
  last_pipeline_id: number | null;
  created_at: string;
  updated_at: string;
}

export type NewSchedule = Omit<ScheduleRecord, 'id' | 'last_pipeline_id'>;
export type ScheduleChanges = Partial<Omit<ScheduleRecord, 'id' | 'project_id' | 'created_at'>>;

export interface ScheduleVariableRecord {
  key: string;
  value: string;
  variable_type: CiVariableType;
}

export interface SchedulesStore {
  create(schedule: NewSchedule): Promise<ScheduleRecord>;
  findInProject(projectId: number, id: number): Promise<ScheduleRecord | undefined>;
  /** `active` narrows to active or inactive schedules; by id. */
  list(projectId: number, filter: { active?: boolean }, page: Page): Promise<{ items: ScheduleRecord[]; total: number }>;
  update(id: number, changes: ScheduleChanges): Promise<ScheduleRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** Active schedules due at `now`, earliest first. */
  listDue(now: string, limit: number): Promise<ScheduleRecord[]>;
  /**
   * Moves `next_run_at` from `expected` to `next`, only if nobody did so first: the one
   * caller that gets true creates the scheduled pipeline (several coordinators race here).
   */
  advance(id: number, expected: string, next: string | null, now: string): Promise<boolean>;
  listVariables(scheduleId: number): Promise<ScheduleVariableRecord[]>;
  /** Throws a unique violation when the key exists. */
  createVariable(scheduleId: number, variable: ScheduleVariableRecord, now: string): Promise<ScheduleVariableRecord>;
  updateVariable(scheduleId: number, key: string, changes: Partial<Omit<ScheduleVariableRecord, 'key'>>, now: string): Promise<ScheduleVariableRecord | undefined>;
  deleteVariable(scheduleId: number, key: string): Promise<boolean>;
}
