import type { MemberSourceType, ProjectRecord, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { serializeUserBasic, type UserBasicJson } from '../http/serializers/user-basic.ts';
import { inheritedMembers } from './members-inherited.ts';

export interface MembershipJson {
  source_id: number;
  source_name: string;
  source_type: 'Project' | 'Namespace';
  access_level: number;
}

/** Who can reach a project (`GET /projects/:id/users`) and where a user is a member (`GET /users/:id/memberships`). */
export class MembershipsService {
  constructor(private readonly context: CoordinatorContext) {}

  /**
   * Users with access to the project through membership: its members, those of its enclosing
   * groups, and those of the groups it is shared with. `search` matches name or username.
   */
  async projectUsers(project: ProjectRecord, query: { search?: string; skipUsers?: number[] }): Promise<UserBasicJson[]> {
    const { stores } = this.context;
    const filter = { query: query.search };
    const userIds = new Set((await inheritedMembers(this.context, { kind: 'project', project }, filter)).map((member) => member.user_id));
    const shares = (await stores.projectQueries.groupShares([project.id])).get(project.id) ?? [];
    for (const share of shares) {
      const group = await stores.namespaces.findById(share.group_id);
      if (!group) continue;
      for (const member of await inheritedMembers(this.context, { kind: 'group', group }, filter)) userIds.add(member.user_id);
    }
    for (const skipped of query.skipUsers ?? []) userIds.delete(skipped);
    const users = await stores.users.findByIds([...userIds]);
    const externalUrl = this.context.config.externalUrl;
    return users.sort((a, b) => a.id - b.id).map((user) => serializeUserBasic(user, externalUrl));
  }

  /** Direct memberships of a user, projects and groups, optionally of one `type`. */
  async userMemberships(user: UserRecord, type: 'Project' | 'Namespace' | undefined): Promise<MembershipJson[]> {
    const { stores } = this.context;
    const out: MembershipJson[] = [];
    const kinds: MemberSourceType[] = type === 'Project' ? ['project'] : type === 'Namespace' ? ['namespace'] : ['project', 'namespace'];
    for (const kind of kinds) {
      const members = await stores.members.listForUser(user.id, kind);
      const ids = members.map((member) => member.source_id);
      const names = new Map<number, string>();
      if (kind === 'namespace') {
        for (const group of await stores.namespaces.findByIds(ids)) names.set(group.id, group.full_name);
      } else {
        const projects = await stores.projects.findByIds(ids);
        const namespaces = new Map((await stores.namespaces.findByIds(projects.map((project) => project.namespace_id))).map((ns) => [ns.id, ns]));
        for (const project of projects) names.set(project.id, `${namespaces.get(project.namespace_id)?.full_name ?? ''} / ${project.name}`);
      }
      for (const member of members) {
        const name = names.get(member.source_id);
        if (name === undefined) continue;
        out.push({ source_id: member.source_id, source_name: name, source_type: kind === 'project' ? 'Project' : 'Namespace', access_level: member.access_level });
      }
    }
    return out;
  }
}
