import type { MemberListFilter, MemberQueriesStore, MemberRecord, MemberSourceType, NamespacesStore, UsersStore } from '../../../storage/types.ts';
import { OWNER, type MemberSource } from '../access/permissions.ts';

/** What working out inherited members reads. */
export interface InheritedMembersDeps {
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  memberQueries: Pick<MemberQueriesStore, 'list'>;
  users: Pick<UsersStore, 'findById'>;
}

/** No project or group has more members than this in one source; beyond it the list is cut. */
const MEMBERS_PER_SOURCE = 10_000;

/**
 * Everyone with access through membership (`/members/all`): direct members plus members of
 * the enclosing groups and their ancestors, one entry per user with the highest level
 * (the closest source wins a tie). The owner of a personal project's namespace counts as
 * an owner, as the permission rules treat them.
 */
export async function inheritedMembers(stores: InheritedMembersDeps, source: MemberSource, filter: MemberListFilter): Promise<MemberRecord[]> {
  const sources: Array<{ type: MemberSourceType; id: number }> = [];
  let namespaceId: number;
  if (source.kind === 'project') {
    sources.push({ type: 'project', id: source.project.id });
    namespaceId = source.project.namespace_id;
  } else {
    namespaceId = source.group.id;
  }
  const namespace = await stores.namespaces.findById(namespaceId);
  const candidates: MemberRecord[] = [];
  if (namespace?.kind === 'group') {
    sources.push({ type: 'namespace', id: namespace.id }, ...(await stores.namespaces.ancestors(namespace.id)).map((group) => ({ type: 'namespace' as const, id: group.id })));
  } else if (namespace?.owner_id && source.kind === 'project' && (await matches(stores, namespace.owner_id, filter))) {
    candidates.push(namespaceOwner(source.project.id, namespace.owner_id, source.project.created_at));
  }
  for (const { type, id } of sources) {
    candidates.push(...(await stores.memberQueries.list(type, id, filter, { offset: 0, limit: MEMBERS_PER_SOURCE })).items);
  }
  const byUser = new Map<number, MemberRecord>();
  for (const member of candidates) {
    const kept = byUser.get(member.user_id);
    if (!kept || member.access_level > kept.access_level) byUser.set(member.user_id, member);
  }
  return [...byUser.values()].sort((a, b) => a.user_id - b.user_id);
}

/** The store applies the filter to member rows; the namespace owner has none. */
async function matches(stores: InheritedMembersDeps, userId: number, filter: MemberListFilter): Promise<boolean> {
  if (filter.userIds && !filter.userIds.includes(userId)) return false;
  if (!filter.query) return true;
  const user = await stores.users.findById(userId);
  const term = filter.query.toLowerCase();
  return Boolean(user && (user.name.toLowerCase().includes(term) || user.username.toLowerCase().includes(term)));
}

function namespaceOwner(projectId: number, userId: number, since: string): MemberRecord {
  return {
    id: 0, source_type: 'project', source_id: projectId, user_id: userId, access_level: OWNER, notification_level: 3,
    expires_at: null, created_by_id: null, created_at: since, updated_at: since,
  };
}
