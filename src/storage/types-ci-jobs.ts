/**
 * CI jobs (builds, bridges and generic commit statuses in one table, like GitLab's
 * ci_builds), the runner queue, and the records of job artifacts.
 */
import type { JobDefinition } from '../ci/model.ts';
import type { JobChange, JobNeed, JobStatus, JobWhen, PipelineJob, RetryPolicy } from '../pipeline/types.ts';
import type { Page } from './types-ci.ts';
import type { RunnerRecord, RunnerType } from './types-runners.ts';

/** `build`: run by a runner; `bridge`: triggers a downstream pipeline; `generic`: an external commit status. */
export type JobType = 'build' | 'bridge' | 'generic';

export interface JobRecord {
  id: number;
  pipeline_id: number;
  project_id: number;
  stage_id: number | null;
  stage: string;
  stage_idx: number;
  name: string;
  type: JobType;
  status: JobStatus;
  when: JobWhen;
  allow_failure: boolean;
  /** A newer job of the same name replaced this one. */
  retried: boolean;
  failure_reason: string | null;
  exit_code: number | null;
  coverage: number | null;
  user_id: number | null;
  runner_id: number | null;
  /** Kind of the runner that took the job (fair usage counts jobs on instance runners). */
  runner_type: RunnerType | null;
  /** Sorted, without duplicates. */
  tag_list: string[];
  protected: boolean;
  ref: string;
  sha: string;
  tag: boolean;
  /** The compiler's job definition (builds and bridges); null for generic statuses. */
  definition: JobDefinition | null;
  /** Processing inputs (see PipelineJob): null needs = stage order. */
  needs: JobNeed[] | null;
  retry: RetryPolicy | null;
  start_in_seconds: number | null;
  /** Environment name (expanded) of a job with `environment:`. */
  environment: string | null;
  /** Generic statuses. */
  target_url: string | null;
  description: string | null;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  scheduled_at: string | null;
  erased_at: string | null;
  updated_at: string;
  artifacts_expire_at: string | null;
  trace_size: number | null;
  trace_checksum: string | null;
  lock_version: number;
  /** The runner manager that took the job announced `cancel_gracefully`: a cancel makes it `canceling`. */
  cancel_gracefully: boolean;
  /** A bridge whose downstream pipeline was not created: GitLab's messages saying why (its `downstream_errors`). */
  downstream_errors: string[] | null;
  /** The job's `resource_group` key, expanded: no two of a project's jobs in one group run at once. */
  resource_group: string | null;
  /**
   * `environment:url` of a job that starts its environment, expanded as its name is, a variable
   * not set then kept as written for its deployment's success (null without one).
   */
  environment_url: string | null;
  /** `environment:auto_stop_in`, expanded as the URL is (null without one). */
  environment_auto_stop_in: string | null;
  /**
   * The variables the job's `environment:url` and `auto_stop_in` name, with their values when
   * it was created (its deployment's success expands them with these and the dotenv reports);
   * null without either, and for jobs created before migration 058.
   */
  environment_variables: EnvironmentVariable[] | null;
}

/** A variable a job's `environment:url` or `auto_stop_in` names, as it was when the job was created. */
export interface EnvironmentVariable {
  key: string;
  value: string;
  /**
   * An instance, group, project or pipeline variable, which GitLab lists after the dotenv
   * variables of the job's dependencies (only the job's own report overrides it); absent: a
   * predefined or CI file variable, which a dependency's report overrides too.
   */
  settings?: true;
  /** `expand: false`: its value's `$` references stay as they are. */
  raw?: true;
}

type JobDefaults =
  | 'stage_id' | 'retried' | 'failure_reason' | 'exit_code' | 'coverage' | 'user_id' | 'runner_id' | 'runner_type' | 'tag_list'
  | 'protected' | 'tag' | 'definition' | 'needs' | 'retry' | 'start_in_seconds' | 'environment' | 'target_url' | 'description'
  | 'queued_at' | 'started_at' | 'finished_at' | 'scheduled_at' | 'erased_at' | 'updated_at' | 'artifacts_expire_at'
  | 'trace_size' | 'trace_checksum' | 'cancel_gracefully' | 'downstream_errors' | 'resource_group' | 'environment_url'
  | 'environment_auto_stop_in' | 'environment_variables';

export type NewJob = Omit<JobRecord, 'id' | 'lock_version' | JobDefaults> & Partial<Pick<JobRecord, JobDefaults>>;

/** Fields services change outside processing (runner updates, erase, keep, traces). */
export type JobChanges = Partial<
  Pick<
    JobRecord,
    | 'status' | 'failure_reason' | 'exit_code' | 'coverage' | 'user_id' | 'runner_id' | 'started_at' | 'finished_at' | 'queued_at'
    | 'erased_at' | 'updated_at' | 'artifacts_expire_at' | 'trace_size' | 'trace_checksum' | 'target_url' | 'description'
    | 'environment' | 'scheduled_at' | 'allow_failure' | 'downstream_errors'
  >
>;

export interface JobListFilter {
  projectId?: number;
  pipelineId?: number;
  runnerId?: number;
  /** The API's `scope`: any of these statuses. */
  statuses?: readonly JobStatus[];
  types?: readonly JobType[];
  /** Retried jobs are left out unless asked for. */
  includeRetried?: boolean;
  sort?: 'asc' | 'desc';
}

export interface StatusesForShaFilter {
  ref?: string;
  stage?: string;
  name?: string;
  /** Every status of every pipeline of the sha, not only the latest ones. */
  all?: boolean;
}

/** Thrown by `applyChanges` when a job is no longer in the status processing saw: run the transaction again. */
export class StaleJobError extends Error {
  constructor(readonly jobId: number) {
    super(`job ${jobId} changed while its pipeline was processed`);
    this.name = 'StaleJobError';
  }
}

export interface AppliedJobChanges {
  /** Real ids of the jobs created, by the provisional id `handleEvent` gave them. */
  createdIds: Map<number, number>;
}

export interface CiJobsStore {
  /** Inserts the jobs (several statements for big batches); answers them in input order. */
  insertMany(jobs: readonly NewJob[]): Promise<JobRecord[]>;
  findById(id: number): Promise<JobRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<JobRecord[]>;
  findInProject(projectId: number, id: number): Promise<JobRecord | undefined>;
  /** The job whose token has this SHA-256 digest (tokens themselves are never stored). */
  findByTokenDigest(digest: string): Promise<JobRecord | undefined>;
  /** Every job of the pipeline, retried ones included, in the shape the state rules take; one query. */
  loadPipelineJobs(pipelineId: number): Promise<PipelineJob[]>;
  /**
   * Persists `handleEvent` changes: creations copy their source row (fresh timestamps, no
   * runner, trace or token; `userId` becomes their user when given), updates set status,
   * retried, failure reason, scheduled time and the timestamp of the new status. An update
   * whose job is no longer in `previousStatus` throws StaleJobError (roll back, retry).
   * Runs in the caller's transaction, or in its own.
   */
  applyChanges(pipelineId: number, changes: readonly JobChange[], context: { now: string; userId?: number | null }): Promise<AppliedJobChanges>;
  /** Direct change of one job; with `expectedLockVersion`, only if unchanged since (false otherwise). */
  update(id: number, changes: JobChanges, expectedLockVersion?: number): Promise<boolean>;
  /** Stores the digest of a new job token (when a runner takes the job). */
  setTokenDigest(id: number, digest: string | null): Promise<void>;
  list(filter: JobListFilter, page: Page): Promise<{ items: JobRecord[]; total: number }>;
  /** The newest successful, not retried build named `name` on `ref` (artifacts download by ref). */
  latestSuccessfulByRefAndName(projectId: number, ref: string, name: string): Promise<JobRecord | undefined>;
  /** Commit statuses of the sha (builds, bridges, generic statuses), oldest first. */
  statusesForSha(projectId: number, sha: string, filter: StatusesForShaFilter): Promise<JobRecord[]>;
  /** The generic status of the pipeline with this name and ref that is still pending or running. */
  findOpenGenericStatus(pipelineId: number, name: string, ref: string): Promise<JobRecord | undefined>;
  /** Jobs in `status` not updated since `before` (stuck and timeout sweeps), oldest first. */
  listStale(status: JobStatus, before: string, limit: number): Promise<JobRecord[]>;
  /**
   * Running builds claimed before `claimedBefore` whose runner has sent nothing about them
   * since (`updated_at` still equals `started_at`, both written by the claim): hand-outs whose
   * answer may never have reached the runner. Oldest first.
   */
  listUnacknowledged(claimedBefore: string, limit: number): Promise<JobRecord[]>;
  /** The coverage of each of the pipeline's latest (not retried) jobs that have one, oldest job first. */
  latestCoverages(pipelineId: number): Promise<number[]>;
}

export interface ClaimContext {
  now: string;
  /** SHA-256 digest of the token the runner receives with the job. */
  tokenDigest: string;
  /** The claiming runner manager announced `cancel_gracefully`. */
  cancelGracefully?: boolean;
}

/** A job the queue moved to `running`, with what the claimer checks of its project. */
export interface ClaimedQueueJob {
  job: JobRecord;
  projectArchived: boolean;
}

export interface JobQueueStore {
  /**
   * Atomically moves one pending build the runner may take to `running` (runner, token,
   * started_at) and answers it; undefined when there is none. Matching: the runner's kind
   * (instance runners: projects with shared runners enabled; group runners: projects under
   * their groups; project runners: their projects), projects with jobs enabled, every job
   * tag a runner tag, untagged jobs only with run_untagged, protected refs only for
   * ref_protected runners. Instance runners take from the project with the fewest jobs
   * running on instance runners first, then the oldest job; others take the oldest job.
   * Concurrent claims never take the same job (`FOR UPDATE SKIP LOCKED` on PostgreSQL).
   * Paused runners, archived projects and missing dependencies are the caller's to check
   * (the answer says whether the job's project is archived, read in the same statement).
   */
  claim(runner: Pick<RunnerRecord, 'id' | 'runner_type' | 'tag_list' | 'run_untagged' | 'access_level'>, context: ClaimContext): Promise<ClaimedQueueJob | undefined>;
  /**
   * Whether `claim` would find a job now, read without locks or writes: idle runners ask far
   * more often than jobs arrive, and this spares them the write transaction. A job queued
   * just after it answers false is the caller's to notice (the queue value moved).
   */
  hasCandidate(runner: Pick<RunnerRecord, 'id' | 'runner_type' | 'tag_list' | 'run_untagged' | 'access_level'>): Promise<boolean>;
  /**
   * In the caller's transaction, which it must end soon: first serialises the assignment of
   * the project's resource group `key` (PostgreSQL: a transaction-scoped advisory lock on the
   * project and the key, so a concurrent assignment waits until this transaction ends and then
   * sees its move; SQLite's write transactions go one at a time), then answers the group's first
   * upcoming job in its process mode (see `pipeline/resource-group-modes.ts`; under `unordered`
   * the oldest job waiting for the resource) if no job of the group holds it (`pending`,
   * `running`, `canceling`); undefined otherwise. The caller assigns it only if it waits.
   */
  nextForResource(projectId: number, key: string): Promise<ResourceCandidate | undefined>;
  /**
   * Up to `limit` resource groups (project and key) with a job waiting for the resource and no
   * job holding it: groups whose assignment is due (through the index of waiting jobs).
   */
  groupsAwaitingResource(limit: number): Promise<ResourceGroupRef[]>;
}

/** A project's resource group. */
export interface ResourceGroupRef {
  projectId: number;
  key: string;
}

/** The job a resource group would assign its resource to next, if it waits for it. */
export type ResourceCandidate = Pick<JobRecord, 'id' | 'pipeline_id' | 'status'>;

export type ArtifactFileType = 'archive' | 'metadata' | 'trace' | 'junit' | 'dotenv' | 'cobertura' | (string & {});
export type ArtifactFileFormat = 'zip' | 'gzip' | 'raw';

export interface JobArtifactRecord {
  id: number;
  job_id: number;
  project_id: number;
  file_type: ArtifactFileType;
  file_format: ArtifactFileFormat;
  file_name: string;
  size: number;
  sha256: string;
  /** Relative to the data directory. */
  path: string;
  expire_at: string | null;
  created_at: string;
}

export type NewJobArtifact = Omit<JobArtifactRecord, 'id'>;

/** One member of a zip archive, as kept for browsing and single-file downloads. */
export interface ArtifactEntryRecord {
  path: string;
  /** Directories end with `/`. */
  kind: 'file' | 'directory';
  size: number;
  compressed_size: number;
  crc32: number;
  mode: number;
  modified_at: string | null;
  /**
   * Offset of the member's local header in the archive; null for members recorded before
   * locations were kept (the archive is then indexed again).
   */
  header_offset: number | null;
  /** 0 stored, 8 deflated; null with `header_offset`. */
  compression: number | null;
}

/** A variable of a job's dotenv report, in the report's order. */
export interface DotenvVariableRecord {
  job_id: number;
  key: string;
  value: string;
}

export interface JobArtifactsStore {
  /**
   * Replaces the job's artifact of that file type; answers the replaced record's path to
   * delete, if any. `variables` (a dotenv report's) are saved with it, in one transaction.
   */
  save(
    artifact: NewJobArtifact,
    entries?: readonly ArtifactEntryRecord[],
    variables?: ReadonlyArray<{ key: string; value: string }>,
  ): Promise<{ artifact: JobArtifactRecord; replacedPath: string | null }>;
  /** The dotenv variables of these jobs (one query), by job id then report order. */
  dotenvVariablesForJobs(jobIds: readonly number[]): Promise<DotenvVariableRecord[]>;
  find(jobId: number, fileType: ArtifactFileType): Promise<JobArtifactRecord | undefined>;
  listForJobs(jobIds: readonly number[]): Promise<JobArtifactRecord[]>;
  findEntry(artifactId: number, path: string): Promise<ArtifactEntryRecord | undefined>;
  /** Replaces every member record of the artifact with `entries` (one transaction). */
  replaceEntries(artifactId: number, entries: readonly ArtifactEntryRecord[]): Promise<void>;
  /** Members whose path starts with `prefix` (all when empty), by path. */
  /** Entries under `prefix` by path (byte order), from the path `from` on when given (inclusive). */
  listEntries(artifactId: number, prefix: string, page: Page, from?: string): Promise<ArtifactEntryRecord[]>;
  /** Removes the records of a job's artifacts (all types unless given); answers the paths to delete. */
  deleteForJob(jobId: number, fileTypes?: readonly ArtifactFileType[]): Promise<string[]>;
  /** Artifacts past `expire_at`, oldest first. */
  listExpired(now: string, limit: number): Promise<JobArtifactRecord[]>;
  /** `artifacts/keep`: no expiry for the job's artifacts. */
  clearExpiry(jobId: number): Promise<void>;
}
