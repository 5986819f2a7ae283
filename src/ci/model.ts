/**
 * Public data types of the CI compiler: the context it reads, the job definitions it
 * produces. Everything produced is plain JSON-serialisable data (stored by the coordinator,
 * consumed by the pipeline state machine and by `runner exec`).
 */
import type { PullPolicy, RefType } from '../protocol/job-payload.ts';
import type { CompileLimits } from './limits.ts';
import type { EnvironmentTier } from './environment-tier.ts';
import type { Diagnostic } from './diagnostics.ts';
import type { MergeRequestInfo } from './merge-request-variables.ts';

export type { RefType, MergeRequestInfo };

/** Where a user-defined variable comes from; decides its precedence (reference §7.2). */
/** `dotenv`: a dependency's dotenv report (job payloads only; rules never see them). */
export type VariableSource = 'dotenv' | 'instance' | 'group' | 'project' | 'trigger' | 'pipeline' | 'schedule';

/** A CI/CD variable defined outside the YAML (project, group, pipeline run, ...). */
export interface ContextVariable {
  key: string;
  value: string;
  /** Only given to pipelines on protected refs. */
  protected?: boolean;
  /** Replaced by `[MASKED]` in job logs. */
  masked?: boolean;
  /** The runner writes the value to a file and the variable holds its path. */
  file?: boolean;
  /** The runner must not expand `$` references in the value. */
  raw?: boolean;
  /** Defaults to `project`. */
  source?: VariableSource;
  /**
   * Only for jobs of matching environments (project variables): `*`, an environment name, or
   * a pattern with `*`. Absent: every job.
   */
  environmentScope?: string;
}

/** The answer of a reader asked for a file of another project (include:project). */
export type ProjectFileResult =
  | { status: 'found'; content: string }
  | { status: 'file-not-found' }
  /** The ref given (else the default branch) names no commit of the project. */
  | { status: 'ref-not-found'; ref: string }
  | { status: 'project-not-found' };

/** The answer of a reader asked for a file inside a parent-pipeline job's artifacts (include:artifact). */
export type ArtifactFileResult =
  | { status: 'found'; content: string }
  /** No job of that name in the parent pipeline, or it has no artifacts archive. */
  | { status: 'job-not-found' }
  | { status: 'file-not-found' }
  /** The path names a directory of the archive. */
  | { status: 'not-a-file' };

/**
 * The answer of a reader asked for a remote file (include:remote): its text, or why there is
 * none, as GitLab words it (`refused` carries the reason, e.g. a local address not allowed).
 */
export type RemoteFileResult =
  | { status: 'found'; content: string }
  | { status: 'too-big' }
  | { status: 'http-code'; code: number }
  | { status: 'timeout' }
  | { status: 'socket-error' }
  /** GitLab's `Gitlab::HTTP::Error` (too many redirects, a redirect to another scheme). */
  | { status: 'http-error' }
  | { status: 'refused'; reason: string };

/**
 * The only way the compiler reaches files: the coordinator backs it with git at the
 * pipeline's sha, `runner exec` with the working tree, tests with a map.
 */
export interface RepositoryReader {
  /** A file of this project at the pipeline sha; `null` when it does not exist. Path has no leading `/`. */
  readFile(path: string): Promise<string | null>;
  /** Every file path of the repository at that sha (for `rules:exists`). */
  listFiles?(): Promise<string[]>;
  /** A file of another project (include:project); `ref` undefined means its default branch. */
  readProjectFile?(projectPath: string, ref: string | undefined, path: string): Promise<ProjectFileResult>;
  /** Sha of the last commit that changed any of these paths (`cache:key:files`), or null. */
  lastCommitFor?(paths: string[]): Promise<string | null>;
  /**
   * `rules:changes:compare_to`: the paths changed from the merge base of the commit `ref` names
   * and the pipeline's commit to that commit (GitLab's `modified_paths_since`), no more than
   * `limit` of them; null when `ref` names no commit. Without it such a clause always holds.
   */
  changedPathsSince?(ref: string, limit: number): Promise<string[] | null>;
  /**
   * A file from the artifacts of a job of the parent pipeline. Only given when compiling a
   * child pipeline: without it `include:artifact` is refused, as GitLab does.
   */
  readArtifactFile?(job: string, path: string): Promise<ArtifactFileResult>;
  /** A file over HTTP(S) (include:remote); without it remote includes are refused. */
  readRemoteFile?(url: string): Promise<RemoteFileResult>;
}

/** The coordinator as jobs and rules see it (`CI_SERVER_*`). */
export interface ServerIdentity {
  /** Base URL, `https://gantry.example.com`. */
  url: string;
  name?: string;
  version: string;
  revision: string;
}

export interface ProjectInfo {
  id: number;
  /** Full path, `group/sub/app`. */
  path: string;
  defaultBranch?: string;
  visibility?: 'private' | 'internal' | 'public';
  title?: string;
}

export interface CompileContext {
  project: ProjectInfo;
  /** The coordinator (`CI_SERVER_*`, `CI_PROJECT_URL` for rules and includes); absent when compiled without one. */
  server?: ServerIdentity;
  ref: string;
  refType: RefType;
  /** Whether the ref is a protected branch or tag: protected variables are only used then. */
  refProtected?: boolean;
  sha: string;
  /** Previous head of the branch; all zeros when unknown. */
  beforeSha?: string;
  commitMessage?: string;
  /** Pipeline source: push, web, trigger, schedule, api, external, pipeline, chat, merge_request_event, ... */
  source: string;
  variables?: ContextVariable[];
  /** Paths changed by the push; `null`/absent when unknown (then `changes` always matches). */
  changedPaths?: string[] | null;
  files: RepositoryReader;
  /** Path of the CI file, for diagnostics and `CI_CONFIG_PATH`. Default `.gitlab-ci.yml`. */
  configPath?: string;
  /** Do not honour `[ci skip]` in the commit message. */
  ignoreSkipCi?: boolean;
  /** GitLab's `ci.skip` push option: the pipeline is saved `skipped`, as for `[ci skip]`. */
  skipCi?: boolean;
  limits?: Partial<CompileLimits>;
  /**
   * A merge request pipeline's request (source `merge_request_event`): `ref` is then its source
   * branch (CI_COMMIT_REF_NAME), CI_COMMIT_BRANCH is not set and `only:refs` names compare with
   * its ref path, as GitLab does.
   */
  mergeRequest?: MergeRequestInfo;
  /**
   * GitLab's CI_OPEN_MERGE_REQUESTS: the open merge requests from the pipeline's source branch
   * (of a merge request pipeline: its request's source branch and project), newest first, at
   * most 4 and only those its user may read, each as `full/path!iid`; absent or empty: unset.
   */
  openMergeRequests?: readonly string[];
  /**
   * The pipeline's inputs (GitLab 17.11: the pipelines and trigger APIs, a bridge's
   * `trigger:inputs`), for the main file's `spec:inputs` header; absent: its defaults.
   */
  inputs?: Readonly<Record<string, unknown>>;
  /** `inputs` are command-line text (`runner exec --input`), each read as the type its header declares. */
  inputsAreText?: boolean;
}

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';

/** A link of a release's `assets:links`, as the job's configuration gives it. */
export interface ReleaseAssetLink {
  name: string;
  url: string;
  filepath?: string;
  direct_asset_path?: string;
  link_type?: string;
}

/** A job's `release` (GitLab 13.2): created by `release-cli` in a `release` step after the script. */
export interface ReleaseDefinition {
  tagName: string;
  description: string;
  name?: string;
  tagMessage?: string;
  ref?: string;
  releasedAt?: string;
  milestones: string[];
  links: ReleaseAssetLink[];
}

/** A job's `hooks` (GitLab 15.6): commands the runner runs before it gets the sources. */
export interface JobHooks {
  preGetSourcesScript?: string[];
}

/** A job's `id_tokens` (GitLab 15.7) by variable name: the audience of each (a string or a list, as written). */
export type JobIdTokens = Record<string, { aud: string | string[] }>;

export interface JobNeed {
  job: string;
  artifacts: boolean;
  optional: boolean;
}

/**
 * `needs: [{pipeline, job}]`: a job of another pipeline of the same parent-child hierarchy
 * (`pipeline: $PARENT_PIPELINE_ID`) whose artifacts the job downloads. `pipeline` and `job` are
 * expanded when the job starts; the job fails with `missing_dependency_failure` if no
 * successful job of that name is there (GitLab's `options[:cross_dependencies]`).
 */
export interface CrossPipelineNeed {
  pipeline: string;
  job: string;
  artifacts: boolean;
}

export interface ImageDefinition {
  name: string;
  entrypoint: string[] | null;
  /** `image:docker:user` (GitLab 16.8): the user the job's containers run as. */
  docker?: DockerOptions;
  /** `image:pull_policy` (GitLab 15.1), a list however written; absent: the runner's own. */
  pullPolicy?: PullPolicy[];
}

/** `docker:` of an image or a service: the options of the docker executor that are used. */
export interface DockerOptions {
  user: string;
}

export interface ServiceDefinition {
  name: string;
  alias: string | null;
  entrypoint: string[] | null;
  command: string[] | null;
  /** `services:variables`: for the service's container only. */
  variables?: YamlVariable[];
  docker?: DockerOptions;
  pullPolicy?: PullPolicy[];
}

export type CacheWhen = 'on_success' | 'on_failure' | 'always';

export interface CacheDefinition {
  key: string;
  untracked: boolean;
  paths: string[];
  /** Or a `$VARIABLE` holding one (GitLab 16.1), read when the job's payload is made. */
  policy: 'pull' | 'push' | 'pull-push' | `$${string}`;
  when: CacheWhen;
  /** `fallback_keys`: keys to restore from, in order, when `key` has no cache (absent when none). */
  fallbackKeys?: string[];
}

export interface ArtifactsDefinition {
  name: string | null;
  paths: string[];
  exclude: string[];
  untracked: boolean;
  when: 'on_success' | 'on_failure' | 'always';
  expireIn: string | null;
  /** Report type (junit, dotenv, ...) to paths. */
  reports: Record<string, string[]>;
}

export interface EnvironmentDefinition {
  name: string;
  url: string | null;
  action: 'start' | 'stop' | 'prepare' | 'verify' | 'access';
  onStop: string | null;
  /** `deployment_tier`, when the job names one. */
  deploymentTier?: EnvironmentTier;
  /** `auto_stop_in` as written (a duration, `never`, or text with variables), when the job gives one. */
  autoStopIn?: string;
}

export interface RetryDefinition {
  max: number;
  /** `always` or failure reason names. */
  when: string[];
  /** `retry:exit_codes`: a failure with one of these script exit codes is retried too. */
  exitCodes?: number[];
}

export interface YamlVariable {
  key: string;
  value: string;
  /** `expand: false`: the runner leaves `$` references in the value as they are. */
  raw?: true;
}

/** How the job came to be in (or out of) the pipeline. */
export interface InclusionOutcome {
  included: boolean;
  /** `rules` (first matching rule index, or none), `only/except`, or `default`. */
  decidedBy: 'rules' | 'only/except' | 'default';
  matchedRule: number | null;
}

/** `trigger:forward` (GitLab 14.9+): what the downstream pipeline receives. */
export interface TriggerForward {
  /** The bridge's YAML variables (global + job). Default true. */
  yamlVariables: boolean;
  /** This pipeline's own variables (API, trigger, schedule, manual run). Default false. */
  pipelineVariables: boolean;
}

/**
 * One file of a child pipeline's configuration (`trigger:include`). Nothing is read at
 * compile time, as in GitLab: the coordinator compiles `childPipelineConfig(trigger)` when
 * it creates the child, and a missing file fails the bridge then.
 */
export type IncludeSource = (
  | { kind: 'local'; local: string }
  | { kind: 'project'; project: string; file: string; ref: string | null }
  /** A file from the artifacts of `job` (a job of the parent pipeline, in an earlier stage). */
  | { kind: 'artifact'; artifact: string; job: string }
  /** `component: <fqdn>/<project path>/<name>@<version>`. */
  | { kind: 'component'; component: string }
  | { kind: 'remote'; remote: string; integrity?: string }
) & {
  /** `inputs` for the file's `spec:inputs`, as written. */
  inputs?: Record<string, unknown>;
};

/** `strategy: depend`: the bridge mirrors the downstream pipeline's status. */
export type TriggerStrategy = 'depend' | null;

/** `trigger: group/project` or `{project, branch, strategy, forward}`: a multi-project pipeline. */
export interface ProjectTrigger {
  kind: 'project';
  /** Full path of the downstream project, unexpanded (may hold `$VARIABLES`). */
  project: string;
  /** Downstream branch, unexpanded; null means the project's default branch. */
  branch: string | null;
  strategy: TriggerStrategy;
  forward: TriggerForward;
  /** `trigger:inputs` (GitLab 17.11): the downstream main file's `spec:inputs`, as written (not expanded). */
  inputs?: Record<string, unknown>;
}

/** `trigger: {include, strategy, forward}`: a child pipeline of the same project. */
export interface ChildTrigger {
  kind: 'child';
  include: IncludeSource[];
  strategy: TriggerStrategy;
  forward: TriggerForward;
}

export type TriggerDefinition = ProjectTrigger | ChildTrigger;

/** One job of a compiled pipeline. Plain data. Bridges (`trigger:`) are `BridgeJobDefinition`s. */
export type JobDefinition = BuildJobDefinition | BridgeJobDefinition;

/** A job a runner runs. */
export interface BuildJobDefinition extends JobDefinitionBase {
  trigger: null;
}

/**
 * A bridge: the coordinator creates a downstream pipeline instead of queueing it; it has no
 * script, image, services, cache, artifacts, environment, retry or timeout (all empty).
 */
export interface BridgeJobDefinition extends JobDefinitionBase {
  trigger: TriggerDefinition;
}

export interface JobDefinitionBase {
  name: string;
  /** Name before `parallel` expansion (equal to `name` for ordinary jobs). */
  baseName: string;
  stage: string;
  /** Position of the stage in the full stage list (including `.pre`/`.post`). */
  stageIndex: number;
  when: JobWhen;
  /** Duration text for `when: delayed` (`start_in`). */
  startIn: string | null;
  allowFailure: boolean;
  /**
   * GitLab's `options[:allow_failure_criteria][:exit_codes]`: a failure with one of these exit
   * codes makes the job allowed to fail. Null when unset or when a matching rule sets
   * `allow_failure`; absent from definitions stored before it existed.
   */
  allowFailureExitCodes?: number[] | null;
  /** `null`: follow stage order. `[]`: start at once (needs: []). */
  needs: JobNeed[] | null;
  /** Needs of jobs in other pipelines of the hierarchy; absent when none (they do not order the job). */
  crossPipelineNeeds?: CrossPipelineNeed[];
  /** `null`: artifacts of every job in earlier stages. */
  dependencies: string[] | null;
  retry: RetryDefinition;
  /** Seconds, or null for the project/runner default. */
  timeout: number | null;
  interruptible: boolean;
  /** `hooks`; absent when the job (and `default:`) has none. */
  hooks?: JobHooks;
  /** `id_tokens`; absent when the job (and `default:`) has none. */
  idTokens?: JobIdTokens;
  /** `release`; absent when the job creates none. */
  release?: ReleaseDefinition;
  resourceGroup: string | null;
  tags: string[];
  image: ImageDefinition | null;
  services: ServiceDefinition[];
  beforeScript: string[];
  script: string[];
  afterScript: string[];
  /** Global YAML variables merged with the job's (the job wins), then rule variables. */
  variables: YamlVariable[];
  cache: CacheDefinition[];
  artifacts: ArtifactsDefinition | null;
  environment: EnvironmentDefinition | null;
  /** Coverage regex without its slashes. */
  coverage: string | null;
  /** `CI_NODE_INDEX` / `CI_NODE_TOTAL` for `parallel` jobs. */
  parallel: { index: number; total: number } | null;
  inclusion: InclusionOutcome;
}

export interface StageDefinition {
  name: string;
  index: number;
}

/**
 * - `created`: a pipeline with jobs.
 * - `invalid`: configuration errors (GitLab saves a `failed` pipeline with `config_error`).
 * - `skipped`: `[ci skip]` in the commit message (saved as `skipped`, no jobs).
 * - `filtered`: workflow:rules or no job left (never saved).
 */
export type CompileStatus = 'created' | 'invalid' | 'skipped' | 'filtered';

/** `workflow:auto_cancel:on_new_commit` (GitLab 16.8): what a newer pipeline of the ref may cancel of this one. */
export type AutoCancelOnNewCommit = 'conservative' | 'interruptible' | 'none';
/** `workflow:auto_cancel:on_job_failure` (GitLab 16.10): `all` cancels the pipeline when a job fails. */
export type AutoCancelOnJobFailure = 'none' | 'all';

export interface AutoCancelConfig {
  onNewCommit: AutoCancelOnNewCommit | null;
  onJobFailure: AutoCancelOnJobFailure | null;
}

/**
 * A file the configuration included, as lint lists it (GitLab's include metadata): `file` is
 * another project's file. `project`/`ref` name where it was read (null: the pipeline's project
 * at its commit); `contextProject`/`contextRef` the file that included it (null likewise).
 */
export interface IncludedFile {
  type: 'local' | 'file' | 'remote' | 'artifact' | 'component' | 'template';
  location: string;
  project: string | null;
  ref: string | null;
  extra: Record<string, string>;
  contextProject: string | null;
  contextRef: string | null;
}

/** What GitLab keeps in a pipeline's metadata: its `workflow:name` and auto-cancel strategies. */
export interface PipelineMetadata {
  /** `workflow:name` with its variables expanded (`CI_PIPELINE_NAME`); null when none or blank. */
  name: string | null;
  autoCancelOnNewCommit: AutoCancelOnNewCommit;
  autoCancelOnJobFailure: AutoCancelOnJobFailure;
}

export interface CompileResult {
  status: CompileStatus;
  /** Stages that have at least one included job, in order. */
  stages: StageDefinition[];
  /** Every stage the configuration declares (with `.pre` and `.post`). */
  declaredStages: string[];
  /** Jobs included in the pipeline, in stage order then file order. */
  jobs: JobDefinition[];
  /** Jobs of the configuration that only/except/rules left out (for lint). */
  excludedJobs: JobDefinition[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** For `filtered`/`skipped`: GitLab's message ("Pipeline filtered out by workflow rules."). */
  reason: string | null;
  /** Variables set by the matching workflow rule, applied to every job. */
  workflowVariables: YamlVariable[];
  /** For `created`: the pipeline's name and auto-cancel strategies (workflow, then the matching workflow rule). */
  metadata?: PipelineMetadata;
  /** The files included, in the order they were read (lint's `includes`); absent when invalid. */
  includes?: IncludedFile[];
  /** The configuration after includes, `extends` and `!reference` (lint's `merged_yaml`); absent when invalid. */
  mergedConfig?: Record<string, unknown>;
}
