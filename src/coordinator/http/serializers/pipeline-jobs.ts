/**
 * MERGE NOTE: the jobs branch owns the job shape (src/coordinator/http/serializers/jobs.ts,
 * `serializeJob`). This file is the pipelines branch's stand-in with the same GitLab fields
 * (Entities::Ci::Job, Entities::Ci::Bridge); when both land, serialise with `serializeJob`
 * and keep only `serializeBridge` (JobBasic + downstream_pipeline) here.
 */
import type { JobArtifactRecord, JobRecord } from '../../../storage/types-ci-jobs.ts';
import type { RunnerRecord } from '../../../storage/types-runners.ts';
import type { BridgeView, JobView } from '../../services/pipelines/pipeline-views.ts';
import { serializeCommit, type CommitJson } from './commits.ts';
import { serializePipelineBasic, type PipelineBasicJson, type PipelineUrlBase } from './pipelines.ts';
import { serializeUserPublic, type UserPublicJson } from './users.ts';

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
  /** Seconds (fractional) between start and finish, or until now while running. */
  duration: number | null;
  /** Seconds (fractional) between being queued and the start, or until now while pending. */
  queued_duration: number | null;
  user: UserPublicJson | null;
  commit: CommitJson | null;
  pipeline: PipelineBasicJson;
  /** Only on failed jobs. */
  failure_reason?: string;
  web_url: string;
}

export interface RunnerSummaryJson {
  id: number;
  description: string;
  ip_address: string | null;
  active: boolean;
  paused: boolean;
  is_shared: boolean;
  runner_type: string;
  name: string | null;
  online: boolean;
  status: 'online' | 'offline' | 'paused';
}

export interface JobJson extends JobBasicJson {
  /** The archive, when the job has one. */
  artifacts_file?: { filename: string; size: number };
  artifacts: Array<{ file_type: string; size: number; filename: string; file_format: string }>;
  runner: RunnerSummaryJson | null;
  artifacts_expire_at: string | null;
  tag_list: string[];
}

export interface BridgeJson extends JobBasicJson {
  downstream_pipeline: PipelineBasicJson | null;
}

/** A runner that has not been in touch for two hours is offline (GitLab's ONLINE_CONTACT_TIMEOUT). */
const ONLINE_WINDOW_MS = 2 * 60 * 60 * 1000;

export function serializePipelineJob(view: JobView, base: PipelineUrlBase, now = Date.now()): JobJson {
  const archive = view.artifacts.find((artifact) => artifact.file_type === 'archive');
  return {
    ...jobBasic(view, base, now),
    ...(archive ? { artifacts_file: { filename: archive.file_name, size: archive.size } } : {}),
    artifacts: view.artifacts.map(serializeArtifact),
    runner: view.runner ? serializeRunnerSummary(view.runner, now) : null,
    artifacts_expire_at: view.job.artifacts_expire_at,
    tag_list: [...view.job.tag_list].sort(),
  };
}

export function serializeBridge(view: BridgeView, base: PipelineUrlBase, now = Date.now()): BridgeJson {
  const downstream = view.downstream ? serializePipelineBasic(view.downstream.pipeline, { externalUrl: base.externalUrl, projectFullPath: view.downstream.fullPath }) : null;
  return { ...jobBasic(view, base, now), downstream_pipeline: downstream };
}

function jobBasic(view: JobView, base: PipelineUrlBase, now: number): JobBasicJson {
  const { job } = view;
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
    erased_at: job.erased_at,
    duration: secondsBetween(job.started_at, job.finished_at, now),
    queued_duration: secondsBetween(job.queued_at, job.started_at, now),
    user: view.user ? serializeUserPublic(view.user, base.externalUrl) : null,
    commit: view.commit ? serializeCommit(view.commit, base) : null,
    pipeline: serializePipelineBasic(view.pipeline, base),
    ...(job.status === 'failed' ? { failure_reason: job.failure_reason ?? 'unknown_failure' } : {}),
    web_url: jobWebUrl(job, base),
  };
}

function jobWebUrl(job: Pick<JobRecord, 'id'>, base: PipelineUrlBase): string {
  return `${base.externalUrl}/${base.projectFullPath}/-/jobs/${job.id}`;
}

/** `end - start` in seconds; `now` stands in for a missing end; null without a start. */
function secondsBetween(start: string | null, end: string | null, now: number): number | null {
  if (!start) return null;
  const finish = end ? Date.parse(end) : now;
  return Math.max(0, (finish - Date.parse(start)) / 1000);
}

function serializeArtifact(artifact: JobArtifactRecord) {
  return { file_type: artifact.file_type, size: artifact.size, filename: artifact.file_name, file_format: artifact.file_format };
}

function serializeRunnerSummary(runner: RunnerRecord, now: number): RunnerSummaryJson {
  const online = runner.contacted_at !== null && now - Date.parse(runner.contacted_at) < ONLINE_WINDOW_MS;
  return {
    id: runner.id,
    description: runner.description,
    ip_address: runner.ip_address,
    active: runner.active,
    paused: !runner.active,
    is_shared: runner.runner_type === 'instance_type',
    runner_type: runner.runner_type,
    name: runner.name,
    online,
    status: !runner.active ? 'paused' : online ? 'online' : 'offline',
  };
}
