import type { FailureReason, JobNeed, JobStatus, JobWhen, PipelineJob, RetryPolicy } from '../../../pipeline/types.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { JobRecord } from '../../types-ci-jobs.ts';
import { ColumnKinds } from './row-mapping.ts';

/** `environment_variables` is apart: it holds CI variables' values, so it is sealed as they are (JSON, then SecretBox). */
const JOB_KINDS = new ColumnKinds<Omit<JobRecord, 'environment_variables'>>({
  allow_failure: 'boolean', retried: 'boolean', protected: 'boolean', tag: 'boolean', cancel_gracefully: 'boolean',
  tag_list: 'json', definition: 'json', needs: 'json', retry: 'json', downstream_errors: 'json',
});

/** Every column but the token digest, which never leaves the store. */
export const JOB_SELECT = [
  'id', 'pipeline_id', 'project_id', 'stage_id', 'stage', 'stage_idx', 'name', 'type', 'status', 'when', 'allow_failure', 'retried',
  'failure_reason', 'exit_code', 'coverage', 'user_id', 'runner_id', 'runner_type', 'tag_list', 'protected', 'ref', 'sha', 'tag',
  'definition', 'needs', 'retry', 'start_in_seconds', 'environment', 'target_url', 'description', 'created_at', 'queued_at', 'started_at',
  'finished_at', 'scheduled_at', 'erased_at', 'updated_at', 'artifacts_expire_at', 'trace_size', 'trace_checksum', 'lock_version',
  'cancel_gracefully', 'downstream_errors', 'resource_group', 'environment_url', 'environment_auto_stop_in',
  'environment_variables',
] as const;

/** The columns loadPipelineJobs reads: small, no definition. */
export const PIPELINE_JOB_SELECT = [
  'id', 'name', 'stage', 'stage_idx', 'status', 'when', 'allow_failure', 'needs', 'retry', 'retried', 'start_in_seconds', 'scheduled_at',
  'failure_reason', 'type', 'cancel_gracefully', 'resource_group',
] as const;

export function toJob(row: object, secrets: SecretBox): JobRecord {
  const sealed = (row as { environment_variables?: unknown }).environment_variables;
  const job = JOB_KINDS.toRecord(row) as JobRecord;
  // A row written before sealing holds the JSON in clear: open() answers it as it is.
  if (typeof sealed === 'string') job.environment_variables = JSON.parse(secrets.open(sealed)) as JobRecord['environment_variables'];
  delete (job as { token_digest?: unknown }).token_digest;
  return job;
}

/** The columns of a job's fields, its tags normalised, its environment's variables sealed. */
export function toJobColumns<P extends Partial<JobRecord>>(record: P, secrets: SecretBox) {
  const { environment_variables: variables, ...rest } = record;
  const columns = JOB_KINDS.toColumns(rest.tag_list === undefined ? rest : { ...rest, tag_list: normalizeTags(rest.tag_list) });
  if (variables === undefined) return columns;
  return { ...columns, environment_variables: variables === null ? null : secrets.seal(JSON.stringify(variables)) };
}

/** Tags sorted and without duplicates, so equal lists are equal JSON text. */
export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

interface PipelineJobRow {
  id: number;
  name: string;
  stage: string;
  stage_idx: number;
  status: string;
  when: string;
  allow_failure: number;
  needs: string | null;
  retry: string | null;
  retried: number;
  start_in_seconds: number | null;
  scheduled_at: string | null;
  failure_reason: string | null;
  type: string;
  cancel_gracefully: number;
  resource_group: string | null;
}

export function toPipelineJob(row: PipelineJobRow): PipelineJob {
  return {
    id: row.id,
    name: row.name,
    stage: row.stage,
    stageIdx: row.stage_idx,
    status: row.status as JobStatus,
    when: row.when as JobWhen,
    allowFailure: row.allow_failure === 1,
    needs: row.needs === null ? null : (JSON.parse(row.needs) as JobNeed[]),
    retry: row.retry === null ? null : (JSON.parse(row.retry) as RetryPolicy),
    retried: row.retried === 1,
    ...(row.start_in_seconds === null ? {} : { startInSeconds: row.start_in_seconds }),
    scheduledAt: row.scheduled_at === null ? null : Date.parse(row.scheduled_at),
    failureReason: row.failure_reason as FailureReason | null,
    ...(row.type === 'generic' ? { external: true } : {}),
    ...(row.cancel_gracefully === 1 ? { cancelGracefully: true } : {}),
    ...(row.resource_group === null ? {} : { resourceGroup: row.resource_group }),
  };
}
