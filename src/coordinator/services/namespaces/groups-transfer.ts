import { accessDenied, GantryError } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { NamespaceRecord, NamespacesStore, ProjectsStore, UserRecord } from '../../../storage/types.ts';
import type { CoordinatorEvents } from '../events.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { GroupDetails, GroupsService } from './groups.ts';
import { projectFullPathIn } from './project-full-path.ts';

export interface GroupTransferDeps {
  namespaces: Pick<NamespacesStore, 'findById' | 'findByFullPath' | 'moveGroup' | 'descendantIds' | 'findByIds'>;
  projects: Pick<ProjectsStore, 'listByNamespaces' | 'findByNamespaceAndPath'>;
  lookup: Pick<Lookup, 'readableGroup'>;
  permissions: Pick<Permissions, 'canAdminGroup'>;
  groups: Pick<GroupsService, 'readable' | 'details'>;
  /** System hooks' `project_transfer` for each project that moved with the group. */
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

/** GitLab's reasons, answered as 400 `Transfer failed: <reason>`. */
const REASONS = {
  alreadyRoot: 'Group is already a root group.',
  sameParent: 'Group is already associated to the parent group.',
  intoItself: 'Cannot transfer group to one of its subgroup.',
  pathTaken: 'The parent group already has a subgroup or a project with the same path.',
  permissions: "You don't have enough permissions.",
} as const;

function refused(reason: string): GantryError {
  return new GantryError('GANTRY_E_GROUP_TRANSFER_REFUSED', `Transfer failed: ${reason}`, { reason });
}

/**
 * `POST /groups/:id/transfer`: a group with its subgroups and projects moves under another
 * group, or to the top level. Repositories are stored by project id, so only full paths change;
 * the moved groups and projects are narrowed to the new parent's visibility.
 */
export class GroupTransferService {
  constructor(private readonly deps: GroupTransferDeps) {}

  async transfer(ref: string, actor: UserRecord, newParentRef: number | undefined): Promise<GroupDetails> {
    const { groups, permissions, lookup } = this.deps;
    const group = await groups.readable(ref, actor);
    if (!(await permissions.canAdminGroup(group, actor))) throw accessDenied();
    const parent = newParentRef === undefined ? undefined : await lookup.readableGroup(newParentRef, actor);
    await this.checkAllowed(group, parent, actor);

    const oldPaths = await this.projectPaths(group);
    const moved = await this.move(group, parent);
    await this.publishProjectTransfers(group, oldPaths);
    return groups.details(moved, actor);
  }

  private async checkAllowed(group: NamespaceRecord, parent: NamespaceRecord | undefined, actor: UserRecord): Promise<void> {
    const { namespaces, projects, permissions } = this.deps;
    if (!parent) {
      if (group.parent_id === null) throw refused(REASONS.alreadyRoot);
    } else {
      if (group.parent_id === parent.id) throw refused(REASONS.sameParent);
      const subtree = [group.id, ...(await namespaces.descendantIds(group.id))];
      if (subtree.includes(parent.id)) throw refused(REASONS.intoItself);
      if (!(await permissions.canAdminGroup(parent, actor))) throw refused(REASONS.permissions);
    }
    const fullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
    const namespaceClash = await namespaces.findByFullPath(fullPath);
    const projectClash = parent ? await projects.findByNamespaceAndPath(parent.id, group.path) : undefined;
    if (namespaceClash || projectClash) throw refused(REASONS.pathTaken);
  }

  /** `namespace/path` of each project in the group's subtree, by project id. */
  private async projectPaths(group: NamespaceRecord): Promise<Map<number, string>> {
    if (!this.deps.events) return new Map();
    const namespaces = await this.deps.namespaces.findByIds([group.id, ...(await this.deps.namespaces.descendantIds(group.id))]);
    const byId = new Map(namespaces.map((namespace) => [namespace.id, namespace]));
    const projects = await this.deps.projects.listByNamespaces([...byId.keys()]);
    return new Map(projects.map((project) => [project.id, projectFullPathIn(byId.get(project.namespace_id), project)]));
  }

  private async publishProjectTransfers(group: NamespaceRecord, oldPaths: ReadonlyMap<number, string>): Promise<void> {
    if (!this.deps.events || oldPaths.size === 0) return;
    const namespaceIds = [group.id, ...(await this.deps.namespaces.descendantIds(group.id))];
    for (const project of await this.deps.projects.listByNamespaces(namespaceIds)) {
      const oldPathWithNamespace = oldPaths.get(project.id);
      if (oldPathWithNamespace) await this.deps.events.publishSystemEvent({ name: 'project_transfer', project, oldPathWithNamespace });
    }
  }

  /**
   * One transaction (the store's moveGroup): the group's row, its subtree's paths and the
   * narrowed visibilities land together or not at all. Repositories are kept by project id,
   * so nothing on disk moves.
   */
  private async move(group: NamespaceRecord, parent: NamespaceRecord | undefined): Promise<NamespaceRecord> {
    const { namespaces } = this.deps;
    const fullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
    const fullName = parent ? `${parent.full_name} / ${group.name}` : group.name;
    try {
      // The full path changes in the same statement as the parent, so the unique index refuses
      // a path a concurrent create or rename took meanwhile.
      await namespaces.moveGroup(group.id, { parentId: parent?.id ?? null, fullPath, fullName, narrowTo: parent?.visibility ?? null, updatedAt: new Date().toISOString() });
    } catch (error) {
      if (isUniqueViolation(error)) throw refused(REASONS.pathTaken);
      throw error;
    }
    const moved = await namespaces.findById(group.id);
    if (!moved) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    return moved;
  }
}
