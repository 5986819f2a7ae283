import { GantryError } from '../../shared/errors.ts';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { NamespacesService } from './namespaces.ts';
import { MAINTAINER } from './permissions.ts';
import { visibilityAfterMove } from './visibility-rules.ts';

/**
 * Moving a project into another namespace. The repository is stored by project id, so only
 * the row moves; a project more open than its new group is narrowed to the group's visibility.
 */
export class ProjectTransfer {
  constructor(private readonly context: CoordinatorContext) {}

  /** Why the project cannot move into `namespace` (GitLab's texts), or undefined when it can. */
  async refusal(project: ProjectRecord, namespace: NamespaceRecord): Promise<string | undefined> {
    if (project.namespace_id === namespace.id) return 'Project is already in this namespace.';
    const { stores } = this.context;
    const clash =
      (await stores.projects.findByNamespaceAndPath(namespace.id, project.path)) ??
      (await stores.projectQueries.findByNamespaceAndName(namespace.id, project.name));
    if (clash) return 'Project with same name or path in target namespace already exists';
    return undefined;
  }

  async move(project: ProjectRecord, namespace: NamespaceRecord): Promise<ProjectRecord> {
    const visibility = visibilityAfterMove(project, namespace);
    const moved = await this.context.stores.projects.update(project.id, { namespace_id: namespace.id, visibility, updated_at: new Date().toISOString() });
    return moved ?? project;
  }

  /**
   * `PUT /projects/:id/transfer` by the project's owner (checked by the route): into the
   * caller's own namespace or a group where they are Maintainer or more. Refusals are GitLab's
   * 400 `Failed to transfer project {...}`.
   */
  async transferByUser(project: ProjectRecord, actor: UserRecord, namespaceRef: string): Promise<ProjectRecord> {
    const { stores, lookup, permissions } = this.context;
    const namespaces = new NamespacesService({ namespaces: stores.namespaces, groupQueries: stores.groupQueries, members: stores.members, lookup, permissions });
    const namespace = await namespaces.readable(namespaceRef, actor);
    const reason = (await this.mayTransferInto(namespace, actor)) ? await this.refusal(project, namespace) : "You don't have permission to transfer this project.";
    if (reason) throw new GantryError('GANTRY_E_TRANSFER_REFUSED', reason, { reason });
    return this.move(project, namespace);
  }

  private async mayTransferInto(namespace: NamespaceRecord, actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    if (namespace.kind === 'user') return namespace.owner_id === actor.id;
    return this.context.permissions.groupLevelAtLeast(namespace, actor, MAINTAINER);
  }
}
