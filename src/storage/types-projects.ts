import type { AccessLevel, ProjectOrderColumn, ProjectRecord, Visibility } from './types.ts';

/** Which projects a listing may show: `null` for every project (administrators). */
export interface ProjectVisibilityScope {
  /** Visibility levels readable without membership. */
  visibilities: Visibility[];
  /** Namespaces whose projects are readable through membership (user namespace, groups and their subgroups). */
  namespaceIds: number[];
  /** Projects readable through a direct membership or a group share. */
  projectIds: number[];
}

export interface ProjectListFilter {
  scope: ProjectVisibilityScope | null;
  /** Only these projects (membership, owned, custom attribute matches); an empty list matches nothing. */
  onlyIds?: number[];
  /** Only projects in these namespaces. */
  namespaceIds?: number[];
  /** Only the (live) forks of this project. */
  forkedFromId?: number;
  archived?: boolean;
  visibility?: Visibility;
  /** Case-insensitive substring of name or path (and of the namespace path when `searchNamespaces`). */
  search?: string;
  searchNamespaces?: boolean;
  starredBy?: number;
  issuesEnabled?: boolean;
  mergeRequestsEnabled?: boolean;
  /** Only projects carrying every one of these topics (exact names). */
  topics?: string[];
  lastActivityAfter?: string;
  lastActivityBefore?: string;
  idAfter?: number;
  idBefore?: number;
  orderBy: ProjectOrderColumn;
  sort: 'asc' | 'desc';
}

/** Project listings and the per-page figures the Project presenter needs, one query each. */
export interface ProjectQueriesStore {
  list(filter: ProjectListFilter, page: { offset: number; limit: number }): Promise<{ items: ProjectRecord[]; total: number }>;
  /** Stars and (live) forks of each project. */
  starAndForkCounts(projectIds: readonly number[]): Promise<Map<number, { stars: number; forks: number }>>;
  /** Group shares of the projects: project id → [{group id, level}]. */
  groupShares(projectIds: readonly number[]): Promise<Map<number, Array<{ group_id: number; group_access: AccessLevel }>>>;
  /** Ids of the projects shared with any of the groups. */
  projectIdsSharedWith(groupIds: readonly number[]): Promise<number[]>;
  isStarred(userId: number, projectId: number): Promise<boolean>;
  /** false when it was starred already. */
  star(userId: number, projectId: number, now: string): Promise<boolean>;
  /** false when it was not starred. */
  unstar(userId: number, projectId: number): Promise<boolean>;
  /** The project of a namespace with this name, compared case-insensitively. */
  findByNamespaceAndName(namespaceId: number, name: string): Promise<ProjectRecord | undefined>;
  /** Projects in a namespace (a personal namespace's count is checked against projects_limit). */
  countInNamespace(namespaceId: number): Promise<number>;
}

/** A project shared with a group: the group's members get up to `group_access` in the project. */
export interface ProjectGroupLinkRecord {
  id: number;
  project_id: number;
  group_id: number;
  group_access: AccessLevel;
  expires_at: string | null;
  created_at: string;
}

export interface ProjectGroupLinksStore {
  find(projectId: number, groupId: number): Promise<ProjectGroupLinkRecord | undefined>;
  /** undefined when the project is already shared with the group. */
  add(link: Omit<ProjectGroupLinkRecord, 'id'>): Promise<ProjectGroupLinkRecord | undefined>;
  /** false when there was no such share. */
  remove(projectId: number, groupId: number): Promise<boolean>;
  /** Deletes shares whose expiry date is `today` or earlier; returns how many. */
  removeExpired(today: string): Promise<number>;
}

/** A group shared with another group: the invited group's members reach the shared group at most at `group_access`. */
export interface GroupGroupLinkRecord {
  id: number;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: AccessLevel;
  expires_at: string | null;
  created_at: string;
}

export interface GroupGroupLinksStore {
  /** undefined when the group is already shared with that group. */
  add(link: Omit<GroupGroupLinkRecord, 'id'>): Promise<GroupGroupLinkRecord | undefined>;
  remove(sharedGroupId: number, sharedWithGroupId: number): Promise<boolean>;
  /** Shares of these groups (as the shared group), oldest first. */
  listForSharedGroups(groupIds: readonly number[]): Promise<GroupGroupLinkRecord[]>;
  /** Shares with these groups (as the invited group). */
  listForInvitedGroups(groupIds: readonly number[]): Promise<GroupGroupLinkRecord[]>;
  /** Deletes shares whose expiry date is `today` or earlier; returns how many. */
  removeExpired(today: string): Promise<number>;
}
