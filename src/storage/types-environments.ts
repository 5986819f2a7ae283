/** Environments of a project and the deployments to them. */
import type { EnvironmentTier } from '../ci/environment-tier.ts';
import type { Page } from './types-ci.ts';

export type EnvironmentState = 'available' | 'stopped';

export interface EnvironmentRecord {
  id: number;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  state: EnvironmentState;
  /** Declared by the job that created it (`deployment_tier`), else guessed from its name then; a deployment declaring one changes it. */
  tier: EnvironmentTier;
  /** When the auto-stop sweep stops it (a successful deployment's `auto_stop_in`); null: never. */
  auto_stop_at: string | null;
  /** The merge request whose merge request pipeline created it (GitLab's `merge_request_id`); null otherwise. */
  merge_request_id: number | null;
  created_at: string;
  updated_at: string;
}

export type NewEnvironment = Omit<EnvironmentRecord, 'id' | 'auto_stop_at' | 'merge_request_id'> & Partial<Pick<EnvironmentRecord, 'auto_stop_at' | 'merge_request_id'>>;
export type EnvironmentChanges = Partial<Pick<EnvironmentRecord, 'name' | 'slug' | 'external_url' | 'state' | 'tier' | 'auto_stop_at' | 'updated_at'>>;

export interface EnvironmentsStore {
  /** Throws a unique violation when the project has the name or slug already. */
  create(environment: NewEnvironment): Promise<EnvironmentRecord>;
  /**
   * The project's environment of that name, inserted when missing (a concurrent insert of the
   * same name wins quietly); undefined when another name already holds the slug.
   */
  findOrCreate(environment: NewEnvironment): Promise<EnvironmentRecord | undefined>;
  findInProject(projectId: number, id: number): Promise<EnvironmentRecord | undefined>;
  findByName(projectId: number, name: string): Promise<EnvironmentRecord | undefined>;
  /** The environments the merge request's pipelines created, oldest first. */
  listCreatedByMergeRequest(projectId: number, mergeRequestId: number): Promise<EnvironmentRecord[]>;
  /** By id; `name` exact, `search` a substring of the name, `states` any of them. */
  list(projectId: number, filter: { name?: string; search?: string; states?: readonly EnvironmentState[] }, page: Page): Promise<{ items: EnvironmentRecord[]; total: number }>;
  update(id: number, changes: EnvironmentChanges): Promise<EnvironmentRecord | undefined>;
  /** Available environments (of every project) whose `auto_stop_at` is at or before `now`, soonest first. */
  listAutoStopDue(now: string, limit: number): Promise<EnvironmentRecord[]>;
  /**
   * Stops the environment (clearing `auto_stop_at`) if it is still available and due at `now`;
   * undefined when it is not (a deployment renewed it, someone stopped or deleted it meanwhile).
   */
  stopIfDue(id: number, now: string): Promise<EnvironmentRecord | undefined>;
  delete(id: number): Promise<boolean>;
}

export type DeploymentStatus = 'created' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'blocked';

export interface DeploymentRecord {
  id: number;
  /** Per project. */
  iid: number;
  project_id: number;
  environment_id: number;
  job_id: number | null;
  ref: string;
  tag: boolean;
  sha: string;
  user_id: number | null;
  status: DeploymentStatus;
  /** Name of the job that stops the environment. */
  on_stop: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type NewDeployment = Omit<DeploymentRecord, 'id' | 'iid'>;

/** A project's `ci_forward_deployment_enabled` and `ci_forward_deployment_rollback_allowed`. */
export interface ForwardDeploymentSettings {
  enabled: boolean;
  rollbackAllowed: boolean;
}

export interface DeploymentsStore {
  /** Inserts with the project's next deployment iid. */
  create(deployment: NewDeployment): Promise<DeploymentRecord>;
  findById(id: number): Promise<DeploymentRecord | undefined>;
  findByJob(jobId: number): Promise<DeploymentRecord | undefined>;
  /** The project's newest deployment (a webhook's test call). */
  latestForProject(projectId: number): Promise<DeploymentRecord | undefined>;
  update(id: number, changes: Partial<Pick<DeploymentRecord, 'status' | 'updated_at' | 'finished_at'>>): Promise<DeploymentRecord | undefined>;
  /** The deployments of the pipeline's jobs (retried ones included), oldest first. */
  listForPipeline(pipelineId: number): Promise<DeploymentRecord[]>;
  /** Newest first. */
  listForEnvironment(environmentId: number, page: Page): Promise<{ items: DeploymentRecord[]; total: number }>;
  /** The newest successful deployment of each environment (`last_deployment`). */
  lastSuccessful(environmentIds: readonly number[]): Promise<Map<number, DeploymentRecord>>;
  /** The environments' deployments still `created` or `running` (GitLab's `active_deployments`), oldest first. */
  listActive(environmentIds: readonly number[]): Promise<DeploymentRecord[]>;
  /** The project's "Prevent outdated deployment jobs" settings (both true when the project is gone). */
  forwardDeploymentSettings(projectId: number): Promise<ForwardDeploymentSettings>;
  /** The environment's newest successful deployment older than this one. */
  previousSuccessful(deployment: Pick<DeploymentRecord, 'id' | 'environment_id'>): Promise<DeploymentRecord | undefined>;
  /**
   * Links the project's merged requests whose merge or squash commit is one of `commitIds`
   * (into `targetBranch` when given) to the deployment; links it has stay. Answers how many
   * were added.
   */
  linkMergedRequests(deployment: Pick<DeploymentRecord, 'id' | 'project_id' | 'environment_id'>, commitIds: readonly string[], targetBranch?: string): Promise<number>;
  /** Ids of the merge requests linked to the deployment, ascending. */
  linkedMergeRequestIds(deploymentId: number): Promise<number[]>;
}
