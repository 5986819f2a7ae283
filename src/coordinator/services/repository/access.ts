import { accessDenied } from '../../../shared/errors.ts';
import type { GitClient, GitRepository } from '../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { CoordinatorContext } from '../../context.ts';
import type { Actor } from '../permissions.ts';

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

/**
 * Resolves `:id` for repository routes and applies GitLab's order of checks: a project the
 * caller cannot see is 404 Project Not Found; one whose code the caller may not read
 * (guests of private projects) or write (below Developer, archived) is 403.
 */
export class RepositoryAccess {
  constructor(private readonly context: CoordinatorContext) {}

  /** `client` (who asks, and whether they are still there) is what heavy git work queues under. */
  async forRead(projectRef: string, actor: Actor, client?: GitClient): Promise<ReadableRepository> {
    const project = await this.context.lookup.readableProject(projectRef, actor);
    if (!(await this.context.permissions.canReadRepository(project, actor))) throw accessDenied();
    return this.describe(project, client);
  }

  async forWrite(projectRef: string, actor: UserRecord): Promise<WritableRepository> {
    const project = await this.context.lookup.readableProject(projectRef, actor);
    if (!(await this.context.permissions.canWriteRepository(project, actor))) throw accessDenied();
    return { ...(await this.describe(project)), actor };
  }

  /** Protected-branch rule (context.protectedBranches) on top of canWriteRepository. */
  async canPushToBranch(project: ProjectRecord, actor: UserRecord, branch: string): Promise<boolean> {
    return this.context.protectedBranches.canPush(project, actor, branch);
  }

  /** The repository to write into, created empty when the project has none yet. */
  async ensureRepository(target: ReadableRepository, firstBranch: string): Promise<GitRepository> {
    if (target.repository) return target.repository;
    const { repositories } = this.context;
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
    const namespace = await this.context.stores.namespaces.findById(project.namespace_id);
    const fullPath = namespace ? `${namespace.full_path}/${project.path}` : project.path;
    const exists = await this.context.repositories.exists(project.id);
    return { project, repository: exists ? this.context.repositories.open(project.id, client) : null, fullPath };
  }
}
