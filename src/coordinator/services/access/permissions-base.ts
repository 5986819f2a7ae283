import type {
  AccessLevel,
  GroupVisibilityScope,
  MemberRecord,
  NamespaceRecord,
  NamespacesStore,
  ProjectRecord,
  UserRecord,
  Visibility,
} from '../../../storage/types.ts';
import type { AccessFactsStore } from '../../../storage/types-access.ts';
import type { GroupGroupLinksStore } from '../../../storage/types-projects.ts';
import type { ProjectVisibilityScope } from '../../../storage/types-projects.ts';
import { remember, RequestMemos, type RequestMemo } from './request-memo.ts';

export const GUEST: AccessLevel = 10;
export const REPORTER: AccessLevel = 20;
export const DEVELOPER: AccessLevel = 30;
export const MAINTAINER: AccessLevel = 40;
export const OWNER: AccessLevel = 50;

/** Who is asking: null for anonymous requests. */
export type Actor = UserRecord | null;

/** What members belong to: a project or a group. */
export type MemberSource = { kind: 'project'; project: ProjectRecord } | { kind: 'group'; group: NamespaceRecord };

const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 1, public: 2 };

/** The higher of two levels; null counts as no access. */
function higher(a: AccessLevel | null, b: AccessLevel | null): AccessLevel | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

/** Whether `visibility` is more open than `limit` (public > internal > private). */
export function moreOpenThan(visibility: Visibility, limit: Visibility): boolean {
  return VISIBILITY_RANK[visibility] > VISIBILITY_RANK[limit];
}

/**
 * Everything about one caller's memberships that project listings and answers need, gathered
 * once per request (services/project-scope.ts): levels in namespaces (with their subgroups,
 * and groups shared with the caller's groups), direct project memberships and projects
 * shared with the caller's groups.
 */
export interface ActorProjectAccess {
  /** Namespace id → the caller's level there (user namespace: owner; subgroups inherit). */
  namespaceLevels: Map<number, AccessLevel>;
  /** Project id → the caller's direct membership. */
  projectMembers: Map<number, MemberRecord>;
  /** Projects shared with a group the caller belongs to. */
  sharedProjectIds: number[];
}

/** Where a caller may create (or fork) a project: allowed, hidden from them (404) or visible but refused (403). */
export type ProjectCreationRight = 'allowed' | 'hidden' | 'denied';

export interface ProjectAccess {
  /** The caller's direct membership of the project, or null. */
  projectAccess: AccessLevel | null;
  /** The caller's highest membership of the project's group and its ancestors, or null. */
  groupAccess: AccessLevel | null;
  /** The effective level (membership, group share, ownership); administrators count as owners. */
  effective: AccessLevel | null;
  /** The caller's direct membership record of the project, or null. */
  projectMember: MemberRecord | null;
}

/**
 * Access levels, visibility and the project, group and user rules: the base of Permissions
 * (permissions.ts), which adds the repository, CI and runner areas.
 */
export class PermissionsBase {
  constructor(
    private readonly facts: AccessFactsStore,
    private readonly namespaces: NamespacesStore,
    private readonly groupLinks: GroupGroupLinksStore,
    /** Per-request memos: within one read request each fact is looked up once. */
    readonly memos: RequestMemos = new RequestMemos(),
  ) {}

  /**
   * Runs `read` (the answer to a write, once the write is done) with a request memo of its
   * own, so that the answer resolves each fact once as a read request does.
   */
  async readAfterWrite<T>(actor: UserRecord, read: (reader: UserRecord) => Promise<T>): Promise<T> {
    const reader = this.memos.open(actor);
    try {
      return await read(reader);
    } finally {
      this.memos.close(reader);
    }
  }

  /** Whether a visibility level is readable by the actor without any membership. */
  visibilityAllows(visibility: Visibility, actor: Actor): boolean {
    if (visibility === 'public') return true;
    if (visibility === 'internal') return actor !== null && !actor.external;
    return false;
  }

  async projectAccess(project: ProjectRecord, actor: Actor): Promise<ProjectAccess> {
    if (!actor) return { projectAccess: null, groupAccess: null, effective: null, projectMember: null };
    const memo = this.memos.of(actor);
    return remember(memo?.levels as Map<string, Promise<ProjectAccess>> | undefined, `project:${project.id}:${project.namespace_id}`, async () => {
      const direct = (await this.membershipsOf(actor)).find((member) => member.source_type === 'project' && member.source_id === project.id);
      const groupAccess = await this.namespaceMembershipLevel(project.namespace_id, actor);
      const shared = await this.sharedGroupLevel(project.id, actor);
      const levels = [direct?.access_level, groupAccess, shared].filter((level): level is AccessLevel => level != null);
      let effective: AccessLevel | null = levels.length ? (Math.max(...levels) as AccessLevel) : null;
      if (actor.is_admin) effective = OWNER;
      return { projectAccess: direct?.access_level ?? null, groupAccess, effective, projectMember: direct ?? null };
    });
  }

  async canReadProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (this.visibilityAllows(project.visibility, actor)) return true;
    const access = await this.projectAccess(project, actor);
    return access.effective !== null && access.effective >= GUEST;
  }

  /**
   * The ids of the projects the actor can read. Answers that name other projects (a fork's
   * `forked_from_project`) show only these, so a fork never reveals a source its reader cannot see.
   */
  async readableProjectIds(projects: readonly ProjectRecord[], actor: Actor): Promise<Set<number>> {
    const readable = new Set<number>();
    for (const project of projects) {
      if (!readable.has(project.id) && (await this.canReadProject(project, actor))) readable.add(project.id);
    }
    return readable;
  }

  /** The ids of the groups the actor can read: `shared_with_groups` lists only these. */
  async readableGroupIds(groups: readonly NamespaceRecord[], actor: Actor): Promise<Set<number>> {
    const readable = new Set<number>();
    for (const group of groups) {
      if (!readable.has(group.id) && (await this.canReadGroup(group, actor))) readable.add(group.id);
    }
    return readable;
  }

  async projectLevelAtLeast(project: ProjectRecord, actor: Actor, level: AccessLevel): Promise<boolean> {
    if (!actor) return false;
    if (actor.is_admin) return true;
    const access = await this.projectAccess(project, actor);
    return access.effective !== null && access.effective >= level;
  }

  /** Reading code (files, commits, clone): public/internal by visibility, private from Reporter up. */
  async canReadRepository(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (this.visibilityAllows(project.visibility, actor)) return true;
    return this.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** Writing code (push, commits, branches, tags) before protected-branch rules: Developer and up. */
  async canWriteRepository(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (project.archived) return false;
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /**
   * Highest level of the actor in the namespace through membership of it or an ancestor, or
   * through a group one of those is shared with (capped at the share's level); the owner of a
   * user namespace: 50.
   */
  async namespaceMembershipLevel(namespaceId: number, actor: Actor): Promise<AccessLevel | null> {
    if (!actor) return null;
    const memo = this.memos.of(actor);
    return remember(memo?.levels as Map<string, Promise<AccessLevel | null>> | undefined, `namespace:${namespaceId}`, async () => {
      const [namespace] = await this.chainOf(namespaceId, memo);
      if (!namespace) return null;
      if (namespace.kind === 'user') return namespace.owner_id === actor.id ? OWNER : null;
      const chain = await this.selfAndAncestors(namespace.id, memo);
      return higher(await this.highestMembership(actor, chain), await this.levelThroughGroupShares(actor, chain, memo));
    });
  }

  /** Membership of the group or an ancestor only: what a share of (or with) the group passes on. Shares do not chain. */
  protected async directGroupLevel(groupId: number, actor: UserRecord): Promise<AccessLevel | null> {
    return this.highestMembership(actor, await this.selfAndAncestors(groupId, this.memos.of(actor)));
  }

  protected async levelThroughGroupShares(actor: UserRecord, chain: readonly number[], memo: RequestMemo | undefined): Promise<AccessLevel | null> {
    let best: AccessLevel | null = null;
    const links = await remember(memo?.groupShares, chain.join(','), () => this.groupLinks.listForSharedGroups(chain));
    for (const link of links) {
      const invited = await this.directGroupLevel(link.shared_with_group_id, actor);
      if (invited !== null) best = higher(best, Math.min(invited, link.group_access) as AccessLevel);
    }
    return best;
  }

  protected async highestMembership(actor: UserRecord, namespaceIds: readonly number[]): Promise<AccessLevel | null> {
    const memberships = await this.groupMemberships(actor, namespaceIds);
    if (memberships.length === 0) return null;
    return Math.max(...memberships.map((member) => member.access_level)) as AccessLevel;
  }

  /** The actor's memberships of the given groups. */
  protected async groupMemberships(actor: UserRecord, namespaceIds: readonly number[]): Promise<MemberRecord[]> {
    const wanted = new Set(namespaceIds);
    return (await this.membershipsOf(actor)).filter((member) => member.source_type === 'namespace' && wanted.has(member.source_id));
  }

  protected membershipsOf(actor: UserRecord): Promise<MemberRecord[]> {
    const memo = this.memos.of(actor);
    if (!memo) return this.facts.membershipsOf(actor.id);
    memo.memberships ??= this.facts.membershipsOf(actor.id);
    return memo.memberships;
  }

  protected chainOf(namespaceId: number, memo: RequestMemo | undefined): Promise<NamespaceRecord[]> {
    return remember(memo?.chains, namespaceId, () => this.facts.namespaceChain(namespaceId));
  }

  /** The namespace's id and its ancestors' (the id alone when it does not exist, as before). */
  protected async selfAndAncestors(namespaceId: number, memo: RequestMemo | undefined): Promise<number[]> {
    return [namespaceId, ...(await this.chainOf(namespaceId, memo)).slice(1).map((ancestor) => ancestor.id)];
  }

  async groupAccess(group: NamespaceRecord, actor: Actor): Promise<AccessLevel | null> {
    if (!actor) return null;
    if (actor.is_admin) return OWNER;
    return this.namespaceMembershipLevel(group.id, actor);
  }

  async canReadGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (this.visibilityAllows(group.visibility, actor)) return true;
    if (!actor) return false;
    if ((await this.namespaceMembershipLevel(group.id, actor)) !== null) return true;
    return this.hasMembershipBelow(group, actor);
  }

  async groupLevelAtLeast(group: NamespaceRecord, actor: Actor, level: AccessLevel): Promise<boolean> {
    const access = await this.groupAccess(group, actor);
    return access !== null && access >= level;
  }

  /** Members of a subgroup or of a project inside the group can see the group itself. */
  protected async hasMembershipBelow(group: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    const descendants = await this.namespaces.descendantIds(group.id);
    if ((await this.groupMemberships(actor, descendants)).length > 0) return true;
    const projectMemberships = (await this.membershipsOf(actor)).filter((member) => member.source_type === 'project');
    if (projectMemberships.length === 0) return false;
    const inside = new Set(await this.facts.projectIdsIn([group.id, ...descendants]));
    return projectMemberships.some((member) => inside.has(member.source_id));
  }

  /**
   * The groups a listing may show: null for administrators (every group). Others see the
   * groups readable without membership (unless `includeVisible` is false, as with
   * `all_available=false`) plus those reached through membership.
   */
  async groupVisibilityScope(actor: Actor, options: { includeVisible: boolean }): Promise<GroupVisibilityScope | null> {
    if (actor?.is_admin) return null;
    if (!actor) return { visibilities: ['public'], ids: [] };
    const visible: Visibility[] = actor.external ? ['public'] : ['public', 'internal'];
    return { visibilities: options.includeVisible ? visible : [], ids: await this.groupIdsThroughMembership(actor) };
  }

  /** Only users allowed to create groups (and administrators) may create top-level groups. */
  /** Administrators list every namespace; others their own and the groups they belong to. */
  seesEveryNamespace(actor: UserRecord): boolean {
    return actor.is_admin;
  }

  /** A personal namespace is its owner's alone; a group follows the group read rule. */
  async canReadNamespace(namespace: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    if (namespace.kind === 'user') return namespace.owner_id === actor.id;
    return this.canReadGroup(namespace, actor);
  }

  canCreateGroup(actor: UserRecord): boolean {
    return actor.is_admin || actor.can_create_group;
  }

  /** Owners administer a group: update, delete, create subgroups. */
  async canAdminGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.groupLevelAtLeast(group, actor, OWNER);
  }

  /** Maintainers (40) and above manage members of a project or group. */
  async canManageMembers(source: MemberSource, actor: Actor): Promise<boolean> {
    if (source.kind === 'project') return this.projectLevelAtLeast(source.project, actor, MAINTAINER);
    return this.groupLevelAtLeast(source.group, actor, MAINTAINER);
  }

  /** Only group owners (and administrators) grant, change or remove the owner level. */
  async canTouchMemberLevel(source: MemberSource, actor: Actor, levels: readonly AccessLevel[]): Promise<boolean> {
    if (!levels.some((level) => level >= OWNER)) return true;
    if (source.kind === 'project') return this.projectLevelAtLeast(source.project, actor, OWNER);
    return this.groupLevelAtLeast(source.group, actor, OWNER);
  }

  // groups and users area ------------------------------------------------------------------

  /** Administrators run the instance: other users' accounts, keys and tokens, settings, anyone's memberships. */
  isAdministrator(actor: Actor): boolean {
    return actor?.is_admin === true;
  }

  /** Users are listed to anyone signed in, and to anonymous callers unless the public level is restricted. */
  canListUsers(actor: Actor, publicVisibilityRestricted: boolean): boolean {
    return actor !== null || !publicVisibilityRestricted;
  }

  /** Whether the caller owns a namespace: its personal namespace, or owner of the group or an ancestor. */
  async ownsNamespace(namespaceId: number, actor: Actor): Promise<boolean> {
    return (await this.namespaceMembershipLevel(namespaceId, actor)) === OWNER;
  }

  /** A personal access token is revoked by its owner or an administrator. */
  canRevokeToken(token: { user_id: number }, actor: UserRecord): boolean {
    return token.user_id === actor.id || actor.is_admin;
  }

  /** Sharing a group and changing its members need the group's owner (or an administrator). */
  async canShareGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.canAdminGroup(group, actor);
  }

  // end of groups and users area ---------------------------------------------------------------

  /** Member groups with their ancestors and descendants, and the groups holding member projects with their ancestors. */
  protected async groupIdsThroughMembership(actor: UserRecord): Promise<number[]> {
    const ids = new Set<number>();
    const memo = this.memos.of(actor);
    const addWithAncestors = async (id: number) => {
      ids.add(id);
      for (const ancestor of (await this.chainOf(id, memo)).slice(1)) ids.add(ancestor.id);
    };
    const reached = new Set<number>();
    for (const membership of (await this.membershipsOf(actor)).filter((member) => member.source_type === 'namespace')) {
      await addWithAncestors(membership.source_id);
      reached.add(membership.source_id);
      for (const id of await this.namespaces.descendantIds(membership.source_id)) {
        ids.add(id);
        reached.add(id);
      }
    }
    // Groups shared with a group the actor belongs to, and their subgroups.
    for (const link of await this.groupLinks.listForInvitedGroups([...reached])) {
      ids.add(link.shared_group_id);
      for (const id of await this.namespaces.descendantIds(link.shared_group_id)) ids.add(id);
    }
    for (const namespaceId of await this.facts.namespacesOfMemberProjects(actor.id)) await addWithAncestors(namespaceId);
    return [...ids];
  }


  /**
   * The groups a project is shared with, as the read rules saw them: within a read request
   * they are read once for both the access decision and the answer.
   */
  projectShares(projectId: number, actor: Actor): Promise<Array<{ group_id: number; group_access: AccessLevel }>> {
    return remember(this.memos.of(actor)?.projectShares, projectId, () => this.facts.projectShares(projectId));
  }

  /** Namespaces by id, taking those the request's read rules already resolved from its memo. */
  async namespacesByIds(ids: readonly number[], actor: Actor): Promise<NamespaceRecord[]> {
    const memo = this.memos.of(actor);
    const known: NamespaceRecord[] = [];
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const chain = memo?.chains.get(id);
      const namespace = chain && (await chain)[0];
      if (namespace) known.push(namespace);
      else missing.push(id);
    }
    return missing.length === 0 ? known : [...known, ...(await this.namespaces.findByIds(missing))];
  }

  protected async sharedGroupLevel(projectId: number, actor: UserRecord): Promise<AccessLevel | null> {
    const links = await this.projectShares(projectId, actor);
    let best: AccessLevel | null = null;
    for (const link of links) {
      const level = await this.directGroupLevel(link.group_id, actor);
      if (level === null) continue;
      const granted = Math.min(level, link.group_access) as AccessLevel;
      if (best === null || granted > best) best = granted;
    }
    return best;
  }

  // ---- projects area (api/projects*.ts, services/project*.ts) -------------------------------

  /** Editing a project's settings, archiving it and sharing it with groups: Maintainer and up. */
  async canEditProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** Deleting a project and transferring it elsewhere: Owner (administrators too). */
  async canAdministerProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, OWNER);
  }

  /** A fork copies the code: whoever reads the repository may fork it. */
  async canForkProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.canReadRepository(project, actor);
  }

  /** `statistics` of `GET /projects/:id` (repository size, commit count): Reporter and up. */
  async canReadProjectStatistics(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, REPORTER);
  }

  /**
   * Creating or forking a project into `namespace`: one's own personal namespace (any, for
   * administrators), or a group where one is Developer or more; a group one cannot read is hidden.
   */
  async projectCreationIn(namespace: NamespaceRecord, actor: UserRecord): Promise<ProjectCreationRight> {
    if (namespace.kind === 'user') return namespace.owner_id === actor.id || actor.is_admin ? 'allowed' : 'hidden';
    if (!(await this.canReadGroup(namespace, actor))) return 'hidden';
    return (await this.groupLevelAtLeast(namespace, actor, DEVELOPER)) ? 'allowed' : 'denied';
  }

  /** Moving a project into `namespace`: administrators anywhere, others their own namespace or a group they maintain. */
  async canTransferProjectInto(namespace: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    if (namespace.kind === 'user') return namespace.owner_id === actor.id;
    return this.groupLevelAtLeast(namespace, actor, MAINTAINER);
  }

  /** The project's runners token shows to administrators and to its Maintainers (directly or through its group). */
  seesRunnersToken(project: ProjectRecord, actor: Actor, access: ActorProjectAccess): boolean {
    if (!actor) return false;
    if (actor.is_admin) return true;
    const levels = [access.projectMembers.get(project.id)?.access_level, access.namespaceLevels.get(project.namespace_id)];
    return levels.some((level) => level !== undefined && level >= MAINTAINER);
  }

  /** Levels the administrator restricted (`restricted_visibility_levels`) remain open to administrators. */
  usesRestrictedVisibilities(actor: UserRecord): boolean {
    return actor.is_admin;
  }

  /** Administrators have no personal project limit. */
  hasProjectLimit(owner: UserRecord): boolean {
    return !owner.is_admin;
  }

  /** Custom attributes (`with_custom_attributes`, the `custom_attributes` filter) are shown to administrators only. */
  readsCustomAttributes(actor: Actor): boolean {
    return actor?.is_admin === true;
  }

  /** What a project listing may show the caller: null for administrators (everything). */
  projectListingScope(actor: Actor, access: ActorProjectAccess): ProjectVisibilityScope | null {
    if (actor?.is_admin) return null;
    const visibilities: ProjectVisibilityScope['visibilities'] = actor ? (actor.external ? ['public'] : ['public', 'internal']) : ['public'];
    return {
      visibilities,
      namespaceIds: [...access.namespaceLevels.keys()],
      projectIds: [...access.projectMembers.keys(), ...access.sharedProjectIds],
    };
  }

  /** Projects reached through the caller's own memberships at `minLevel` or above (`membership`, `min_access_level`). */
  projectMembershipScope(access: ActorProjectAccess, minLevel: AccessLevel): ProjectVisibilityScope {
    const namespaceIds = [...access.namespaceLevels].flatMap(([id, level]) => (level >= minLevel ? [id] : []));
    const projectIds = [...access.projectMembers.values()].flatMap((member) => (member.access_level >= minLevel ? [member.source_id] : []));
    return { visibilities: [], namespaceIds, projectIds: minLevel <= GUEST ? [...projectIds, ...access.sharedProjectIds] : projectIds };
  }

}
