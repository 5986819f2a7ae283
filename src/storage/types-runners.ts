/** Runners: instance (shared), group and project runners, and where they may take jobs. */
import type { Page } from './types-ci.ts';

export type RunnerType = 'instance_type' | 'group_type' | 'project_type';
export const RUNNER_TYPES: readonly RunnerType[] = ['instance_type', 'group_type', 'project_type'];

export type RunnerAccessLevel = 'not_protected' | 'ref_protected';

export interface RunnerRecord {
  id: number;
  runner_type: RunnerType;
  /** First 8 characters of the runner token (GitLab's short token); the token itself is kept only as a SHA-256 digest. */
  token_prefix: string;
  description: string;
  /** false: paused. */
  active: boolean;
  /** A project runner that cannot be enabled in other projects. */
  locked: boolean;
  run_untagged: boolean;
  /** Sorted, without duplicates. */
  tag_list: string[];
  access_level: RunnerAccessLevel;
  /** Seconds; null: no cap. */
  maximum_timeout: number | null;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  executor: string | null;
  ip_address: string | null;
  contacted_at: string | null;
  created_at: string;
  updated_at: string;
  /** Free-form notes of its administrators (GitLab: at most 1024 characters). */
  maintenance_note: string;
  /** When the runner's authentication token stops working; null: never. */
  token_expires_at: string | null;
  /** How it came to be: a registration token (`POST /runners`) or a user (`POST /user/runners`, `glrt-` tokens). */
  registration_type: RunnerRegistrationType;
}

export type RunnerRegistrationType = 'registration_token' | 'authenticated_user';

type RunnerDefaults =
  | 'description' | 'active' | 'locked' | 'run_untagged' | 'tag_list' | 'access_level' | 'maximum_timeout' | 'name' | 'version'
  | 'revision' | 'platform' | 'architecture' | 'executor' | 'ip_address' | 'contacted_at' | 'updated_at' | 'maintenance_note'
  | 'token_expires_at' | 'registration_type';

export type NewRunner = Omit<RunnerRecord, 'id' | 'token_prefix' | RunnerDefaults> & Partial<Pick<RunnerRecord, RunnerDefaults>>;

export type RunnerChanges = Partial<Omit<RunnerRecord, 'id' | 'runner_type' | 'token_prefix' | 'created_at' | 'registration_type'>>;

/** What a runner reports about itself on every request. */
export type RunnerInfo = Partial<Pick<RunnerRecord, 'name' | 'version' | 'revision' | 'platform' | 'architecture' | 'executor' | 'ip_address'>>;

export interface RunnerListFilter {
  types?: readonly RunnerType[];
  active?: boolean;
  /** Contacted after this time (the service decides what "online" means). */
  contactedAfter?: string;
  /** Not contacted since this time, or never. */
  notContactedAfter?: string;
  /** Contacted, last at or before this time. */
  lastContactedNotAfter?: string;
  /** Never contacted. */
  neverContacted?: boolean;
  /** Runners carrying every one of these tags. */
  tagList?: readonly string[];
  /** Runners enabled in any of these projects (project runners). */
  projectIds?: readonly number[];
  /** Runners of any of these groups (group runners). */
  namespaceIds?: readonly number[];
  /** With projectIds or namespaceIds: instance (shared) runners as well. */
  orInstanceType?: boolean;
  /** Any of these runners. */
  ids?: readonly number[];
}

export interface RunnersStore {
  /** Stores the runner with the digest and prefix of `token`; project runners get their projects, group runners their group. */
  create(runner: NewRunner, token: string, owners?: { projectIds?: readonly number[]; namespaceId?: number }): Promise<RunnerRecord>;
  findById(id: number): Promise<RunnerRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<RunnerRecord[]>;
  findByToken(token: string): Promise<RunnerRecord | undefined>;
  /** Newest first by id. */
  list(filter: RunnerListFilter, page: Page): Promise<{ items: RunnerRecord[]; total: number }>;
  update(id: number, changes: RunnerChanges): Promise<RunnerRecord | undefined>;
  /** Sets contacted_at and what the runner reported, in one statement. */
  heartbeat(id: number, info: RunnerInfo, now: string): Promise<void>;
  /** New token, same runner (the old token stops working), with its expiry (null: none). */
  resetToken(id: number, token: string, now: string, expiresAt: string | null): Promise<RunnerRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** Project ids a project runner is enabled in, oldest assignment first. */
  projectIds(runnerId: number): Promise<number[]>;
  projectIdsOf(runnerIds: readonly number[]): Promise<Map<number, number[]>>;
  namespaceIds(runnerId: number): Promise<number[]>;
  /** Enables a project runner in a project; false when it already was. */
  assignProject(runnerId: number, projectId: number, now: string): Promise<boolean>;
  unassignProject(runnerId: number, projectId: number): Promise<boolean>;
}

/** Registration tokens of projects and groups, looked up by their value (`POST /runners`). */
export interface RegistrationTokensStore {
  projectIdByRunnersToken(token: string): Promise<number | undefined>;
  groupIdByRunnersToken(token: string): Promise<number | undefined>;
  /** The group's token; `fresh` becomes it when the group had none (first come wins when two race). */
  groupRunnersToken(namespaceId: number, fresh: string, now: string): Promise<string>;
  /** Replaces the group's token (the old one stops registering runners). */
  setGroupRunnersToken(namespaceId: number, token: string, now: string): Promise<void>;
}

/**
 * A runner manager: one host (its `system_id`) working with a runner's token, as GitLab's
 * `Ci::RunnerManager`. Runners older than 16 send no system id and share the `<legacy>` one.
 */
export interface RunnerManagerRecord {
  id: number;
  runner_id: number;
  system_id: string;
  name: string | null;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  executor: string | null;
  ip_address: string | null;
  /** The features the host announced in its last request that carried them. */
  features: Record<string, boolean>;
  created_at: string;
  contacted_at: string | null;
}

/** What a host reports on a request; absent fields leave the stored ones. */
export type RunnerManagerReport = Partial<Pick<RunnerManagerRecord, 'name' | 'version' | 'revision' | 'platform' | 'architecture' | 'executor' | 'ip_address' | 'features'>>;

export interface RunnerManagersStore {
  /** Creates the (runner, system id) row or updates it with the report and the contact time; answers it. */
  record(runnerId: number, systemId: string, report: RunnerManagerReport, contactedAt: string): Promise<RunnerManagerRecord>;
  find(runnerId: number, systemId: string): Promise<RunnerManagerRecord | undefined>;
  /** The runner's managers, most recently contacted first. */
  listByRunner(runnerId: number): Promise<RunnerManagerRecord[]>;
  delete(runnerId: number, systemId: string): Promise<boolean>;
}
