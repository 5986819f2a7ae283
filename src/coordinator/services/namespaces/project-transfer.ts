import { GantryError } from '../../../shared/errors.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord } from '../../../storage/types.ts';
import type { ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { Permissions } from '../access/permissions.ts';
import { visibilityAfterMove } from '../access/visibility-rules.ts';
import type { CoordinatorEvents } from '../events.ts';
import { projectFullPathIn } from './project-full-path.ts';

export interface ProjectTransferDeps {
  projects: Pick<ProjectsStore, 'update' | 'findByNamespaceAndPath'>;
  projectQueries: Pick<ProjectQueriesStore, 'findByNamespaceAndName'>;
  permissions: Pick<Permissions, 'canTransferProjectInto'>;
  /** System hooks' `project_transfer` (with the path it had). */
  namespaces?: Pick<NamespacesStore, 'findById'>;
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

/**
 * Moving a project into another namespace. The repository is stored by project id, so only
 * the row moves; a project more open than its new group is narrowed to the group's visibility.
 */
export class ProjectTransfer {
  constructor(private readonly deps: ProjectTransferDeps) {}

  /** Why the project cannot move into `namespace` (GitLab's texts), or undefined when it can. */
  async refusal(project: ProjectRecord, namespace: NamespaceRecord): Promise<string | undefined> {
    if (project.namespace_id === namespace.id) return 'Project is already in this namespace.';
    const clash =
      (await this.deps.projects.findByNamespaceAndPath(namespace.id, project.path)) ??
      (await this.deps.projectQueries.findByNamespaceAndName(namespace.id, project.name));
    if (clash) return 'Project with same name or path in target namespace already exists';
    return undefined;
  }

  /** Moves the row; system hooks hear `project_transfer` (both transfer routes come here). */
  async move(project: ProjectRecord, namespace: NamespaceRecord): Promise<ProjectRecord> {
    const visibility = visibilityAfterMove(project, namespace);
    const from = await this.deps.namespaces?.findById(project.namespace_id);
    const moved = (await this.deps.projects.update(project.id, { namespace_id: namespace.id, visibility, updated_at: new Date().toISOString() })) ?? project;
    if (from) await this.deps.events?.publishSystemEvent({ name: 'project_transfer', project: moved, oldPathWithNamespace: projectFullPathIn(from, project) });
    return moved;
  }

  /**
   * `PUT /projects/:id/transfer` by the project's owner (checked by the caller) into a
   * namespace the caller can read. Refusals are GitLab's 400 `Failed to transfer project {...}`.
   */
  async transferByUser(project: ProjectRecord, actor: UserRecord, namespace: NamespaceRecord): Promise<ProjectRecord> {
    const reason = (await this.deps.permissions.canTransferProjectInto(namespace, actor))
      ? await this.refusal(project, namespace)
      : "You don't have permission to transfer this project.";
    if (reason) throw new GantryError('GANTRY_E_TRANSFER_REFUSED', reason, { reason });
    return this.move(project, namespace);
  }
}
