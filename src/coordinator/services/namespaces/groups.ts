import type {
  AccessLevel,
  CustomAttributesStore,
  GroupProjectFilter,
  GroupQueriesStore,
  NamespaceRecord,
  NamespacesStore,
  ProjectOrderColumn,
  ProjectRecord,
  Visibility,
} from '../../../storage/types.ts';
import type { GroupGroupLinksStore } from '../../../storage/types-projects.ts';
import type { GroupStatistics, GroupStatisticsSource } from './group-statistics.ts';
import type { Lookup } from '../access/lookup.ts';
import { OWNER, type Actor, type Permissions } from '../access/permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from './project-scope.ts';

export interface GroupListQuery {
  skipGroups?: number[];
  allAvailable?: boolean;
  search?: string;
  orderBy: 'name' | 'path';
  sort: 'asc' | 'desc';
  statistics: boolean;
  owned: boolean;
  /** Only groups where the caller is a member at this level or higher, and their subgroups. */
  minAccessLevel?: AccessLevel;
  customAttributes?: Record<string, string>;
}

export interface GroupProjectsQuery {
  archived?: boolean;
  visibility?: Visibility;
  orderBy: ProjectOrderColumn;
  sort: 'asc' | 'desc';
  search?: string;
  owned: boolean;
  starred: boolean;
  /** Also the projects of every subgroup below the group (default false). */
  includeSubgroups: boolean;
  /** Also the projects shared with the group (GitLab's default true). */
  withShared: boolean;
  withIssuesEnabled: boolean;
  withMergeRequestsEnabled: boolean;
  /** Only projects carrying every one of these topics. */
  topics?: string[];
  /** Only projects the caller reaches through a membership at this level or above. */
  minAccessLevel?: AccessLevel;
}

export interface Page {
  offset: number;
  limit: number;
}

/** A group in a listing; its storage figures when an administrator asked for them. */
export interface GroupListItem {
  group: NamespaceRecord;
  statistics?: GroupStatistics;
}

/** A group this group is shared with, as its details list it. */
export interface GroupShareView {
  group: NamespaceRecord;
  groupAccess: AccessLevel;
  expiresAt: string | null;
}

/** Group details: the group, the projects it holds and those shared with it (readable ones), its shares. */
export interface GroupDetails {
  group: NamespaceRecord;
  projects: ProjectRecord[];
  sharedProjects: ProjectRecord[];
  sharedWithGroups: GroupShareView[];
}

export interface GroupsServiceDeps {
  groupQueries: Pick<GroupQueriesStore, 'listGroups' | 'listGroupProjects' | 'groupIdsWithMemberLevel'>;
  customAttributes: Pick<CustomAttributesStore, 'subjectIdsMatching'>;
  groupLinks: Pick<GroupGroupLinksStore, 'listForSharedGroups'>;
  namespaces: Pick<NamespacesStore, 'findByIds' | 'descendantIds'>;
  lookup: Pick<Lookup, 'readableGroup'>;
  permissions: Pick<Permissions, 'groupVisibilityScope' | 'isAdministrator' | 'canReadProject' | 'ownsNamespace' | 'readableGroupIds' | 'projectMembershipScope'>;
  statistics: GroupStatisticsSource;
  /** The caller's memberships, for `min_access_level`. */
  projectScope: ProjectScopeDeps;
}

/** Reading groups: listings, subgroups, details and the projects of a group. */
export class GroupsService {
  constructor(private readonly deps: GroupsServiceDeps) {}

  /** `GET /groups`. */
  list(actor: Actor, query: GroupListQuery, page: Page): Promise<{ items: GroupListItem[]; total: number }> {
    return this.listUnder(undefined, actor, query, page);
  }

  /** `GET /groups/:id/subgroups`: the readable group's direct subgroups the caller may see. */
  async subgroups(ref: string, actor: Actor, query: GroupListQuery, page: Page): Promise<{ items: GroupListItem[]; total: number }> {
    return this.listUnder(await this.readable(ref, actor), actor, query, page);
  }

  /** `GET /groups/:id/descendant_groups`: every group below the readable group that the caller may see. */
  async descendants(ref: string, actor: Actor, query: GroupListQuery, page: Page): Promise<{ items: GroupListItem[]; total: number }> {
    const group = await this.readable(ref, actor);
    return this.listUnder(undefined, actor, query, page, await this.deps.namespaces.descendantIds(group.id));
  }

  /** A group the caller can read (id or full path), else 404 Group Not Found. */
  readable(ref: string | number, actor: Actor): Promise<NamespaceRecord> {
    return this.deps.lookup.readableGroup(ref, actor);
  }

  /** `GET /groups/:id`. */
  async get(ref: string, actor: Actor): Promise<GroupDetails> {
    return this.details(await this.readable(ref, actor), actor);
  }

  /** Group details: the group with the projects it holds and those shared with it that the caller can read. */
  async details(group: NamespaceRecord, actor: Actor): Promise<GroupDetails> {
    const order = { orderBy: 'created_at', sort: 'desc' } as const;
    return {
      group,
      projects: await this.readableProjects(actor, { groupId: group.id, include: 'owned', ...order }),
      sharedProjects: await this.readableProjects(actor, { groupId: group.id, include: 'shared', ...order }),
      sharedWithGroups: await this.sharedWith(group, actor),
    };
  }

  /** `GET /groups/:id/projects`: projects in the group or shared with it, visible to the caller. */
  async projects(ref: string, actor: Actor, query: GroupProjectsQuery, page: Page): Promise<{ items: ProjectRecord[]; total: number }> {
    const group = await this.readable(ref, actor);
    if ((query.starred || query.owned || query.minAccessLevel !== undefined) && !actor) return { items: [], total: 0 };
    let projects = await this.readableProjects(actor, {
      groupId: group.id,
      include: query.withShared ? 'both' : 'owned',
      namespaceIds: query.includeSubgroups ? [group.id, ...(await this.deps.namespaces.descendantIds(group.id))] : undefined,
      archived: query.archived,
      visibility: query.visibility,
      search: query.search,
      starredBy: query.starred && actor ? actor.id : undefined,
      issuesEnabled: query.withIssuesEnabled,
      mergeRequestsEnabled: query.withMergeRequestsEnabled,
      topics: query.topics,
      orderBy: query.orderBy,
      sort: query.sort,
    });
    if (query.owned) projects = await this.ownedBy(projects, actor);
    if (query.minAccessLevel !== undefined) {
      // GitLab's visible_to_user_and_access_level: the caller's own memberships count, administrators' included.
      const scope = this.deps.permissions.projectMembershipScope(await actorProjectAccess(this.deps.projectScope, actor), query.minAccessLevel);
      const namespaceIds = new Set(scope.namespaceIds);
      const projectIds = new Set(scope.projectIds);
      projects = projects.filter((project) => namespaceIds.has(project.namespace_id) || projectIds.has(project.id));
    }
    return { items: projects.slice(page.offset, page.offset + page.limit), total: projects.length };
  }

  private async listUnder(
    parent: NamespaceRecord | undefined,
    actor: Actor,
    query: GroupListQuery,
    page: Page,
    withinIds?: number[],
  ): Promise<{ items: GroupListItem[]; total: number }> {
    const { permissions, groupQueries, customAttributes } = this.deps;
    let onlyIds: number[] | undefined = withinIds;
    let scope = await permissions.groupVisibilityScope(actor, { allAvailable: query.allAvailable });
    if (query.owned) {
      // Owned groups are shown whatever their visibility: their owner can read them.
      const ownedIds = actor ? await groupQueries.groupIdsWithMemberLevel(actor.id, OWNER) : [];
      const owned = new Set(ownedIds);
      onlyIds = onlyIds === undefined ? ownedIds : onlyIds.filter((id) => owned.has(id));
      scope = null;
    } else if (query.minAccessLevel !== undefined && actor) {
      // GitLab's min_access_level: direct group memberships at that level, with every subgroup below them.
      const memberIds = await groupQueries.groupIdsWithMemberLevel(actor.id, query.minAccessLevel);
      const reached = new Set(memberIds);
      for (const id of memberIds) for (const below of await this.deps.namespaces.descendantIds(id)) reached.add(below);
      onlyIds = onlyIds === undefined ? [...reached] : onlyIds.filter((id) => reached.has(id));
      scope = null;
    }
    const administrator = permissions.isAdministrator(actor);
    if (query.customAttributes && administrator) {
      const matching = await customAttributes.subjectIdsMatching('group', query.customAttributes);
      onlyIds = onlyIds === undefined ? matching : onlyIds.filter((id) => matching.includes(id));
    }
    const filter = { scope, parentId: parent?.id, onlyIds, skipIds: query.skipGroups, search: query.search, orderBy: query.orderBy, sort: query.sort };
    const { items, total } = await groupQueries.listGroups(filter, page);
    if (!(query.statistics && administrator)) return { items: items.map((group) => ({ group })), total };
    const sizes = await this.deps.statistics.forGroups(items.map((group) => group.id));
    return { items: items.map((group) => ({ group, statistics: sizes.get(group.id) })), total };
  }

  /** The `shared_with_groups` of a group's details: the invited groups the caller can read. */
  private async sharedWith(group: NamespaceRecord, actor: Actor): Promise<GroupShareView[]> {
    const { groupLinks, namespaces, permissions } = this.deps;
    const links = await groupLinks.listForSharedGroups([group.id]);
    const invitedGroups = await namespaces.findByIds(links.map((link) => link.shared_with_group_id));
    const readable = await permissions.readableGroupIds(invitedGroups, actor);
    const groups = new Map(invitedGroups.map((invited) => [invited.id, invited]));
    return links.flatMap((link) => {
      const invited = groups.get(link.shared_with_group_id);
      if (!invited || !readable.has(invited.id)) return [];
      return [{ group: invited, groupAccess: link.group_access, expiresAt: link.expires_at }];
    });
  }

  private async readableProjects(actor: Actor, filter: GroupProjectFilter): Promise<ProjectRecord[]> {
    const candidates = await this.deps.groupQueries.listGroupProjects(filter);
    const readable: ProjectRecord[] = [];
    for (const project of candidates) {
      if (await this.deps.permissions.canReadProject(project, actor)) readable.push(project);
    }
    return readable;
  }

  /** Projects whose namespace the caller owns (personal namespace, or owner of the group or an ancestor). */
  private async ownedBy(projects: ProjectRecord[], actor: Actor): Promise<ProjectRecord[]> {
    const owned = new Map<number, boolean>();
    const out: ProjectRecord[] = [];
    for (const project of projects) {
      let owns = owned.get(project.namespace_id);
      if (owns === undefined) {
        owns = await this.deps.permissions.ownsNamespace(project.namespace_id, actor);
        owned.set(project.namespace_id, owns);
      }
      if (owns) out.push(project);
    }
    return out;
  }
}
