import type { Readable } from 'node:stream';
import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { GitClient, RepositoryManager } from '../../../storage/git/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

export interface SnapshotDeps {
  lookup: Pick<Lookup, 'findProject'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
}

/** What `GET /projects/:id/snapshot` sends: a tar stream and the file name to offer. */
export interface RepositorySnapshot {
  stream: Readable;
  fileName: string;
}

/**
 * `GET /projects/:id/snapshot` (administrators): a tar of the bare repository, streamed
 * (storage/git/snapshot.ts). Gantry has no wikis: `wiki=true` finds none. A project whose
 * repository was never created (no push yet) has nothing to tar: 404 Repository Not Found.
 */
export class SnapshotService {
  constructor(private readonly deps: SnapshotDeps) {}

  async snapshot(projectRef: string, actor: Actor, wiki: boolean, client?: GitClient): Promise<RepositorySnapshot> {
    if (!actor) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    const project = await this.deps.lookup.findProject(projectRef);
    if (!project || project.pending_delete) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    if (wiki) throw new GantryError('GANTRY_E_WIKI_NOT_FOUND');
    if (!(await this.deps.repositories.exists(project.id))) throw new GantryError('GANTRY_E_REPOSITORY_NOT_FOUND');
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '');
    return { stream: this.deps.repositories.open(project.id, client).snapshot(), fileName: `${project.path}-${project.id}-${stamp}.tar` };
  }
}
