import type {
  AccessLevel,
  MembersStore,
  NamespaceRecord,
  NamespacesStore,
  ProjectRecord,
  UserRecord,
  Visibility,
} from '../../storage/types.ts';
import type { Db } from '../../storage/sql/database.ts';

export const GUEST: AccessLevel = 10;
export const REPORTER: AccessLevel = 20;
export const DEVELOPER: AccessLevel = 30;
export const MAINTAINER: AccessLevel = 40;
export const OWNER: AccessLevel = 50;

/** Who is asking: null for anonymous requests. */
export type Actor = UserRecord | null;

export interface ProjectAccess {
  /** The caller's direct membership of the project, or null. */
  projectAccess: AccessLevel | null;
  /** The caller's highest membership of the project's group and its ancestors, or null. */
  groupAccess: AccessLevel | null;
  /** The effective level (membership, group share, ownership); administrators count as owners. */
  effective: AccessLevel | null;
}

/**
 * The one place that decides who may see and do what. Handlers ask it; they never compare
 * access levels or visibilities themselves.
 */
export class Permissions {
  constructor(
    private readonly db: Db,
    private readonly namespaces: NamespacesStore,
    private readonly members: MembersStore,
  ) {}

  /** Whether a visibility level is readable by the actor without any membership. */
  visibilityAllows(visibility: Visibility, actor: Actor): boolean {
    if (visibility === 'public') return true;
    if (visibility === 'internal') return actor !== null && !actor.external;
    return false;
  }

  async projectAccess(project: ProjectRecord, actor: Actor): Promise<ProjectAccess> {
    if (!actor) return { projectAccess: null, groupAccess: null, effective: null };
    const direct = await this.members.find('project', project.id, actor.id);
    const groupAccess = await this.namespaceMembershipLevel(project.namespace_id, actor);
    const shared = await this.sharedGroupLevel(project.id, actor);
    const levels = [direct?.access_level, groupAccess, shared].filter((level): level is AccessLevel => level != null);
    let effective: AccessLevel | null = levels.length ? (Math.max(...levels) as AccessLevel) : null;
    if (actor.is_admin) effective = OWNER;
    return { projectAccess: direct?.access_level ?? null, groupAccess, effective };
  }

  async canReadProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (this.visibilityAllows(project.visibility, actor)) return true;
    const access = await this.projectAccess(project, actor);
    return access.effective !== null && access.effective >= GUEST;
  }

  async projectLevelAtLeast(project: ProjectRecord, actor: Actor, level: AccessLevel): Promise<boolean> {
    if (!actor) return false;
    if (actor.is_admin) return true;
    const access = await this.projectAccess(project, actor);
    return access.effective !== null && access.effective >= level;
  }

  /** Highest membership level of the actor in the namespace and its ancestors (user namespace owner: 50). */
  async namespaceMembershipLevel(namespaceId: number, actor: Actor): Promise<AccessLevel | null> {
    if (!actor) return null;
    const namespace = await this.namespaces.findById(namespaceId);
    if (!namespace) return null;
    if (namespace.kind === 'user') return namespace.owner_id === actor.id ? OWNER : null;
    const chain = [namespace.id, ...(await this.namespaces.ancestors(namespace.id)).map((ancestor) => ancestor.id)];
    const memberships = await this.members.listForUser(actor.id, 'namespace', chain);
    if (memberships.length === 0) return null;
    return Math.max(...memberships.map((member) => member.access_level)) as AccessLevel;
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
  private async hasMembershipBelow(group: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    const descendants = await this.namespaces.descendantIds(group.id);
    if ((await this.members.listForUser(actor.id, 'namespace', descendants)).length > 0) return true;
    const projectRows = await this.db
      .selectFrom('projects')
      .select('id')
      .where('namespace_id', 'in', [group.id, ...descendants])
      .execute();
    const memberships = await this.members.listForUser(actor.id, 'project', projectRows.map((row) => row.id));
    return memberships.length > 0;
  }

  private async sharedGroupLevel(projectId: number, actor: UserRecord): Promise<AccessLevel | null> {
    const links = await this.db
      .selectFrom('project_group_links')
      .select(['group_id', 'group_access'])
      .where('project_id', '=', projectId)
      .execute();
    let best: AccessLevel | null = null;
    for (const link of links) {
      const level = await this.namespaceMembershipLevel(link.group_id, actor);
      if (level === null) continue;
      const granted = Math.min(level, link.group_access) as AccessLevel;
      if (best === null || granted > best) best = granted;
    }
    return best;
  }
}
