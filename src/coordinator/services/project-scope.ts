import type { AccessLevel, MemberRecord, ProjectRecord } from '../../storage/types.ts';
import type { ProjectVisibilityScope } from '../../storage/types-projects.ts';
import type { CoordinatorContext } from '../context.ts';
import { OWNER, type Actor } from './permissions.ts';

/**
 * Everything about one caller's memberships that project listings need, gathered with a
 * handful of queries per request (never per project): levels in namespaces (with their
 * subgroups, and groups shared with the caller's groups), direct project memberships and
 * projects shared with the caller's groups.
 */
export interface ActorProjectAccess {
  /** Namespace id → the caller's level there (user namespace: owner; subgroups inherit). */
  namespaceLevels: Map<number, AccessLevel>;
  /** Project id → the caller's direct membership. */
  projectMembers: Map<number, MemberRecord>;
  /** Projects shared with a group the caller belongs to. */
  sharedProjectIds: number[];
}

export async function actorProjectAccess(context: CoordinatorContext, actor: Actor): Promise<ActorProjectAccess> {
  const access: ActorProjectAccess = { namespaceLevels: new Map(), projectMembers: new Map(), sharedProjectIds: [] };
  if (!actor) return access;
  const { stores } = context;
  const raise = (namespaceId: number, level: AccessLevel) => {
    const current = access.namespaceLevels.get(namespaceId);
    if (current === undefined || current < level) access.namespaceLevels.set(namespaceId, level);
  };
  const own = await stores.namespaces.findUserNamespace(actor.id);
  if (own) raise(own.id, OWNER);
  for (const membership of await stores.members.listForUser(actor.id, 'namespace')) {
    raise(membership.source_id, membership.access_level);
    for (const descendant of await stores.namespaces.descendantIds(membership.source_id)) raise(descendant, membership.access_level);
  }
  for (const membership of await stores.members.listForUser(actor.id, 'project')) access.projectMembers.set(membership.source_id, membership);
  // Shares pass on membership only (they do not chain), so both use the levels gathered so far.
  const memberOf = new Map([...access.namespaceLevels].filter(([id]) => id !== own?.id));
  access.sharedProjectIds = await stores.projectQueries.projectIdsSharedWith([...memberOf.keys()]);
  for (const link of await stores.groupGroupLinks.listForInvitedGroups([...memberOf.keys()])) {
    const level = Math.min(memberOf.get(link.shared_with_group_id) ?? 0, link.group_access) as AccessLevel;
    raise(link.shared_group_id, level);
    for (const descendant of await stores.namespaces.descendantIds(link.shared_group_id)) raise(descendant, level);
  }
  return access;
}

/** Up to this many projects, their access is worked out per project rather than for all of the caller's memberships. */
const FEW_PROJECTS = 3;

/**
 * The caller's access to these projects (what their presenter shows): for a few, the
 * permission module's own per-project answer, which a read request has usually worked out
 * already for its read rule; for a page, everything at once.
 */
export async function actorAccessTo(context: CoordinatorContext, actor: Actor, projects: readonly ProjectRecord[]): Promise<ActorProjectAccess> {
  if (!actor || projects.length > FEW_PROJECTS) return actorProjectAccess(context, actor);
  const access: ActorProjectAccess = { namespaceLevels: new Map(), projectMembers: new Map(), sharedProjectIds: [] };
  for (const project of projects) {
    const found = await context.permissions.projectAccess(project, actor);
    if (found.projectMember) access.projectMembers.set(project.id, found.projectMember);
    if (found.groupAccess !== null) access.namespaceLevels.set(project.namespace_id, found.groupAccess);
  }
  return access;
}

/** What a listing may show the caller: null for administrators (everything). */
export function projectVisibilityScope(actor: Actor, access: ActorProjectAccess): ProjectVisibilityScope | null {
  if (actor?.is_admin) return null;
  const visibilities: ProjectVisibilityScope['visibilities'] = actor ? (actor.external ? ['public'] : ['public', 'internal']) : ['public'];
  return {
    visibilities,
    namespaceIds: [...access.namespaceLevels.keys()],
    projectIds: [...access.projectMembers.keys(), ...access.sharedProjectIds],
  };
}
