import { accessDenied } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { ProjectGroupLinkRecord, ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { Lookup } from '../access/lookup.ts';
import type { NamespacesService } from './namespaces.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { ProjectSharesService, ShareInput } from './project-shares.ts';
import type { ProjectTransfer } from './project-transfer.ts';
import type { ProjectView, ProjectViews } from './project-views.ts';
import type { ProjectCreateRequest, ProjectForkRequest, ProjectsService, ProjectUpdateRequest } from './projects.ts';

export interface ProjectActionsDeps {
  lookup: Pick<Lookup, 'readableProject' | 'user'>;
  permissions: Pick<Permissions, 'canEditProject' | 'canAdministerProject' | 'canReadProjectStatistics' | 'isAdministrator' | 'readAfterWrite'>;
  projects: Pick<ProjectsService, 'create' | 'update' | 'fork' | 'remove' | 'setArchived'>;
  projectQueries: Pick<ProjectQueriesStore, 'star' | 'unstar'>;
  namespaces: Pick<NamespacesService, 'readable'>;
  views: Pick<ProjectViews, 'one'>;
  transfer: Pick<ProjectTransfer, 'transferByUser'>;
  shares: Pick<ProjectSharesService, 'share' | 'unshare'>;
}

export interface ProjectReadRequest {
  /** Project id or URL-encoded full path. */
  ref: string;
  statistics: boolean;
  withCustomAttributes: boolean;
}

/**
 * `/projects/:id` and its actions as the API offers them: each resolves the project the
 * caller can read (404 otherwise), asks the permission module whether the caller may act
 * (403 otherwise), acts, and answers the project as the caller sees it.
 */
export class ProjectActions {
  constructor(private readonly deps: ProjectActionsDeps) {}

  async get(request: ProjectReadRequest, actor: Actor): Promise<ProjectView> {
    const project = await this.deps.lookup.readableProject(request.ref, actor);
    const statistics = request.statistics && (await this.deps.permissions.canReadProjectStatistics(project, actor));
    return this.deps.views.one(project, actor, { statistics, withCustomAttributes: request.withCustomAttributes });
  }

  /** `POST /projects` (the caller's own) and `POST /projects/user/:user_id` (an administrator's, for `ownerRef`). */
  async create(actor: UserRecord, request: ProjectCreateRequest, ownerRef?: string): Promise<ProjectView> {
    if (ownerRef !== undefined && !this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    const owner = ownerRef === undefined ? actor : await this.deps.lookup.user(ownerRef);
    return this.answer(await this.deps.projects.create(actor, owner, request), actor);
  }

  async update(ref: string, actor: UserRecord, request: ProjectUpdateRequest): Promise<ProjectView> {
    const project = await this.editable(ref, actor);
    return this.answer(await this.deps.projects.update(project, actor, request), actor);
  }

  async remove(ref: string, actor: UserRecord): Promise<void> {
    await this.deps.projects.remove(await this.administered(ref, actor));
  }

  async fork(ref: string, actor: UserRecord, request: ProjectForkRequest): Promise<ProjectView> {
    const source = await this.deps.lookup.readableProject(ref, actor);
    return this.answer(await this.deps.projects.fork(source, actor, request), actor);
  }

  /** Stars or unstars the project; null when it already was (or was not) starred. */
  async setStarred(ref: string, actor: UserRecord, starred: boolean): Promise<ProjectView | null> {
    const project = await this.deps.lookup.readableProject(ref, actor);
    const { projectQueries } = this.deps;
    const changed = starred ? await projectQueries.star(actor.id, project.id, new Date().toISOString()) : await projectQueries.unstar(actor.id, project.id);
    return changed ? this.answer(project, actor) : null;
  }

  async setArchived(ref: string, actor: UserRecord, archived: boolean): Promise<ProjectView> {
    const project = await this.editable(ref, actor);
    return this.answer(await this.deps.projects.setArchived(project, archived), actor);
  }

  /** `PUT /projects/:id/transfer`: by the project's owner, into a namespace they can read (id or full path). */
  async transfer(ref: string, actor: UserRecord, namespaceRef: string): Promise<ProjectView> {
    const project = await this.administered(ref, actor);
    const namespace = await this.deps.namespaces.readable(namespaceRef, actor);
    return this.answer(await this.deps.transfer.transferByUser(project, actor, namespace), actor);
  }

  async share(ref: string, actor: UserRecord, input: ShareInput): Promise<ProjectGroupLinkRecord> {
    return this.deps.shares.share(await this.editable(ref, actor), actor, input);
  }

  async unshare(ref: string, actor: UserRecord, groupId: number): Promise<void> {
    await this.deps.shares.unshare(await this.editable(ref, actor), groupId);
  }

  /** The project as the caller sees it once a write is done (one memo for the whole answer). */
  private answer(project: ProjectRecord, actor: UserRecord): Promise<ProjectView> {
    return this.deps.permissions.readAfterWrite(actor, (reader) => this.deps.views.one(project, reader));
  }

  /** The project, readable by the caller and editable by them (Maintainer and up). */
  private async editable(ref: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(ref, actor);
    if (!(await this.deps.permissions.canEditProject(project, actor))) throw accessDenied();
    return project;
  }

  /** The project, readable by the caller and administered by them (Owner). */
  private async administered(ref: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(ref, actor);
    if (!(await this.deps.permissions.canAdministerProject(project, actor))) throw accessDenied();
    return project;
  }
}
