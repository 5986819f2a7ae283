import { accessDenied } from '../../../shared/errors.ts';
import type { GitClient, GitRepository, RepositoryManager } from '../../../storage/git/types.ts';
import type { NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';

/** A project the caller may read, its repository (null while none exists) and its path for URLs. */
export interface ReadableRepository {
  project: ProjectRecord;
  /** null when the project has no repository on disk: it reads as empty. */
  repository: GitRepository | null;
  /** `group/sub/project`, for web_url. */
  fullPath: string;
}

export interface WritableRepository extends ReadableRepository {
  actor: UserRecord;
}

export interface RepositoryAccessDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canReadRepository' | 'canWriteRepository' | 'canManageRepositorySettings'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open' | 'create'>;
}

/**
 * Resolves `:id` for repository routes and applies GitLab's order of checks: a project the
 * caller cannot see is 404 Project Not Found; one whose code the caller may not read
 * (guests of private projects) or write (below Developer, archived) is 403.
 */
export class RepositoryAccess {
  constructor(private readonly deps: RepositoryAccessDeps) {}

  /** `client` (who asks, and whether they are still there) is what heavy git work queues under. */
  async forRead(projectRef: string, actor: Actor, client?: GitClient): Promise<ReadableRepository> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canReadRepository(project, actor))) throw accessDenied();
    return this.describe(project, client);
  }

  async forWrite(projectRef: string, actor: UserRecord): Promise<WritableRepository> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canWriteRepository(project, actor))) throw accessDenied();
    return { ...(await this.describe(project)), actor };
  }

  /** Repository settings (protected branches and tags, deploy keys): Maintainer+; 404 for projects the caller cannot see. */
  async forSettings(projectRef: string, actor: UserRecord): Promise<WritableRepository> {
    const target = await this.forRead(projectRef, actor);
    if (!(await this.deps.permissions.canManageRepositorySettings(target.project, actor))) throw accessDenied();
    return { ...target, actor };
  }

  /** The repository to write into, created empty when the project has none yet. */
  async ensureRepository(target: ReadableRepository, firstBranch: string): Promise<GitRepository> {
    if (target.repository) return target.repository;
    const { repositories } = this.deps;
    if (!(await repositories.exists(target.project.id))) {
      await repositories.create(target.project.id, {
        initializeWithReadme: false,
        defaultBranch: firstBranch,
        projectName: target.project.name,
        author: { name: 'Administrator', email: 'admin@example.com' },
      });
    }
    return repositories.open(target.project.id);
  }

  private async describe(project: ProjectRecord, client?: GitClient): Promise<ReadableRepository> {
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const fullPath = namespace ? `${namespace.full_path}/${project.path}` : project.path;
    const exists = await this.deps.repositories.exists(project.id);
    return { project, repository: exists ? this.deps.repositories.open(project.id, client) : null, fullPath };
  }
}
