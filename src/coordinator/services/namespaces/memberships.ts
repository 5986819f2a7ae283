import { accessDenied } from '../../../shared/errors.ts';
import type { AccessLevel, MembersStore, MemberSourceType, NamespacesStore, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { Lookup } from '../access/lookup.ts';
import { inheritedMembers, type InheritedMembersDeps } from './members-inherited.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

/** One direct membership of a user: a project or a group, by name. */
export interface Membership {
  sourceId: number;
  sourceName: string;
  sourceType: 'Project' | 'Namespace';
  accessLevel: AccessLevel;
}

export interface Page {
  offset: number;
  limit: number;
}

export interface MembershipsServiceDeps extends InheritedMembersDeps {
  namespaces: Pick<NamespacesStore, 'findById' | 'findByIds' | 'ancestors'>;
  members: Pick<MembersStore, 'listForUser'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  projectQueries: Pick<ProjectQueriesStore, 'groupShares'>;
  users: Pick<UsersStore, 'findById' | 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject' | 'user'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** Who can reach a project (`GET /projects/:id/users`) and where a user is a member (`GET /users/:id/memberships`). */
export class MembershipsService {
  constructor(private readonly deps: MembershipsServiceDeps) {}

  /**
   * Users with access to the readable project through membership: its members, those of its
   * enclosing groups, and those of the groups it is shared with. `search` matches name or username.
   */
  async projectUsers(projectRef: string, actor: Actor, query: { search?: string; skipUsers?: number[] }, page: Page): Promise<{ items: UserRecord[]; total: number }> {
    const { namespaces, projectQueries, users, lookup } = this.deps;
    const project = await lookup.readableProject(projectRef, actor);
    const filter = { query: query.search };
    const userIds = new Set((await inheritedMembers(this.deps, { kind: 'project', project }, filter)).map((member) => member.user_id));
    const shares = (await projectQueries.groupShares([project.id])).get(project.id) ?? [];
    for (const share of shares) {
      const group = await namespaces.findById(share.group_id);
      if (!group) continue;
      for (const member of await inheritedMembers(this.deps, { kind: 'group', group }, filter)) userIds.add(member.user_id);
    }
    for (const skipped of query.skipUsers ?? []) userIds.delete(skipped);
    const all = (await users.findByIds([...userIds])).sort((a, b) => a.id - b.id);
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  /** Direct memberships of a user, projects and groups, optionally of one `type` (administrators). */
  async userMemberships(actor: UserRecord, userRef: string, type: 'Project' | 'Namespace' | undefined, page: Page): Promise<{ items: Membership[]; total: number }> {
    const { members, namespaces, projects, permissions, lookup } = this.deps;
    if (!permissions.isAdministrator(actor)) throw accessDenied();
    const user = await lookup.user(userRef);
    const out: Membership[] = [];
    const kinds: MemberSourceType[] = type === 'Project' ? ['project'] : type === 'Namespace' ? ['namespace'] : ['project', 'namespace'];
    for (const kind of kinds) {
      const memberships = await members.listForUser(user.id, kind);
      const ids = memberships.map((member) => member.source_id);
      const names = new Map<number, string>();
      if (kind === 'namespace') {
        for (const group of await namespaces.findByIds(ids)) names.set(group.id, group.full_name);
      } else {
        const found = await projects.findByIds(ids);
        const namespacesById = new Map((await namespaces.findByIds(found.map((project) => project.namespace_id))).map((ns) => [ns.id, ns]));
        for (const project of found) names.set(project.id, `${namespacesById.get(project.namespace_id)?.full_name ?? ''} / ${project.name}`);
      }
      for (const member of memberships) {
        const name = names.get(member.source_id);
        if (name === undefined) continue;
        out.push({ sourceId: member.source_id, sourceName: name, sourceType: kind === 'project' ? 'Project' : 'Namespace', accessLevel: member.access_level });
      }
    }
    return { items: out.slice(page.offset, page.offset + page.limit), total: out.length };
  }
}
