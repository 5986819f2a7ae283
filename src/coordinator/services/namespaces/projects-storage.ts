import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

/** Where a project's repository is kept, as GitLab's `GET /projects/:id/storage` tells it. */
export interface ProjectStorage {
  projectId: number;
  /** The repository's path under the storage root, without `.git` (GitLab's `disk_path`). */
  diskPath: string;
  createdAt: string;
  repositoryStorage: 'default';
}

export interface ProjectStorageDeps {
  lookup: Pick<Lookup, 'findProject'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** `GET /projects/:id/storage` (administrators): one storage, repositories named by project id. */
export class ProjectStorageService {
  constructor(private readonly deps: ProjectStorageDeps) {}

  async describe(ref: string, actor: Actor): Promise<ProjectStorage> {
    if (!actor) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    const project = await this.deps.lookup.findProject(ref);
    if (!project || project.pending_delete) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    return { projectId: project.id, diskPath: String(project.id), createdAt: project.created_at, repositoryStorage: 'default' };
  }
}
