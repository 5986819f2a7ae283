import type { GitCommit } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { PipelineRecord } from '../../../storage/types-ci.ts';
import type { JobRecord } from '../../../storage/types-ci-jobs.ts';
import type { DeploymentRecord, EnvironmentRecord } from '../../../storage/types-environments.ts';
import type { RunnerRecord } from '../../../storage/types-runners.ts';
import { projectHookData, projectWebUrl, userHookData, type HookProject } from './hook-data-common.ts';

/** Jobs a pipeline hook reads, its first ones; it lists the builds among them (GitLab lists every latest build; a bound keeps one payload bounded). */
export const PIPELINE_HOOK_MAX_BUILDS = 500;

/** A job's seconds between two instants, or null. */
function seconds(from: string | null, to: string | null): number | null {
  if (!from || !to) return null;
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
}

/** GitLab's Ci::Runner#hook_attrs. */
export function runnerHookData(runner: RunnerRecord | undefined): Record<string, unknown> | null {
  if (!runner) return null;
  return { id: runner.id, description: runner.description, runner_type: runner.runner_type, active: runner.active, is_shared: runner.runner_type === 'instance_type', tags: runner.tag_list };
}

function commitAuthor(commit: GitCommit | null): Record<string, unknown> | null {
  return commit ? { name: commit.author.name, email: commit.author.email } : null;
}

/**
 * GitLab's `environment_hook_attrs`: the job's expanded environment name, its action, and the
 * tier of that environment as saved (null when it is not saved, its name refused).
 */
function environmentHookData(job: JobRecord, environments: ReadonlyMap<string, EnvironmentRecord>): Record<string, unknown> | null {
  if (job.environment === null) return null;
  return { name: job.environment, action: job.definition?.environment?.action ?? 'start', deployment_tier: environments.get(job.environment)?.tier ?? null };
}

/** A pipeline with what its hook names: its jobs, their users, runners and environments (by name), its commit and user. */
export interface HookPipeline {
  pipeline: PipelineRecord;
  environments: ReadonlyMap<string, EnvironmentRecord>;
  jobs: readonly JobRecord[];
  users: ReadonlyMap<number, UserRecord>;
  runners: ReadonlyMap<number, RunnerRecord>;
  commit: GitCommit | null;
}

/** GitLab's pipeline hook payload (Gitlab::DataBuilder::Pipeline): `object_kind: pipeline`. */
export function pipelineHookData(target: HookProject, data: HookPipeline): Record<string, unknown> {
  const { pipeline } = data;
  const webUrl = projectWebUrl(target);
  const stages = [...new Set([...data.jobs].sort((a, b) => a.stage_idx - b.stage_idx).map((job) => job.stage))];
  // GitLab lists the pipeline's builds only (`Ci::Build`): no bridges, no external commit statuses.
  const builds = data.jobs.filter((job) => job.type === 'build').slice(0, PIPELINE_HOOK_MAX_BUILDS).map((job) => ({
    id: job.id, stage: job.stage, name: job.name, status: job.status,
    created_at: job.created_at, started_at: job.started_at, finished_at: job.finished_at,
    duration: seconds(job.started_at, job.finished_at), queued_duration: seconds(job.queued_at, job.started_at),
    failure_reason: job.failure_reason, when: job.when, manual: job.when === 'manual', allow_failure: job.allow_failure,
    user: userHookData(job.user_id === null ? null : data.users.get(job.user_id)),
    runner: runnerHookData(job.runner_id === null ? undefined : data.runners.get(job.runner_id)),
    artifacts_file: { filename: null, size: null },
    environment: environmentHookData(job, data.environments),
  }));
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id, iid: pipeline.iid, name: null, ref: pipeline.ref, tag: pipeline.tag, sha: pipeline.sha, before_sha: pipeline.before_sha,
      source: pipeline.source, status: pipeline.status, detailed_status: pipeline.status, stages,
      created_at: pipeline.created_at, finished_at: pipeline.finished_at, duration: pipeline.duration,
      queued_duration: seconds(pipeline.created_at, pipeline.started_at), variables: [],
      url: `${webUrl}/-/pipelines/${pipeline.id}`,
    },
    merge_request: null,
    user: userHookData(pipeline.user_id === null ? null : data.users.get(pipeline.user_id)),
    project: projectHookData(target),
    commit: data.commit
      ? { id: data.commit.id, message: data.commit.message, title: data.commit.title, timestamp: data.commit.author.date, url: `${webUrl}/-/commit/${data.commit.id}`, author: commitAuthor(data.commit) }
      : null,
    builds,
  };
}

/** A job with what its hook names. */
export interface HookJob {
  job: JobRecord;
  /** The job's environment, as saved. */
  environment: EnvironmentRecord | undefined;
  pipeline: PipelineRecord;
  user: UserRecord | undefined;
  runner: RunnerRecord | undefined;
  commit: GitCommit | null;
}

/** GitLab's job hook payload (Gitlab::DataBuilder::Build): `object_kind: build`. */
export function jobHookData(target: HookProject, data: HookJob): Record<string, unknown> {
  const { job, pipeline, commit } = data;
  const webUrl = projectWebUrl(target);
  return {
    object_kind: 'build',
    ref: job.ref,
    tag: job.tag,
    before_sha: pipeline.before_sha,
    sha: job.sha,
    retries_count: 0,
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: job.status,
    build_created_at: job.created_at,
    build_started_at: job.started_at,
    build_finished_at: job.finished_at,
    build_duration: seconds(job.started_at, job.finished_at),
    build_queued_duration: seconds(job.queued_at, job.started_at),
    build_allow_failure: job.allow_failure,
    build_failure_reason: job.failure_reason ?? 'unknown_failure',
    pipeline_id: pipeline.id,
    runner: runnerHookData(data.runner),
    project_id: target.project.id,
    project_name: target.namespace ? `${target.namespace.full_name} / ${target.project.name}` : target.project.name,
    user: userHookData(data.user),
    commit: {
      id: pipeline.id,
      name: null,
      sha: job.sha,
      message: commit?.message ?? '',
      author_name: commit?.author.name ?? '',
      author_email: commit?.author.email ?? '',
      author_url: commit ? `mailto:${commit.author.email}` : '',
      status: pipeline.status,
      duration: pipeline.duration,
      started_at: pipeline.started_at,
      finished_at: pipeline.finished_at,
    },
    repository: {
      name: target.project.name, url: `${webUrl}.git`, description: target.project.description, homepage: webUrl,
      git_http_url: `${webUrl}.git`, git_ssh_url: null, visibility_level: projectHookData(target).visibility_level,
    },
    project: projectHookData(target),
    environment: environmentHookData(job, new Map(data.environment ? [[data.environment.name, data.environment]] : [])),
  };
}

/** A deployment's job statuses GitLab sends a deployment event for. */
export const DEPLOYMENT_HOOK_STATUSES: ReadonlySet<string> = new Set(['running', 'success', 'failed', 'canceled']);

/** What a deployment hook names: the deployment's job (with its status of the event), environment, user and commit. */
export interface HookDeployment {
  deployment: DeploymentRecord;
  job: JobRecord;
  environment: EnvironmentRecord | undefined;
  user: UserRecord | undefined;
  commit: GitCommit | null;
}

/** GitLab's deployment hook payload (Gitlab::DataBuilder::Deployment): `object_kind: deployment`. */
export function deploymentHookData(target: HookProject, data: HookDeployment, now: string): Record<string, unknown> {
  const webUrl = projectWebUrl(target);
  const { deployment, job } = data;
  return {
    object_kind: 'deployment',
    status: job.status,
    status_changed_at: now,
    deployment_id: deployment.id,
    deployable_id: job.id,
    deployable_url: `${webUrl}/-/jobs/${job.id}`,
    environment: data.environment?.name ?? job.environment,
    environment_tier: data.environment?.tier ?? null,
    environment_slug: data.environment?.slug ?? null,
    environment_external_url: data.environment?.external_url ?? null,
    project: projectHookData(target),
    short_sha: deployment.sha.slice(0, 8),
    user: userHookData(data.user),
    user_url: data.user ? `${target.externalUrl}/${data.user.username}` : null,
    commit_url: `${webUrl}/-/commit/${deployment.sha}`,
    commit_title: data.commit?.title ?? null,
    ref: deployment.ref,
  };
}
