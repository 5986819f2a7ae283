/**
 * Domain records and the narrow store interfaces the coordinator depends on. Records use the
 * API's field names (snake_case) with real booleans; stores hide the SQL.
 */
export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];

/** Guest 10, Reporter 20, Developer 30, Master/Maintainer 40, Owner 50. */
export type AccessLevel = 10 | 20 | 30 | 40 | 50;
export const ACCESS_LEVELS: readonly AccessLevel[] = [10, 20, 30, 40, 50];

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  email: string;
  /** `banned`: blocked by an administrator's ban (GitLab's state); neither blocked nor banned users sign in. */
  state: 'active' | 'blocked' | 'banned';
  is_admin: boolean;
  is_ghost: boolean;
  bio: string;
  location: string;
  messenger_id: string;
  network_profile: string;
  microblog_account: string;
  website_url: string;
  organization: string;
  projects_limit: number;
  can_create_group: boolean;
  external: boolean;
  extern_uid: string | null;
  provider: string | null;
  avatar_url: string | null;
  theme_id: number;
  color_scheme_id: number;
  two_factor_enabled: boolean;
  password_expires_at: string | null;
  created_at: string;
  confirmed_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_activity_on: string | null;
}

export type NewUser = Omit<UserRecord, 'id'> & { password_digest: string | null };
export type UserChanges = Partial<Omit<UserRecord, 'id' | 'created_at'>> & { password_digest?: string | null };

export interface UserListFilter {
  active?: boolean;
  blocked?: boolean;
  search?: string;
  username?: string;
  externUid?: string;
  provider?: string;
  external?: boolean;
  createdBefore?: string;
  createdAfter?: string;
  ids?: number[];
  includeGhosts?: boolean;
  excludeExternal?: boolean;
  admins?: boolean;
  /** Users owning no personal project. */
  withoutProjects?: boolean;
  orderBy?: 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
  sort?: 'asc' | 'desc';
}

export interface UsersStore {
  create(user: NewUser): Promise<UserRecord>;
  findById(id: number): Promise<UserRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<UserRecord[]>;
  findByUsername(username: string): Promise<UserRecord | undefined>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  list(filter: UserListFilter, page: { offset: number; limit: number }): Promise<{ items: UserRecord[]; total: number }>;
  update(id: number, changes: UserChanges): Promise<UserRecord | undefined>;
  delete(id: number): Promise<boolean>;
  count(): Promise<number>;
}

export type NamespaceKind = 'user' | 'group';

export interface NamespaceRecord {
  id: number;
  kind: NamespaceKind;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  parent_id: number | null;
  owner_id: number | null;
  description: string;
  visibility: Visibility;
  lfs_enabled: boolean;
  request_access_enabled: boolean;
  avatar_url: string | null;
  created_at: string;
  updated_at: string;
}

export type NewNamespace = Omit<NamespaceRecord, 'id'>;
export type NamespaceChanges = Partial<Omit<NamespaceRecord, 'id' | 'kind' | 'created_at'>>;

export interface NamespaceListFilter {
  onlyIds?: number[];
  search?: string;
}

export interface GroupMove {
  parentId: number | null;
  fullPath: string;
  fullName: string;
  /** The new parent's visibility: subgroups and projects more open are narrowed to it. */
  narrowTo: Visibility | null;
  updatedAt: string;
}

export interface NamespacesStore {
  create(namespace: NewNamespace): Promise<NamespaceRecord>;
  findById(id: number): Promise<NamespaceRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<NamespaceRecord[]>;
  findByFullPath(fullPath: string): Promise<NamespaceRecord | undefined>;
  findUserNamespace(userId: number): Promise<NamespaceRecord | undefined>;
  /** Every ancestor of the namespace, nearest first. */
  ancestors(id: number): Promise<NamespaceRecord[]>;
  /** Every descendant group id (not including `id`). */
  descendantIds(id: number): Promise<number[]>;
  children(id: number): Promise<NamespaceRecord[]>;
  listGroups(): Promise<NamespaceRecord[]>;
  /** Namespaces of both kinds by id; `onlyIds` narrows, `search` matches name or path (case-insensitive). */
  list(filter: NamespaceListFilter, page: { offset: number; limit: number }): Promise<{ items: NamespaceRecord[]; total: number }>;
  update(id: number, changes: NamespaceChanges): Promise<NamespaceRecord | undefined>;
  /** Rewrites full_path/full_name of `id` and all its descendants after a rename or move. */
  refreshPaths(id: number): Promise<void>;
  /**
   * Moves a group under a new parent (or to the top), in one transaction: its row, the paths of
   * everything below it, and (with `narrowTo`) the visibility of its subgroups and projects that
   * are more open. A unique violation (a path taken meanwhile) rolls all of it back.
   */
  moveGroup(id: number, move: GroupMove): Promise<void>;
  delete(id: number): Promise<boolean>;
}

export interface ProjectRecord {
  id: number;
  namespace_id: number;
  creator_id: number;
  name: string;
  path: string;
  description: string;
  default_branch: string | null;
  visibility: Visibility;
  archived: boolean;
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  wiki_enabled: boolean;
  jobs_enabled: boolean;
  snippets_enabled: boolean;
  container_registry_enabled: boolean;
  resolve_outdated_diff_discussions: boolean;
  shared_runners_enabled: boolean;
  public_jobs: boolean;
  request_access_enabled: boolean;
  only_allow_merge_if_pipeline_succeeds: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  printing_merge_requests_link_enabled: boolean;
  /** How merge requests land on the target branch: a merge commit, a merge commit only when fast-forwardable, or a fast-forward. */
  merge_method: MergeMethod;
  squash_option: SquashOption;
  /** The default of a merge's should_remove_source_branch. */
  remove_source_branch_after_merge: boolean;
  /** GitLab's "Prevent outdated deployment jobs" (forward-deployments.ts). */
  ci_forward_deployment_enabled: boolean;
  /** With it, a retry of an older finished deployment job may run (a rollback). */
  ci_forward_deployment_rollback_allowed: boolean;
  lfs_enabled: boolean;
  tag_list: string[];
  forked_from_id: number | null;
  runners_token: string;
  import_status: string;
  import_error: string | null;
  avatar_url: string | null;
  ci_config_path: string | null;
  /** Invisible while a creation or deletion is in progress (or was cut short). */
  pending_delete: boolean;
  /** The coordinator instance doing that creation or deletion: start-up repair finishes it only once that instance is gone. */
  pending_instance_id: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

export const MERGE_METHODS = ['merge', 'rebase_merge', 'ff'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];
export const SQUASH_OPTIONS = ['never', 'always', 'default_on', 'default_off'] as const;
export type SquashOption = (typeof SQUASH_OPTIONS)[number];
type ProjectMergeSettings = 'merge_method' | 'squash_option' | 'remove_source_branch_after_merge';
type ProjectForwardDeploymentSettings = 'ci_forward_deployment_enabled' | 'ci_forward_deployment_rollback_allowed';
type ProjectDefaultedSettings = ProjectMergeSettings | ProjectForwardDeploymentSettings;

/** The merge settings take their defaults (merge, default_off, true), the forward deployment ones theirs (true, true), when not given. */
export type NewProject = Omit<ProjectRecord, 'id' | ProjectDefaultedSettings> & Partial<Pick<ProjectRecord, ProjectDefaultedSettings>>;
export type ProjectChanges = Partial<Omit<ProjectRecord, 'id' | 'created_at'>>;

export type MemberSourceType = 'project' | 'namespace';

export interface MemberRecord {
  id: number;
  source_type: MemberSourceType;
  source_id: number;
  user_id: number;
  access_level: AccessLevel;
  notification_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface MembersStore {
  add(member: Omit<MemberRecord, 'id'>): Promise<MemberRecord>;
  find(sourceType: MemberSourceType, sourceId: number, userId: number): Promise<MemberRecord | undefined>;
  listForSource(sourceType: MemberSourceType, sourceId: number): Promise<MemberRecord[]>;
  /** The memberships of one user among the given sources (all sources when `sourceIds` is undefined). */
  listForUser(userId: number, sourceType: MemberSourceType, sourceIds?: readonly number[]): Promise<MemberRecord[]>;
  update(id: number, changes: { access_level?: AccessLevel; expires_at?: string | null }): Promise<MemberRecord | undefined>;
  remove(sourceType: MemberSourceType, sourceId: number, userId: number): Promise<boolean>;
  removeAllForSource(sourceType: MemberSourceType, sourceId: number): Promise<void>;
  /** Deletes memberships whose expiry date is `today` or earlier, except group owners; returns how many. */
  removeExpired(today: string): Promise<number>;
}

export type CustomAttributeSubject = 'user' | 'group' | 'project';

export interface CustomAttributeRecord {
  key: string;
  value: string;
}

export interface CustomAttributesStore {
  list(subject: CustomAttributeSubject, subjectId: number): Promise<CustomAttributeRecord[]>;
  get(subject: CustomAttributeSubject, subjectId: number, key: string): Promise<CustomAttributeRecord | undefined>;
  set(subject: CustomAttributeSubject, subjectId: number, key: string, value: string): Promise<CustomAttributeRecord>;
  delete(subject: CustomAttributeSubject, subjectId: number, key: string): Promise<boolean>;
  deleteAllFor(subject: CustomAttributeSubject, subjectId: number): Promise<void>;
  /** Ids of the subjects carrying every given key=value pair. */
  subjectIdsMatching(subject: CustomAttributeSubject, filters: Record<string, string>): Promise<number[]>;
}

export interface SettingsRow {
  settings: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface SettingsStore {
  load(): Promise<SettingsRow | undefined>;
  save(settings: Record<string, unknown>, now: string): Promise<SettingsRow>;
  /**
   * Writes `changes` over the stored document in one transaction, the row locked: two
   * coordinators changing different settings at once both keep their change.
   */
  merge(changes: Record<string, unknown>, now: string): Promise<SettingsRow>;
}

export interface ProjectsStore {
  create(project: NewProject): Promise<ProjectRecord>;
  findById(id: number): Promise<ProjectRecord | undefined>;
  findByIds(ids: readonly number[]): Promise<ProjectRecord[]>;
  findByNamespaceAndPath(namespaceId: number, path: string): Promise<ProjectRecord | undefined>;
  listByNamespaces(namespaceIds: readonly number[]): Promise<ProjectRecord[]>;
  update(id: number, changes: ProjectChanges): Promise<ProjectRecord | undefined>;
  delete(id: number): Promise<boolean>;
  /** Every project's repository-related columns, by id (start-up reconciliation). */
  repositoryStates(): Promise<ProjectRepositoryState[]>;
}

export interface ProjectRepositoryState {
  id: number;
  name: string;
  default_branch: string | null;
  pending_delete: boolean;
  pending_instance_id: string | null;
}

/** Which groups a listing may show: `null` for every group (administrators). */
export interface GroupVisibilityScope {
  /** Visibility levels readable without membership. */
  visibilities: Visibility[];
  /** Groups readable through membership. */
  ids: number[];
}

export interface GroupListFilter {
  scope: GroupVisibilityScope | null;
  /** Only direct children of this group. */
  parentId?: number;
  /** Only these groups (owned, custom attribute matches). */
  onlyIds?: number[];
  skipIds?: number[];
  /** Case-insensitive substring of name or path. */
  search?: string;
  orderBy: 'name' | 'path';
  sort: 'asc' | 'desc';
}

export type ProjectOrderColumn = 'id' | 'name' | 'path' | 'created_at' | 'updated_at' | 'last_activity_at';

export interface GroupProjectFilter {
  groupId: number;
  /** Projects of the group's namespace, projects shared with it, or both. */
  include: 'owned' | 'shared' | 'both';
  /** The namespaces whose projects count as the group's own: the group alone unless given (with its subgroups for include_subgroups). */
  namespaceIds?: number[];
  archived?: boolean;
  visibility?: Visibility;
  search?: string;
  starredBy?: number;
  issuesEnabled?: boolean;
  mergeRequestsEnabled?: boolean;
  /** Only projects carrying every one of these topics (exact names). */
  topics?: string[];
  orderBy: ProjectOrderColumn;
  sort: 'asc' | 'desc';
}

/** Group listing queries (namespaces of kind group, and the projects inside or shared with one). */
export interface GroupQueriesStore {
  listGroups(filter: GroupListFilter, page: { offset: number; limit: number }): Promise<{ items: NamespaceRecord[]; total: number }>;
  /** Ordered, not paged: the caller still applies per-project read rules. */
  listGroupProjects(filter: GroupProjectFilter): Promise<ProjectRecord[]>;
  /** Ids of groups where the user holds a direct membership at `level` or above. */
  groupIdsWithMemberLevel(userId: number, level: AccessLevel): Promise<number[]>;
}

export interface MemberListFilter {
  /** Case-insensitive substring of the user's name or username. */
  query?: string;
  userIds?: number[];
}

/** Member listings joined with their users. */
export interface MemberQueriesStore {
  list(sourceType: MemberSourceType, sourceId: number, filter: MemberListFilter, page: { offset: number; limit: number }): Promise<{ items: MemberRecord[]; total: number }>;
  /** Owner (50) memberships of the given sources other than the membership `exceptMemberId`. */
  countOwners(sourceType: MemberSourceType, sourceIds: readonly number[], exceptMemberId: number): Promise<number>;
}
