import type { JobArtifactRecord, JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { JobView } from '../../../services/ci/pipelines/job-views.ts';
import { viewOf } from '../../../services/ci/runners/runners.ts';
import { serializeCommit, type CommitJson } from '../repository/commits.ts';
import { serializePipelineBasic, type PipelineBasicJson } from './pipelines.ts';
import { serializeRunner } from './runners.ts';
import { serializeUserPublic, type UserPublicJson } from '../accounts/users.ts';

export interface JobArtifactJson {
  file_type: string;
  size: number;
  filename: string;
  file_format: string;
}

/** A job's runner: GitLab's Runner entity, with its status as the runners API tells it. */
export type RunnerBasicJson = ReturnType<typeof serializeRunner>;

/** GitLab's JobBasic: what a job shows wherever it is listed (bridges add their downstream pipeline). */
export interface JobBasicJson {
  id: number;
  status: string;
  stage: string;
  name: string;
  ref: string;
  tag: boolean;
  coverage: number | null;
  allow_failure: boolean;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  erased_at: string | null;
  /** Seconds, running time so far while the job runs. */
  duration: number | null;
  queued_duration: number | null;
  user: UserPublicJson | null;
  commit: CommitJson | null;
  pipeline: PipelineBasicJson | null;
  /** Only for failed jobs, as GitLab shows it. */
  failure_reason?: string;
  web_url: string;
}

export interface JobJson extends JobBasicJson {
  project: { ci_job_token_scope_enabled: boolean };
  artifacts_file: { filename: string; size: number } | null;
  artifacts: JobArtifactJson[];
  runner: RunnerBasicJson | null;
  artifacts_expire_at: string | null;
  archived: boolean;
  tag_list: string[];
}

/** What JobBasic needs: the job, its user, commit and pipeline. */
export type JobBasicView = Pick<JobView, 'job' | 'user' | 'commit' | 'pipeline'>;

/** GitLab's Job entity; `now` (epoch ms) measures the durations of unfinished jobs. */
export function serializeJob(view: JobView, externalUrl: string, now: number = Date.now()): JobJson {
  const { job, target } = view;
  const archive = view.artifacts.find((artifact) => artifact.file_type === 'archive');
  return {
    ...serializeJobBasic(view, { externalUrl, projectFullPath: target.fullPath }, now),
    project: { ci_job_token_scope_enabled: false },
    artifacts_file: archive ? { filename: archive.file_name, size: archive.size } : null,
    artifacts: view.artifacts.map(serializeJobArtifact),
    runner: view.runner ? serializeRunner(viewOf(view.runner, now)) : null,
    artifacts_expire_at: job.artifacts_expire_at,
    archived: target.project.archived,
    tag_list: job.tag_list,
  };
}

/** The job's own fields that every job answer (JobBasic, the runners API's JobBasicWithProject) starts with. */
export type JobFieldsJson = Pick<JobBasicJson, 'id' | 'status' | 'stage' | 'name' | 'ref' | 'tag' | 'coverage' | 'allow_failure' | 'created_at' | 'started_at' | 'finished_at'>;

export function jobFields(job: JobRecord): JobFieldsJson {
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: job.ref,
    tag: job.tag,
    coverage: job.coverage,
    allow_failure: job.allow_failure,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
  };
}

export function serializeJobBasic(view: JobBasicView, base: { externalUrl: string; projectFullPath: string }, now: number = Date.now()): JobBasicJson {
  const { job } = view;
  return {
    ...jobFields(job),
    erased_at: job.erased_at,
    duration: secondsBetween(job.started_at, job.finished_at, now),
    queued_duration: secondsBetween(job.queued_at, job.started_at, now),
    user: view.user ? serializeUserPublic(view.user, base.externalUrl) : null,
    commit: view.commit ? serializeCommit(view.commit, base) : null,
    pipeline: view.pipeline ? serializePipelineBasic(view.pipeline, base) : null,
    ...(job.status === 'failed' ? { failure_reason: job.failure_reason ?? 'unknown_failure' } : {}),
    web_url: jobWebUrl(job, base.externalUrl, base.projectFullPath),
  };
}

export function jobWebUrl(job: Pick<JobRecord, 'id'>, externalUrl: string, projectFullPath: string): string {
  return `${externalUrl}/${projectFullPath}/-/jobs/${job.id}`;
}

function serializeJobArtifact(artifact: JobArtifactRecord): JobArtifactJson {
  return { file_type: artifact.file_type, size: artifact.size, filename: artifact.file_name, file_format: artifact.file_format };
}

/** Seconds from `start` to `end` (or to now while `end` is unset); null before `start`. */
export function secondsBetween(start: string | null, end: string | null, now: number): number | null {
  if (start === null) return null;
  const finish = end === null ? now : Date.parse(end);
  return Math.max(0, (finish - Date.parse(start)) / 1000);
}
