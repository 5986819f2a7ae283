import type { AccessLevel, GroupVisibilityScope, NamespaceRecord, NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { AccessFactsStore } from '../../../storage/types-access.ts';
import type { GroupGroupLinksStore, ProjectVisibilityScope } from '../../../storage/types-projects.ts';
import {
  DEVELOPER,
  GUEST,
  MAINTAINER,
  OWNER,
  readableWithoutMembership,
  REPORTER,
  visibilitiesReadableBy,
  type Actor,
  type ActorProjectAccess,
  type MemberSource,
  type ProjectAccess,
  type ProjectCreationRight,
} from './levels.ts';
import { MembershipFacts } from './membership-facts.ts';
import { MembershipLevels } from './membership-levels.ts';
import type { RequestMemos } from './request-memo.ts';

export * from './levels.ts';

/**
 * The project, group and user rules: the base of Permissions (permissions.ts), which adds the
 * repository, CI and runner areas. Rules only: levels come from MembershipLevels, facts and
 * their per-request memo from MembershipFacts.
 */
export class PermissionsBase {
  protected readonly facts: MembershipFacts;
  protected readonly levels: MembershipLevels;

  constructor(facts: AccessFactsStore, namespaces: NamespacesStore, groupLinks: GroupGroupLinksStore, memos?: RequestMemos) {
    this.facts = new MembershipFacts(facts, namespaces, groupLinks, memos);
    this.levels = new MembershipLevels(this.facts);
  }

  // What the rules read, for the request's answer (see MembershipFacts) ------------------------

  get memos(): RequestMemos {
    return this.facts.memos;
  }

  readAfterWrite<T>(actor: UserRecord, read: (reader: UserRecord) => Promise<T>): Promise<T> {
    return this.facts.readAfterWrite(actor, read);
  }

  projectShares(projectId: number, actor: Actor): Promise<Array<{ group_id: number; group_access: AccessLevel }>> {
    return this.facts.projectShares(projectId, actor);
  }

  namespacesByIds(ids: readonly number[], actor: Actor): Promise<NamespaceRecord[]> {
    return this.facts.namespacesByIds(ids, actor);
  }

  // levels ------------------------------------------------------------------------------------

  async projectAccess(project: ProjectRecord, actor: Actor): Promise<ProjectAccess> {
    if (!actor) return { projectAccess: null, groupAccess: null, effective: null, membership: null, projectMember: null };
    return this.levels.projectAccess(project, actor);
  }

  async projectLevelAtLeast(project: ProjectRecord, actor: Actor, level: AccessLevel): Promise<boolean> {
    if (!actor) return false;
    if (actor.is_admin) return true;
    const access = await this.levels.projectAccess(project, actor);
    return access.effective !== null && access.effective >= level;
  }

  async groupAccess(group: NamespaceRecord, actor: Actor): Promise<AccessLevel | null> {
    if (!actor) return null;
    if (actor.is_admin) return OWNER;
    return this.levels.namespaceMembershipLevel(group.id, actor);
  }

  async groupLevelAtLeast(group: NamespaceRecord, actor: Actor, level: AccessLevel): Promise<boolean> {
    const access = await this.groupAccess(group, actor);
    return access !== null && access >= level;
  }

  // reading projects and groups ---------------------------------------------------------------

  async canReadProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (readableWithoutMembership(project.visibility, actor)) return true;
    return this.projectLevelAtLeast(project, actor, GUEST);
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

  /** What a project listing may show the caller (the read rule as a list filter): null for administrators (everything). */
  projectListingScope(actor: Actor, access: ActorProjectAccess): ProjectVisibilityScope | null {
    if (actor?.is_admin) return null;
    return {
      visibilities: visibilitiesReadableBy(actor),
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

  /** Reading code (files, commits, clone): public/internal by visibility, private from Reporter up. */
  async canReadRepository(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (readableWithoutMembership(project.visibility, actor)) return true;
    return this.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** Writing code (push, commits, branches, tags) before protected-branch rules: Developer and up. */
  async canWriteRepository(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (project.archived) return false;
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** A group by visibility, or to members of it, of an ancestor (through shares too) or of anything inside it. */
  async canReadGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (readableWithoutMembership(group.visibility, actor)) return true;
    if (!actor) return false;
    if ((await this.levels.namespaceMembershipLevel(group.id, actor)) !== null) return true;
    return this.levels.hasMembershipBelow(group, actor);
  }

  /** The ids of the groups the actor can read: `shared_with_groups` lists only these. */
  async readableGroupIds(groups: readonly NamespaceRecord[], actor: Actor): Promise<Set<number>> {
    const readable = new Set<number>();
    for (const group of groups) {
      if (!readable.has(group.id) && (await this.canReadGroup(group, actor))) readable.add(group.id);
    }
    return readable;
  }

  /**
   * The groups a listing may show (GitLab's GroupsFinder with the API's `all_available`): null
   * (every group) for administrators unless `allAvailable` is false; anonymous callers the
   * groups readable without membership; signed-in ones those reached through membership, and
   * the groups readable without membership too when `allAvailable` is true.
   */
  async groupVisibilityScope(actor: Actor, options: { allAvailable?: boolean }): Promise<GroupVisibilityScope | null> {
    if (actor?.is_admin && options.allAvailable !== false) return null;
    const visibilities = options.allAvailable === true || !actor ? visibilitiesReadableBy(actor) : [];
    return { visibilities, ids: actor ? await this.levels.groupIdsThroughMembership(actor) : [] };
  }

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

  // groups and members --------------------------------------------------------------------------

  /** Only users allowed to create groups (and administrators) may create top-level groups. */
  canCreateGroup(actor: UserRecord): boolean {
    return actor.is_admin || actor.can_create_group;
  }

  /** Owners administer a group: update, delete, create subgroups. */
  async canAdminGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.groupLevelAtLeast(group, actor, OWNER);
  }

  /** Sharing a group and changing its members need the group's owner (or an administrator). */
  async canShareGroup(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.canAdminGroup(group, actor);
  }

  /** Maintainers (40) and above manage members of a project or group. */
  async canManageMembers(source: MemberSource, actor: Actor): Promise<boolean> {
    if (source.kind === 'project') return this.projectLevelAtLeast(source.project, actor, MAINTAINER);
    return this.groupLevelAtLeast(source.group, actor, MAINTAINER);
  }

  /** Project access tokens: Maintainer and up; group access tokens: the group's owners (GitLab's admin_group). */
  async canManageAccessTokens(source: MemberSource, actor: Actor): Promise<boolean> {
    if (source.kind === 'project') return this.projectLevelAtLeast(source.project, actor, MAINTAINER);
    return this.canAdminGroup(source.group, actor);
  }

  /** An access token's level must not exceed its creator's own (administrators: Owner). */
  async canGrantAccessTokenLevel(source: MemberSource, actor: UserRecord, level: AccessLevel): Promise<boolean> {
    if (actor.is_admin) return true;
    const own = source.kind === 'project' ? (await this.levels.projectAccess(source.project, actor)).effective : await this.groupAccess(source.group, actor);
    return own !== null && own >= level;
  }

  /** Only group owners (and administrators) grant, change or remove the owner level. */
  async canTouchMemberLevel(source: MemberSource, actor: Actor, levels: readonly AccessLevel[]): Promise<boolean> {
    if (!levels.some((level) => level >= OWNER)) return true;
    if (source.kind === 'project') return this.projectLevelAtLeast(source.project, actor, OWNER);
    return this.groupLevelAtLeast(source.group, actor, OWNER);
  }

  /** Whether the caller owns a namespace: its personal namespace, or owner of the group or an ancestor. */
  async ownsNamespace(namespaceId: number, actor: Actor): Promise<boolean> {
    return actor !== null && (await this.levels.namespaceMembershipLevel(namespaceId, actor)) === OWNER;
  }

  // users -----------------------------------------------------------------------------------------

  /** Administrators run the instance: other users' accounts, keys and tokens, settings, anyone's memberships. */
  isAdministrator(actor: Actor): boolean {
    return actor?.is_admin === true;
  }

  /** Users are listed to anyone signed in, and to anonymous callers unless the public level is restricted. */
  canListUsers(actor: Actor, publicVisibilityRestricted: boolean): boolean {
    return actor !== null || !publicVisibilityRestricted;
  }

  /** A personal access token is revoked by its owner or an administrator. */
  canRevokeToken(token: { user_id: number }, actor: UserRecord): boolean {
    return token.user_id === actor.id || actor.is_admin;
  }

  /** Custom attributes (`with_custom_attributes`, the `custom_attributes` filter) are shown to administrators only. */
  readsCustomAttributes(actor: Actor): boolean {
    return actor?.is_admin === true;
  }

  // projects --------------------------------------------------------------------------------------

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
}
