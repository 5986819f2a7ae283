import type { CiVariableRecord, ScheduleVariableRecord } from '../../../../storage/types-ci-settings.ts';
import type { ScheduleView } from '../../../services/ci/pipeline-schedules.ts';
import type { TriggerView } from '../../../services/ci/triggers.ts';
import { serializePipelineBasic } from './pipelines.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** GitLab's Entities::Ci::Variable of an instance variable (no scope, never hidden). */
export interface InstanceVariableJson {
  variable_type: string;
  key: string;
  value: string;
  protected: boolean;
  masked: boolean;
  raw: boolean;
  description: string | null;
}

/** A project's or a group's variable: a hidden one's value is null in every answer. */
export interface ProjectVariableJson {
  variable_type: string;
  key: string;
  value: string | null;
  hidden: boolean;
  protected: boolean;
  masked: boolean;
  raw: boolean;
  environment_scope: string;
  description: string | null;
}

/** Group variables answer as project ones do, their scope always `*` (GitLab CE's). */
export type GroupVariableJson = ProjectVariableJson;

export function serializeProjectVariable(variable: CiVariableRecord): ProjectVariableJson {
  return {
    variable_type: variable.variable_type,
    key: variable.key,
    // Ci::VariableValue: the API never shows a hidden variable's value (its jobs still get it).
    value: variable.hidden ? null : variable.value,
    hidden: variable.hidden,
    protected: variable.protected,
    masked: variable.masked,
    raw: variable.raw,
    environment_scope: variable.environment_scope,
    description: variable.description,
  };
}

export function serializeGroupVariable(variable: CiVariableRecord): GroupVariableJson {
  return serializeProjectVariable(variable);
}

export function serializeInstanceVariable(variable: CiVariableRecord): InstanceVariableJson {
  return {
    variable_type: variable.variable_type,
    key: variable.key,
    value: variable.value,
    protected: variable.protected,
    masked: variable.masked,
    raw: variable.raw,
    description: variable.description,
  };
}

export function serializeScheduleVariable(variable: ScheduleVariableRecord): { variable_type: string; key: string; value: string } {
  return { variable_type: variable.variable_type, key: variable.key, value: variable.value };
}

export interface TriggerJson {
  id: number;
  token: string;
  description: string;
  created_at: string;
  updated_at: string;
  last_used: string | null;
  owner: UserBasicJson | null;
}

export function serializeTrigger(view: TriggerView, externalUrl: string): TriggerJson {
  const { trigger } = view;
  return {
    id: trigger.id,
    token: view.token,
    description: trigger.description,
    created_at: trigger.created_at,
    updated_at: trigger.updated_at,
    last_used: trigger.last_used,
    owner: view.owner ? serializeUserBasic(view.owner, externalUrl) : null,
  };
}

export interface PipelineScheduleJson {
  id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
  owner: UserBasicJson | null;
}

export function serializePipelineSchedule(view: ScheduleView, externalUrl: string): PipelineScheduleJson {
  const { schedule } = view;
  return {
    id: schedule.id,
    description: schedule.description,
    ref: schedule.ref,
    cron: schedule.cron,
    cron_timezone: schedule.cron_timezone,
    next_run_at: schedule.next_run_at,
    active: schedule.active,
    created_at: schedule.created_at,
    updated_at: schedule.updated_at,
    owner: view.owner ? serializeUserBasic(view.owner, externalUrl) : null,
  };
}

/**
 * The single-schedule answer: plus `last_pipeline` (GitLab's PipelineBasic of its newest run,
 * null before the first) and its variables, when the service gave them (GitLab leaves the key
 * out for callers who may not read their values).
 */
export function serializePipelineScheduleDetails(view: ScheduleView, externalUrl: string) {
  const last = view.lastPipeline;
  return {
    ...serializePipelineSchedule(view, externalUrl),
    last_pipeline: last ? serializePipelineBasic(last.pipeline, { externalUrl, projectFullPath: last.projectFullPath }) : null,
    ...(view.variables === undefined ? {} : { variables: view.variables.map(serializeScheduleVariable) }),
  };
}
