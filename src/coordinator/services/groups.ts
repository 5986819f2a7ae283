import type { GroupProjectFilter, NamespaceRecord, ProjectOrderColumn, ProjectRecord, Visibility } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { serializeGroup, serializeGroupDetails, type GroupDetailsJson, type GroupJson, type GroupStatisticsJson } from '../http/serializers/groups.ts';
import { GroupSharesService } from './group-shares.ts';
import { OWNER, type Actor } from './permissions.ts';

/** Storage sizes per group (RepositoryGroupStatistics; artifacts add theirs when they are stored). */
export interface GroupStatisticsSource {
  forGroups(groupIds: readonly number[]): Promise<Map<number, GroupStatisticsJson>>;
}

/** Renders projects as Project JSON for the caller (the projects area's presenter). */
export type ProjectsPresenter = (projects: ProjectRecord[], actor: Actor, options: { simple: boolean }) => Promise<unknown[]>;

export interface GroupListQuery {
  skipGroups?: number[];
  allAvailable?: boolean;
  search?: string;
  orderBy: 'name' | 'path';
  sort: 'asc' | 'desc';
  statistics: boolean;
  owned: boolean;
  customAttributes?: Record<string, string>;
}

export interface GroupProjectsQuery {
  archived?: boolean;
  visibility?: Visibility;
  orderBy: ProjectOrderColumn;
  sort: 'asc' | 'desc';
  search?: string;
  simple: boolean;
  owned: boolean;
  starred: boolean;
}

export interface Page {
  offset: number;
  limit: number;
}

/** Reading groups: listings, subgroups, details and the projects of a group. */
export class GroupsService {
  private readonly shares: GroupSharesService;

  constructor(
    private readonly context: CoordinatorContext,
    private readonly presentProjects: ProjectsPresenter,
    private readonly statistics: GroupStatisticsSource,
  ) {
    this.shares = new GroupSharesService(context);
  }

  /** `GET /groups`, and `GET /groups/:id/subgroups` with `parent`. */
  async list(actor: Actor, query: GroupListQuery, page: Page, parent?: NamespaceRecord): Promise<{ items: GroupJson[]; total: number }> {
    const { permissions, stores } = this.context;
    let onlyIds: number[] | undefined;
    let scope = await permissions.groupVisibilityScope(actor, { includeVisible: query.allAvailable !== false });
    if (query.owned) {
      // Owned groups are shown whatever their visibility: their owner can read them.
      onlyIds = actor ? await stores.groupQueries.groupIdsWithMemberLevel(actor.id, OWNER) : [];
      scope = null;
    }
    if (query.customAttributes && actor?.is_admin) {
      const matching = await stores.customAttributes.subjectIdsMatching('group', query.customAttributes);
      onlyIds = onlyIds === undefined ? matching : onlyIds.filter((id) => matching.includes(id));
    }
    const { items, total } = await stores.groupQueries.listGroups(
      {
        scope,
        parentId: parent?.id,
        onlyIds,
        skipIds: query.skipGroups,
        search: query.search,
        orderBy: query.orderBy,
        sort: query.sort,
      },
      page,
    );
    const externalUrl = this.context.config.externalUrl;
    if (!(query.statistics && actor?.is_admin)) return { items: items.map((group) => serializeGroup(group, externalUrl)), total };
    const sizes = await this.statistics.forGroups(items.map((group) => group.id));
    return { items: items.map((group) => serializeGroup(group, externalUrl, sizes.get(group.id))), total };
  }

  async readable(ref: string, actor: Actor): Promise<NamespaceRecord> {
    return this.context.lookup.readableGroup(ref, actor);
  }

  /** Group details: the group with the projects it holds and those shared with it that the caller can read. */
  async details(group: NamespaceRecord, actor: Actor): Promise<GroupDetailsJson> {
    const order = { orderBy: 'created_at', sort: 'desc' } as const;
    const owned = await this.readableProjects(actor, { groupId: group.id, include: 'owned', ...order });
    const shared = await this.readableProjects(actor, { groupId: group.id, include: 'shared', ...order });
    return serializeGroupDetails(
      group,
      this.context.config.externalUrl,
      await this.presentProjects(owned, actor, { simple: false }),
      await this.presentProjects(shared, actor, { simple: false }),
      await this.shares.sharedWith(group, actor),
    );
  }

  /** `GET /groups/:id/projects`: projects in the group or shared with it, visible to the caller. */
  async projects(group: NamespaceRecord, actor: Actor, query: GroupProjectsQuery, page: Page): Promise<{ items: unknown[]; total: number }> {
    if ((query.starred || query.owned) && !actor) return { items: [], total: 0 };
    let projects = await this.readableProjects(actor, {
      groupId: group.id,
      include: 'both',
      archived: query.archived,
      visibility: query.visibility,
      search: query.search,
      starredBy: query.starred && actor ? actor.id : undefined,
      orderBy: query.orderBy,
      sort: query.sort,
    });
    if (query.owned) projects = await this.ownedBy(projects, actor);
    const slice = projects.slice(page.offset, page.offset + page.limit);
    return { items: await this.presentProjects(slice, actor, { simple: query.simple }), total: projects.length };
  }

  private async readableProjects(actor: Actor, filter: GroupProjectFilter): Promise<ProjectRecord[]> {
    const candidates = await this.context.stores.groupQueries.listGroupProjects(filter);
    const readable: ProjectRecord[] = [];
    for (const project of candidates) {
      if (await this.context.permissions.canReadProject(project, actor)) readable.push(project);
    }
    return readable;
  }

  /** Projects whose namespace the caller owns (personal namespace, or owner of the group or an ancestor). */
  private async ownedBy(projects: ProjectRecord[], actor: Actor): Promise<ProjectRecord[]> {
    const levels = new Map<number, boolean>();
    const out: ProjectRecord[] = [];
    for (const project of projects) {
      let owns = levels.get(project.namespace_id);
      if (owns === undefined) {
        owns = (await this.context.permissions.namespaceMembershipLevel(project.namespace_id, actor)) === OWNER;
        levels.set(project.namespace_id, owns);
      }
      if (owns) out.push(project);
    }
    return out;
  }
}
