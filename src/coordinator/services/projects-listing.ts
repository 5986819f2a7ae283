import type { AccessLevel, ProjectOrderColumn, ProjectRecord, UserRecord, Visibility } from '../../storage/types.ts';
import type { ProjectListFilter } from '../../storage/types-projects.ts';
import type { CoordinatorContext } from '../context.ts';
import type { Actor } from './permissions.ts';
import { ProjectPresenter } from './project-presenter.ts';
import { actorProjectAccess, projectVisibilityScope, type ActorProjectAccess } from './project-scope.ts';

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
}

type Page = { offset: number; limit: number };

/** `GET /projects` and `GET /users/:user_id/projects`: every filter and the order in SQL. */
export class ProjectListing {
  private readonly presenter: ProjectPresenter;

  constructor(private readonly context: CoordinatorContext) {
    this.presenter = new ProjectPresenter(context);
  }

  async list(actor: Actor, query: ProjectListQuery, page: Page, owner?: UserRecord): Promise<{ items: unknown[]; total: number }> {
    const { stores } = this.context;
    if ((query.owned || query.membership || query.starred || query.minAccessLevel !== undefined) && !actor) return { items: [], total: 0 };
    const access = await actorProjectAccess(this.context, actor);
    const filter: ProjectListFilter = {
      scope: projectVisibilityScope(actor, access),
      archived: query.archived,
      visibility: query.visibility,
      search: query.search,
      searchNamespaces: query.searchNamespaces,
      starredBy: query.starred && actor ? actor.id : undefined,
      issuesEnabled: query.withIssuesEnabled,
      mergeRequestsEnabled: query.withMergeRequestsEnabled,
      lastActivityAfter: query.lastActivityAfter,
      lastActivityBefore: query.lastActivityBefore,
      idAfter: query.idAfter,
      idBefore: query.idBefore,
      orderBy: query.orderBy,
      sort: query.sort,
    };
    if (owner) {
      const namespace = await stores.namespaces.findUserNamespace(owner.id);
      filter.namespaceIds = namespace ? [namespace.id] : [];
    }
    if (query.owned && actor) {
      const namespace = await stores.namespaces.findUserNamespace(actor.id);
      filter.namespaceIds = intersect(filter.namespaceIds, namespace ? [namespace.id] : []);
    }
    if (query.membership || query.minAccessLevel !== undefined) {
      filter.scope = membershipScope(access, query.minAccessLevel ?? 10);
    }
    if (query.customAttributes && Object.keys(query.customAttributes).length > 0 && actor?.is_admin) {
      filter.onlyIds = await stores.customAttributes.subjectIdsMatching('project', query.customAttributes);
    }
    const { items, total } = await stores.projectQueries.list(filter, page);
    return { items: await this.present(items, actor, query, access), total };
  }

  private present(items: ProjectRecord[], actor: Actor, query: ProjectListQuery, access: ActorProjectAccess): Promise<unknown[]> {
    const statistics = query.statistics && actor !== null;
    return this.presenter.many(items, actor, { simple: query.simple, statistics, withCustomAttributes: query.withCustomAttributes, access });
  }
}

/** Projects reachable through the caller's own memberships at `minLevel` or above (administrators too). */
function membershipScope(access: ActorProjectAccess, minLevel: AccessLevel): ProjectListFilter['scope'] {
  const namespaceIds = [...access.namespaceLevels].flatMap(([id, level]) => (level >= minLevel ? [id] : []));
  const projectIds = [...access.projectMembers.values()].flatMap((member) => (member.access_level >= minLevel ? [member.source_id] : []));
  return { visibilities: [], namespaceIds, projectIds: minLevel <= 10 ? [...projectIds, ...access.sharedProjectIds] : projectIds };
}

function intersect(current: number[] | undefined, next: number[]): number[] {
  return current === undefined ? next : current.filter((id) => next.includes(id));
}
