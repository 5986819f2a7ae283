import type { ReadDependencies } from '../access/read-cache.ts';
import { GantryError } from '../../../shared/errors.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { AccessLevel, CustomAttributeRecord, CustomAttributesStore, MemberRecord, NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { Actor, ActorProjectAccess, Permissions } from '../access/permissions.ts';
import { actorProjectAccess, type ProjectScopeDeps } from './project-scope.ts';

export interface ViewOptions {
  /** Only the simple subset (`simple=true`). */
  simple?: boolean;
  statistics?: boolean;
  /** Administrators only: the projects' custom attributes. */
  withCustomAttributes?: boolean;
  /** Reuse the caller's memberships when the caller already gathered them. */
  access?: ActorProjectAccess;
}

/** A project with what its simple answer shows. */
export interface ProjectSummaryView {
  project: ProjectRecord;
  namespace: NamespaceRecord;
  stars: number;
  forks: number;
}

export interface ProjectStatistics {
  commitCount: number;
  repositorySize: number;
}

/** A project as one caller may see it: what GitLab's Project entity shows, resolved. */
export interface ProjectView extends ProjectSummaryView {
  detail: 'simple' | 'full';
  /** The user owning a personal namespace. */
  owner?: UserRecord;
  /** The fork source, when the caller can read it. */
  forkedFrom?: ProjectSummaryView;
  /** Groups the project is shared with that the caller can read. */
  sharedWithGroups: Array<{ group: NamespaceRecord; access: AccessLevel }>;
  /** The caller's own memberships (`permissions`); null for anonymous callers. */
  callerAccess: { project?: MemberRecord; groupLevel?: AccessLevel } | null;
  showsRunnersToken: boolean;
  statistics?: ProjectStatistics;
  customAttributes?: CustomAttributeRecord[];
}

export interface ProjectViewsDeps extends ProjectScopeDeps {
  projects: Pick<ProjectsStore, 'findByIds'>;
  namespaces: ProjectScopeDeps['namespaces'] & Pick<NamespacesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  projectQueries: ProjectScopeDeps['projectQueries'] & Pick<ProjectQueriesStore, 'starAndForkCounts' | 'groupShares'>;
  customAttributes: Pick<CustomAttributesStore, 'list'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  permissions: Pick<Permissions, 'projectAccess' | 'readableProjectIds' | 'readableGroupIds' | 'seesRunnersToken' | 'readsCustomAttributes' | 'projectShares' | 'namespacesByIds'>;
}

/** What one page of projects needs from the database, fetched once per page. */
interface PageData {
  namespaces: Map<number, NamespaceRecord>;
  owners: Map<number, UserRecord>;
  counts: Map<number, { stars: number; forks: number }>;
  shares: Map<number, Array<{ group_id: number; group_access: AccessLevel }>>;
  readableShareGroups: Set<number>;
  parents: Map<number, ProjectRecord>;
  access: ActorProjectAccess;
}

/**
 * Project views for a whole page at once: one query per related table (namespaces, owners,
 * stars, forks, group shares, fork parents), never one per project.
 */
/** Up to this many projects, their access is worked out per project rather than from all of the caller's memberships. */
const FEW_PROJECTS = 3;

export class ProjectViews {
  constructor(private readonly deps: ProjectViewsDeps) {}

  async one(project: ProjectRecord, actor: Actor, options: ViewOptions = {}): Promise<ProjectView> {
    const [view] = await this.many([project], actor, options);
    // Only a namespace deleted meanwhile (taking its projects with it) leaves a project without one.
    if (!view) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    return view;
  }

  async many(projects: readonly ProjectRecord[], actor: Actor, options: ViewOptions = {}): Promise<ProjectView[]> {
    const data = await this.load(projects, actor, options);
    const views: ProjectView[] = [];
    for (const project of projects) {
      const namespace = data.namespaces.get(project.namespace_id);
      if (!namespace) continue;
      const view = options.simple ? this.simple(project, namespace, data) : this.full(project, namespace, data, actor);
      if (options.statistics && !options.simple) view.statistics = await this.statistics(project);
      if (options.withCustomAttributes && this.deps.permissions.readsCustomAttributes(actor)) {
        view.customAttributes = await this.deps.customAttributes.list('project', project.id);
      }
      views.push(view);
    }
    return views;
  }

  /**
   * The caller's access to these projects: for a few, the permission module's per-project
   * answer (a read request has usually worked it out already for its read rule, see
   * request-memo.ts); for a page, all of the caller's memberships at once.
   */
  private async accessFor(projects: readonly ProjectRecord[], actor: Actor): Promise<ActorProjectAccess> {
    if (!actor || projects.length > FEW_PROJECTS) return actorProjectAccess(this.deps, actor);
    const access: ActorProjectAccess = { namespaceLevels: new Map(), projectMembers: new Map(), sharedProjectIds: [] };
    for (const project of projects) {
      const found = await this.deps.permissions.projectAccess(project, actor);
      if (found.projectMember) access.projectMembers.set(project.id, found.projectMember);
      if (found.groupAccess !== null) access.namespaceLevels.set(project.namespace_id, found.groupAccess);
    }
    return access;
  }

  private async load(projects: readonly ProjectRecord[], actor: Actor, options: ViewOptions): Promise<PageData> {
    const { deps } = this;
    const ids = projects.map((project) => project.id);
    const parentIds = projects.flatMap((project) => (project.forked_from_id === null ? [] : [project.forked_from_id]));
    const parents = options.simple ? [] : await this.readableOnly(await deps.projects.findByIds(parentIds), actor);
    const namespaceIds = [...projects, ...parents].map((project) => project.namespace_id);
    // A project's own answer reuses what its read rule resolved (request-memo.ts); a page reads all at once.
    const few = projects.length <= FEW_PROJECTS && actor !== null;
    // Worked out first for a few projects: it resolves their namespace chains, which then answer the namespaces.
    const knownAccess = few ? (options.access ?? (await this.accessFor(projects, options.simple ? null : actor))) : options.access;
    const namespaces = new Map((await (few ? deps.permissions.namespacesByIds(namespaceIds, actor) : deps.namespaces.findByIds(namespaceIds))).map((namespace) => [namespace.id, namespace]));
    const ownerIds = [...namespaces.values()].flatMap((namespace) => (namespace.kind === 'user' && namespace.owner_id !== null ? [namespace.owner_id] : []));
    const [owners, counts, shares, access] = await Promise.all([
      options.simple ? [] : deps.users.findByIds(ownerIds),
      deps.projectQueries.starAndForkCounts(ids),
      options.simple ? new Map<number, Array<{ group_id: number; group_access: AccessLevel }>>() : few ? this.sharesOneByOne(ids, actor) : deps.projectQueries.groupShares(ids),
      knownAccess ?? this.accessFor(projects, options.simple ? null : actor),
    ]);
    const shareGroupIds = [...shares.values()].flat().map((share) => share.group_id);
    const shareGroups = await (few ? deps.permissions.namespacesByIds(shareGroupIds, actor) : deps.namespaces.findByIds(shareGroupIds));
    for (const group of shareGroups) namespaces.set(group.id, group);
    return {
      namespaces,
      owners: new Map(owners.map((owner) => [owner.id, owner])),
      counts,
      shares,
      readableShareGroups: await deps.permissions.readableGroupIds(shareGroups, actor),
      parents: new Map(parents.map((parent) => [parent.id, parent])),
      access,
    };
  }

  private async sharesOneByOne(ids: readonly number[], actor: Actor): Promise<Map<number, Array<{ group_id: number; group_access: AccessLevel }>>> {
    const shares = new Map<number, Array<{ group_id: number; group_access: AccessLevel }>>();
    for (const id of new Set(ids)) {
      const links = await this.deps.permissions.projectShares(id, actor);
      if (links.length > 0) shares.set(id, links);
    }
    return shares;
  }

  private async readableOnly(projects: ProjectRecord[], actor: Actor): Promise<ProjectRecord[]> {
    const readable = await this.deps.permissions.readableProjectIds(projects, actor);
    return projects.filter((project) => readable.has(project.id));
  }

  private summary(project: ProjectRecord, namespace: NamespaceRecord, data: PageData): ProjectSummaryView {
    const counts = data.counts.get(project.id);
    return { project, namespace, stars: counts?.stars ?? 0, forks: counts?.forks ?? 0 };
  }

  private simple(project: ProjectRecord, namespace: NamespaceRecord, data: PageData): ProjectView {
    return Object.assign(this.summary(project, namespace, data), { detail: 'simple' as const, sharedWithGroups: [], callerAccess: null, showsRunnersToken: false });
  }

  private full(project: ProjectRecord, namespace: NamespaceRecord, data: PageData, actor: Actor): ProjectView {
    const owner = namespace.kind === 'user' && namespace.owner_id !== null ? data.owners.get(namespace.owner_id) : undefined;
    const parent = project.forked_from_id === null ? undefined : data.parents.get(project.forked_from_id);
    const parentNamespace = parent && data.namespaces.get(parent.namespace_id);
    const sharedWithGroups = (data.shares.get(project.id) ?? []).flatMap((share) => {
      const group = data.namespaces.get(share.group_id);
      return group && data.readableShareGroups.has(group.id) ? [{ group, access: share.group_access }] : [];
    });
    const member = data.access.projectMembers.get(project.id);
    const groupLevel = data.access.namespaceLevels.get(project.namespace_id);
    // Assigned onto the summary, not spread from it: the spread made every answer measurably slower to build.
    return Object.assign(this.summary(project, namespace, data), {
      detail: 'full' as const,
      owner,
      forkedFrom: parent && parentNamespace ? this.summary(parent, parentNamespace, data) : undefined,
      sharedWithGroups,
      callerAccess: actor ? { project: member, groupLevel } : null,
      showsRunnersToken: this.deps.permissions.seesRunnersToken(project, actor, data.access),
    });
  }

  private async statistics(project: ProjectRecord): Promise<ProjectStatistics> {
    const { repositories } = this.deps;
    if (!(await repositories.exists(project.id))) return { commitCount: 0, repositorySize: 0 };
    const repository = repositories.open(project.id);
    const repositorySize = await repository.sizeInBytes();
    const commitCount = (await repository.isEmpty()) ? 0 : await repository.countCommits({});
    return { commitCount, repositorySize };
  }
}

const PROJECT_VIEW_TABLES = ['namespaces', 'members', 'group_group_links', 'project_group_links', 'stars', 'users', 'custom_attributes'] as const;

/** What a project's JSON depends on: the read cache keeps it until one of these changes. */
export function projectViewDependencies(project: ProjectRecord): ReadDependencies {
  return { rows: { projects: [project.id, project.forked_from_id] }, tables: PROJECT_VIEW_TABLES };
}
