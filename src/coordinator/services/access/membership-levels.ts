import type { AccessLevel, MemberRecord, NamespaceRecord, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import { higher, OWNER, type ProjectAccess } from './levels.ts';
import type { MembershipFacts } from './membership-facts.ts';

/**
 * How memberships become a level: a group's members hold their level in its subgroups and
 * projects; a share passes the invited group's direct membership on, capped at the share's
 * level (shares do not chain); a personal namespace is its owner's. The facts come from
 * MembershipFacts (which memoises them per request).
 */
export class MembershipLevels {
  constructor(private readonly facts: MembershipFacts) {}

  /** The actor's direct, group and shared levels in the project; administrators count as owners. */
  async projectAccess(project: ProjectRecord, actor: UserRecord): Promise<ProjectAccess> {
    return this.facts.rememberLevel(actor, `project:${project.id}:${project.namespace_id}`, async () => {
      const direct = (await this.facts.membershipsOf(actor)).find((member) => member.source_type === 'project' && member.source_id === project.id);
      const groupAccess = await this.namespaceMembershipLevel(project.namespace_id, actor);
      const shared = await this.sharedGroupLevel(project.id, actor);
      const levels = [direct?.access_level, groupAccess, shared].filter((level): level is AccessLevel => level != null);
      const membership: AccessLevel | null = levels.length ? (Math.max(...levels) as AccessLevel) : null;
      const effective = actor.is_admin ? OWNER : membership;
      return { projectAccess: direct?.access_level ?? null, groupAccess, effective, membership, projectMember: direct ?? null };
    });
  }

  /**
   * Highest level of the actor in the namespace through membership of it or an ancestor, or
   * through a group one of those is shared with (capped at the share's level); the owner of a
   * user namespace: 50.
   */
  async namespaceMembershipLevel(namespaceId: number, actor: UserRecord): Promise<AccessLevel | null> {
    return this.facts.rememberLevel(actor, `namespace:${namespaceId}`, async () => {
      const [namespace] = await this.facts.chainOf(namespaceId, actor);
      if (!namespace) return null;
      if (namespace.kind === 'user') return namespace.owner_id === actor.id ? OWNER : null;
      const chain = await this.facts.selfAndAncestors(namespace.id, actor);
      return higher(await this.highestMembership(actor, chain), await this.levelThroughGroupShares(actor, chain));
    });
  }

  /** Members of a subgroup or of a project inside the group can see the group itself. */
  async hasMembershipBelow(group: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    const descendants = await this.facts.descendantIds(group.id);
    if ((await this.groupMemberships(actor, descendants)).length > 0) return true;
    const projectMemberships = (await this.facts.membershipsOf(actor)).filter((member) => member.source_type === 'project');
    if (projectMemberships.length === 0) return false;
    const inside = new Set(await this.facts.projectIdsIn([group.id, ...descendants]));
    return projectMemberships.some((member) => inside.has(member.source_id));
  }

  /** Member groups with their ancestors and descendants, and the groups holding member projects with their ancestors. */
  async groupIdsThroughMembership(actor: UserRecord): Promise<number[]> {
    const ids = new Set<number>();
    const addWithAncestors = async (id: number) => {
      ids.add(id);
      for (const ancestor of (await this.facts.chainOf(id, actor)).slice(1)) ids.add(ancestor.id);
    };
    const reached = new Set<number>();
    for (const membership of (await this.facts.membershipsOf(actor)).filter((member) => member.source_type === 'namespace')) {
      await addWithAncestors(membership.source_id);
      reached.add(membership.source_id);
      for (const id of await this.facts.descendantIds(membership.source_id)) {
        ids.add(id);
        reached.add(id);
      }
    }
    // Groups shared with a group the actor belongs to, and their subgroups.
    for (const link of await this.facts.sharesWithGroups([...reached])) {
      ids.add(link.shared_group_id);
      for (const id of await this.facts.descendantIds(link.shared_group_id)) ids.add(id);
    }
    for (const namespaceId of await this.facts.namespacesOfMemberProjects(actor)) await addWithAncestors(namespaceId);
    return [...ids];
  }

  /** Membership of the group or an ancestor only: what a share of (or with) the group passes on. Shares do not chain. */
  private async directGroupLevel(groupId: number, actor: UserRecord): Promise<AccessLevel | null> {
    return this.highestMembership(actor, await this.facts.selfAndAncestors(groupId, actor));
  }

  private async levelThroughGroupShares(actor: UserRecord, chain: readonly number[]): Promise<AccessLevel | null> {
    let best: AccessLevel | null = null;
    for (const link of await this.facts.sharesOfGroups(chain, actor)) {
      const invited = await this.directGroupLevel(link.shared_with_group_id, actor);
      if (invited !== null) best = higher(best, Math.min(invited, link.group_access) as AccessLevel);
    }
    return best;
  }

  private async sharedGroupLevel(projectId: number, actor: UserRecord): Promise<AccessLevel | null> {
    let best: AccessLevel | null = null;
    for (const link of await this.facts.projectShares(projectId, actor)) {
      const level = await this.directGroupLevel(link.group_id, actor);
      if (level !== null) best = higher(best, Math.min(level, link.group_access) as AccessLevel);
    }
    return best;
  }

  private async highestMembership(actor: UserRecord, namespaceIds: readonly number[]): Promise<AccessLevel | null> {
    const memberships = await this.groupMemberships(actor, namespaceIds);
    if (memberships.length === 0) return null;
    return Math.max(...memberships.map((member) => member.access_level)) as AccessLevel;
  }

  /** The actor's memberships of the given groups. */
  private async groupMemberships(actor: UserRecord, namespaceIds: readonly number[]): Promise<MemberRecord[]> {
    const wanted = new Set(namespaceIds);
    return (await this.facts.membershipsOf(actor)).filter((member) => member.source_type === 'namespace' && wanted.has(member.source_id));
  }
}
