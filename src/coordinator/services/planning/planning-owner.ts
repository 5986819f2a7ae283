import { accessDenied } from '../../../shared/errors.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';

/** `/projects/:id/...` or `/groups/:id/...`: whose labels or milestones a request names. */
export interface OwnerRef {
  kind: 'project' | 'group';
  ref: string;
}

/** A resolved owner, its full path (for web URLs) and the groups above it, whose labels and milestones it sees too. */
export type PlanningOwner =
  | { kind: 'project'; project: ProjectRecord; fullPath: string; ancestorGroupIds: number[] }
  | { kind: 'group'; group: NamespaceRecord; fullPath: string; ancestorGroupIds: number[] };

export interface OwnerResolverDeps {
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  planningPermissions: Pick<PlanningPermissions, 'canReadProjectPlanning' | 'canReadGroupPlanning' | 'canAdminProjectPlanning' | 'canAdminGroupPlanning'>;
}

/** Resolves an owner the caller may read (404 otherwise), or administer (403 otherwise). */
export class PlanningOwners {
  constructor(private readonly deps: OwnerResolverDeps) {}

  async resolve(owner: OwnerRef, actor: Actor, need: 'read' | 'admin'): Promise<PlanningOwner> {
    const { lookup, planningPermissions: rules, namespaces } = this.deps;
    if (owner.kind === 'project') {
      const project = await lookup.readableProject(owner.ref, actor);
      const allowed = need === 'read' ? await rules.canReadProjectPlanning(project, actor) : await rules.canAdminProjectPlanning(project, actor);
      if (!allowed) throw accessDenied();
      const namespace = await namespaces.findById(project.namespace_id);
      const ancestorGroupIds = namespace?.kind === 'group' ? [namespace.id, ...(await namespaces.ancestors(namespace.id)).map((group) => group.id)] : [];
      return { kind: 'project', project, fullPath: `${namespace?.full_path ?? ''}/${project.path}`, ancestorGroupIds };
    }
    const group = await lookup.readableGroup(owner.ref, actor);
    const allowed = need === 'read' ? await rules.canReadGroupPlanning(group, actor) : await rules.canAdminGroupPlanning(group, actor);
    if (!allowed) throw accessDenied();
    return { kind: 'group', group, fullPath: group.full_path, ancestorGroupIds: (await namespaces.ancestors(group.id)).map((ancestor) => ancestor.id) };
  }
}

/** The owner's own labels or milestones, as a store filter. */
export function ownOnly(owner: PlanningOwner): { projectIds: number[]; groupIds: number[] } {
  return owner.kind === 'project' ? { projectIds: [owner.project.id], groupIds: [] } : { projectIds: [], groupIds: [owner.group.id] };
}

/** The owner's own and those of the groups above it. */
export function withAncestors(owner: PlanningOwner): { projectIds: number[]; groupIds: number[] } {
  const own = ownOnly(owner);
  return { projectIds: own.projectIds, groupIds: [...own.groupIds, ...owner.ancestorGroupIds] };
}
