import type { AccessLevel, MembersStore, NamespacesStore } from '../../../storage/types.ts';
import type { GroupGroupLinksStore, ProjectQueriesStore } from '../../../storage/types-projects.ts';
import { OWNER, type ActorProjectAccess, type Actor } from '../access/permissions.ts';

/** The stores the caller's project access is gathered from. */
export interface ProjectScopeDeps {
  namespaces: Pick<NamespacesStore, 'findUserNamespace' | 'descendantIds'>;
  members: Pick<MembersStore, 'listForUser'>;
  projectQueries: Pick<ProjectQueriesStore, 'projectIdsSharedWith'>;
  groupGroupLinks: Pick<GroupGroupLinksStore, 'listForInvitedGroups'>;
}

/**
 * The caller's memberships as project listings need them (see ActorProjectAccess), gathered
 * with a handful of queries per request, never per project.
 */
export async function actorProjectAccess(deps: ProjectScopeDeps, actor: Actor): Promise<ActorProjectAccess> {
  const access: ActorProjectAccess = { namespaceLevels: new Map(), projectMembers: new Map(), sharedProjectIds: [] };
  if (!actor) return access;
  const raise = (namespaceId: number, level: AccessLevel) => {
    const current = access.namespaceLevels.get(namespaceId);
    if (current === undefined || current < level) access.namespaceLevels.set(namespaceId, level);
  };
  const own = await deps.namespaces.findUserNamespace(actor.id);
  if (own) raise(own.id, OWNER);
  for (const membership of await deps.members.listForUser(actor.id, 'namespace')) {
    raise(membership.source_id, membership.access_level);
    for (const descendant of await deps.namespaces.descendantIds(membership.source_id)) raise(descendant, membership.access_level);
  }
  for (const membership of await deps.members.listForUser(actor.id, 'project')) access.projectMembers.set(membership.source_id, membership);
  // Shares pass on membership only (they do not chain), so both use the levels gathered so far.
  const memberOf = new Map([...access.namespaceLevels].filter(([id]) => id !== own?.id));
  access.sharedProjectIds = await deps.projectQueries.projectIdsSharedWith([...memberOf.keys()]);
  for (const link of await deps.groupGroupLinks.listForInvitedGroups([...memberOf.keys()])) {
    const level = Math.min(memberOf.get(link.shared_with_group_id) ?? 0, link.group_access) as AccessLevel;
    raise(link.shared_group_id, level);
    for (const descendant of await deps.namespaces.descendantIds(link.shared_group_id)) raise(descendant, level);
  }
  return access;
}
