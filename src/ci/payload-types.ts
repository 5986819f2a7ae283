/** Inputs of `toJobPayload` beyond the job definition. */
import type { Dependency } from '../protocol/job-payload.ts';
import type { ContextVariable, MergeRequestInfo, RefType } from './model.ts';
import type { EnvironmentTier } from './environment-tier.ts';

export interface PayloadIds {
  jobId: number;
  pipelineId: number;
  pipelineIid?: number;
  projectId: number;
}

export interface PayloadTokens {
  jobToken: string;
  /** The jobs whose artifacts this job downloads, with their tokens (chosen by the coordinator). */
  dependencies?: Dependency[];
}

export interface PayloadGitInfo {
  /** Clone URL with the job token inside. */
  repoUrl: string;
  /** Full path of the project the repository belongs to (`group/app`). */
  projectPath: string;
  ref: string;
  refType: RefType;
  sha: string;
  beforeSha?: string;
  refProtected?: boolean;
  /** Default 50; `GIT_DEPTH` in the job's variables overrides it. */
  depth?: number;
  refspecs?: string[];
  commitMessage?: string;
  commitTimestamp?: string;
  commitAuthor?: string;
}

export interface PayloadServerInfo {
  /** Base URL, `https://gantry.example.com`. */
  url: string;
  name?: string;
  version: string;
  revision: string;
  /** Container registry host, when one is enabled. */
  registry?: string;
  /** Job timeout in seconds when the job sets none (default: DEFAULT_JOB_TIMEOUT_SECONDS, job-timeout.ts). */
  defaultTimeout?: number;
  /** Project setting: default git strategy is fetch. */
  allowGitFetch?: boolean;
}

export interface PayloadPipelineInfo {
  source?: string;
  /** `workflow:name` expanded (`CI_PIPELINE_NAME`); absent when the pipeline has none. */
  name?: string;
  projectTitle?: string;
  projectVisibility?: 'private' | 'internal' | 'public';
  defaultBranch?: string;
  configPath?: string;
  createdAt?: string;
  jobStartedAt?: string;
  user?: { id: number; email: string; login: string; name: string };
  /**
   * Instance, group, project and pipeline variables, all of them: protected ones reach only
   * protected refs, scoped ones only jobs of their environment (user-variables.ts decides).
   */
  variables?: ContextVariable[];
  /** The job's environment name as its pipeline expanded it, for variable scopes; default: the name expanded here. */
  environmentName?: string | null;
  /** The URL of the job's environment as saved, CI_ENVIRONMENT_URL when the job names no `url` (GitLab's `environment_url`). */
  environmentUrl?: string;
  /** The tier of the job's environment as saved: CI_ENVIRONMENT_TIER when the job declares none (GitLab's `environment_tier`); default: guessed from the name. */
  environmentTier?: EnvironmentTier;
  /**
   * A merge request pipeline's request: CI_COMMIT_REF_NAME is its source branch, no
   * CI_COMMIT_BRANCH, the CI_MERGE_REQUEST_* variables, and the runner fetches its ref path.
   */
  mergeRequest?: MergeRequestInfo;
  /**
   * GitLab's CI_OPEN_MERGE_REQUESTS: the open merge requests from the pipeline's source branch
   * (of a merge request pipeline: its request's source branch and project), newest first, at
   * most 4 and only those its user may read, each as `full/path!iid`; absent or empty: unset.
   */
  openMergeRequests?: readonly string[];
  /** The runner that took the job: CI_RUNNER_ID, CI_RUNNER_DESCRIPTION and CI_RUNNER_TAGS. */
  runner?: PayloadRunnerInfo;
}

export interface PayloadRunnerInfo {
  id: number;
  description: string;
  tags: readonly string[];
}
