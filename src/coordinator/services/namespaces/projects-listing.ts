import type { AccessLevel, CustomAttributesStore, NamespacesStore, ProjectOrderColumn, ProjectRecord, UserRecord, Visibility } from '../../../storage/types.ts';
import type { ProjectListFilter, ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { Lookup } from '../access/lookup.ts';
import { GUEST, OWNER, type Actor, type ActorProjectAccess, type Permissions } from '../access/permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from './project-scope.ts';
import type { ProjectView, ProjectViews } from './project-views.ts';

export interface ProjectListQuery {
  archived?: boolean;
  visibility?: Visibility;
  orderBy: ProjectOrderColumn;
  sort: 'asc' | 'desc';
  search?: string;
  searchNamespaces?: boolean;
  simple: boolean;
  owned: boolean;
  membership: boolean;
  starred: boolean;
  statistics: boolean;
  withCustomAttributes: boolean;
  customAttributes?: Record<string, string>;
  minAccessLevel?: AccessLevel;
  lastActivityAfter?: string;
  lastActivityBefore?: string;
  idAfter?: number;
  idBefore?: number;
  withIssuesEnabled?: boolean;
  withMergeRequestsEnabled?: boolean;
  /** Only projects carrying every one of these topics. */
  topics?: string[];
}

type Page = { offset: number; limit: number };

export interface ProjectListingDeps extends ProjectScopeDeps {
  namespaces: ProjectScopeDeps['namespaces'] & Pick<NamespacesStore, 'findUserNamespace'>;
  projectQueries: ProjectScopeDeps['projectQueries'] & Pick<ProjectQueriesStore, 'list'>;
  customAttributes: Pick<CustomAttributesStore, 'subjectIdsMatching'>;
  lookup: Pick<Lookup, 'user' | 'readableProject'>;
  permissions: Pick<Permissions, 'projectListingScope' | 'projectMembershipScope' | 'readsCustomAttributes'>;
  views: Pick<ProjectViews, 'many'>;
}

/** `GET /projects`, `GET /users/:user_id/projects` and `GET /projects/:id/forks`: every filter and the order in SQL. */
export class ProjectListing {
  constructor(private readonly deps: ProjectListingDeps) {}

  /** `GET /users/:user_id/projects`: the projects in the user's personal namespace (id or username). */
  async listForUser(userRef: string, actor: Actor, query: ProjectListQuery, page: Page): Promise<{ items: ProjectView[]; total: number }> {
    return this.list(actor, query, page, await this.deps.lookup.user(userRef));
  }

  /** `GET /projects/:id/forks`: the forks of a project the caller can read, those the caller can see, filtered like `GET /projects`. */
  async listForks(projectRef: string, actor: Actor, query: ProjectListQuery, page: Page): Promise<{ items: ProjectView[]; total: number }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    return this.list(actor, query, page, undefined, project.id);
  }

  async list(actor: Actor, query: ProjectListQuery, page: Page, owner?: UserRecord, forkedFromId?: number): Promise<{ items: ProjectView[]; total: number }> {
    const { deps } = this;
    const { permissions } = deps;
    if ((query.owned || query.membership || query.starred || query.minAccessLevel !== undefined) && !actor) return { items: [], total: 0 };
    const access = await actorProjectAccess(deps, actor);
    const filter: ProjectListFilter = {
      scope: permissions.projectListingScope(actor, access),
      archived: query.archived,
      visibility: query.visibility,
      search: query.search,
      searchNamespaces: query.searchNamespaces,
      starredBy: query.starred && actor ? actor.id : undefined,
      issuesEnabled: query.withIssuesEnabled,
      mergeRequestsEnabled: query.withMergeRequestsEnabled,
      topics: query.topics,
      lastActivityAfter: query.lastActivityAfter,
      lastActivityBefore: query.lastActivityBefore,
      idAfter: query.idAfter,
      idBefore: query.idBefore,
      orderBy: query.orderBy,
      sort: query.sort,
      forkedFromId,
    };
    if (owner) {
      const namespace = await deps.namespaces.findUserNamespace(owner.id);
      filter.namespaceIds = namespace ? [namespace.id] : [];
    }
    if (query.owned && actor) {
      // GitLab's owned projects: those the caller reaches at the Owner level (their personal namespace's and those of groups they own).
      filter.scope = permissions.projectMembershipScope(access, OWNER);
    } else if (query.membership || query.minAccessLevel !== undefined) {
      filter.scope = permissions.projectMembershipScope(access, query.minAccessLevel ?? GUEST);
    }
    if (query.customAttributes && Object.keys(query.customAttributes).length > 0 && permissions.readsCustomAttributes(actor)) {
      filter.onlyIds = await deps.customAttributes.subjectIdsMatching('project', query.customAttributes);
    }
    const { items, total } = await deps.projectQueries.list(filter, page);
    return { items: await this.present(items, actor, query, access), total };
  }

  private present(items: ProjectRecord[], actor: Actor, query: ProjectListQuery, access: ActorProjectAccess): Promise<ProjectView[]> {
    const statistics = query.statistics && actor !== null;
    return this.deps.views.many(items, actor, { simple: query.simple, statistics, withCustomAttributes: query.withCustomAttributes, access });
  }
}
