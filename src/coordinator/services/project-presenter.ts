import type { AccessLevel, NamespaceRecord, ProjectRecord, UserRecord } from '../../storage/types.ts';
import { serializeNamespace } from '../http/serializers/namespaces.ts';
import type { CoordinatorContext } from '../context.ts';
import type { ReadDependencies } from './read-cache.ts';
import { MAINTAINER, type Actor } from './permissions.ts';
import { actorAccessTo, type ActorProjectAccess } from './project-scope.ts';

export interface PresentOptions {
  /** Only the simple subset (`simple=true`). */
  simple?: boolean;
  statistics?: boolean;
  /** Administrators only: the projects' custom attributes. */
  withCustomAttributes?: boolean;
  /** Reuse the caller's memberships when the caller already gathered them. */
  access?: ActorProjectAccess;
}

type Json = Record<string, unknown>;

/** What one page of projects needs from the database, fetched once per page. */
interface PageData {
  namespaces: Map<number, NamespaceRecord>;
  owners: Map<number, UserRecord>;
  counts: Map<number, { stars: number; forks: number }>;
  shares: Awaited<ReturnType<CoordinatorContext['stores']['projectQueries']['groupShares']>>;
  /** The groups in `shares` the caller can read: the only ones `shared_with_groups` lists. */
  readableShareGroups: Set<number>;
  /** Fork sources the caller can read (others are left out of `forked_from_project`). */
  parents: Map<number, ProjectRecord>;
  access: ActorProjectAccess;
}

/**
 * The tables a project's JSON (and its read rule) reads besides its own row and its fork
 * parent's: test/coordinator/read-cache-dependencies.test.ts checks this list against the
 * statements such a request runs.
 */
const PROJECT_VIEW_TABLES = ['namespaces', 'members', 'group_group_links', 'project_group_links', 'stars', 'users', 'custom_attributes'] as const;

/** What a project's JSON depends on: the read cache keeps it until one of these changes. */
export function projectViewDependencies(project: ProjectRecord): ReadDependencies {
  return { rows: { projects: [project.id, project.forked_from_id] }, tables: PROJECT_VIEW_TABLES };
}

const featureLevel = (enabled: boolean): string => (enabled ? 'enabled' : 'disabled');

/**
 * Project JSON as GitLab renders it, for a whole page at once: one query per related table
 * (namespaces, owners, stars, forks, group shares, fork parents), never one per project.
 */
export class ProjectPresenter {
  private readonly sshHost: string;

  constructor(private readonly context: CoordinatorContext) {
    this.sshHost = new URL(context.config.externalUrl).hostname;
  }

  async one(project: ProjectRecord, actor: Actor, options: PresentOptions = {}): Promise<Json> {
    const [json] = await this.many([project], actor, options);
    return json ?? {};
  }

  async many(projects: readonly ProjectRecord[], actor: Actor, options: PresentOptions = {}): Promise<Json[]> {
    const data = await this.load(projects, actor, options);
    const rendered: Json[] = [];
    for (const project of projects) {
      const namespace = data.namespaces.get(project.namespace_id);
      if (!namespace) continue;
      const json = options.simple ? this.simple(project, namespace, data) : this.full(project, namespace, data, actor);
      if (options.statistics && !options.simple) json.statistics = await this.statistics(project);
      if (options.withCustomAttributes && actor?.is_admin) {
        json.custom_attributes = await this.context.stores.customAttributes.list('project', project.id);
      }
      rendered.push(json);
    }
    return rendered;
  }

  private async load(projects: readonly ProjectRecord[], actor: Actor, options: PresentOptions): Promise<PageData> {
    const { stores } = this.context;
    const ids = projects.map((project) => project.id);
    const parentIds = projects.flatMap((project) => (project.forked_from_id === null ? [] : [project.forked_from_id]));
    const parents = options.simple ? [] : await this.readableOnly(await stores.projects.findByIds(parentIds), actor);
    const namespaceIds = [...projects, ...parents].map((project) => project.namespace_id);
    const namespaces = new Map((await stores.namespaces.findByIds(namespaceIds)).map((namespace) => [namespace.id, namespace]));
    const ownerIds = [...namespaces.values()].flatMap((namespace) => (namespace.kind === 'user' && namespace.owner_id !== null ? [namespace.owner_id] : []));
    const [owners, counts, shares, access] = await Promise.all([
      options.simple ? [] : stores.users.findByIds(ownerIds),
      stores.projectQueries.starAndForkCounts(ids),
      options.simple ? new Map() : stores.projectQueries.groupShares(ids),
      options.access ?? actorAccessTo(this.context, options.simple ? null : actor, projects),
    ]);
    const shareGroupIds = [...shares.values()].flat().map((share) => share.group_id);
    const shareGroups = await stores.namespaces.findByIds(shareGroupIds);
    for (const group of shareGroups) namespaces.set(group.id, group);
    return {
      namespaces,
      owners: new Map(owners.map((owner) => [owner.id, owner])),
      counts,
      shares,
      readableShareGroups: await this.context.permissions.readableGroupIds(shareGroups, actor),
      parents: new Map(parents.map((parent) => [parent.id, parent])),
      access,
    };
  }

  private async readableOnly(projects: ProjectRecord[], actor: Actor): Promise<ProjectRecord[]> {
    const readable = await this.context.permissions.readableProjectIds(projects, actor);
    return projects.filter((project) => readable.has(project.id));
  }

  private urls(project: ProjectRecord, namespace: NamespaceRecord): Json {
    const externalUrl = this.context.config.externalUrl;
    const fullPath = `${namespace.full_path}/${project.path}`;
    return {
      ssh_url_to_repo: `git@${this.sshHost}:${fullPath}.git`,
      http_url_to_repo: `${externalUrl}/${fullPath}.git`,
      web_url: `${externalUrl}/${fullPath}`,
      readme_url: project.default_branch === null ? null : `${externalUrl}/${fullPath}/-/blob/${project.default_branch}/README.md`,
    };
  }

  private simple(project: ProjectRecord, namespace: NamespaceRecord, data: PageData): Json {
    return {
      id: project.id,
      description: project.description,
      name: project.name,
      name_with_namespace: `${namespace.full_name} / ${project.name}`,
      path: project.path,
      path_with_namespace: `${namespace.full_path}/${project.path}`,
      created_at: project.created_at,
      default_branch: project.default_branch,
      tag_list: project.tag_list,
      ...this.urls(project, namespace),
      avatar_url: project.avatar_url,
      forks_count: data.counts.get(project.id)?.forks ?? 0,
      star_count: data.counts.get(project.id)?.stars ?? 0,
      last_activity_at: project.last_activity_at,
      namespace: serializeNamespace(namespace, this.context.config.externalUrl),
    };
  }

  private full(project: ProjectRecord, namespace: NamespaceRecord, data: PageData, actor: Actor): Json {
    const externalUrl = this.context.config.externalUrl;
    const self = `${externalUrl}/api/v4/projects/${project.id}`;
    const owner = namespace.kind === 'user' && namespace.owner_id !== null ? data.owners.get(namespace.owner_id) : undefined;
    const parent = project.forked_from_id === null ? undefined : data.parents.get(project.forked_from_id);
    const parentNamespace = parent && data.namespaces.get(parent.namespace_id);
    // Filled in steps, not as one literal after `...this.simple()`: V8 builds an object literal that
    // starts with a spread and goes on with dozens of keys about a hundred times slower.
    const json: Json = this.simple(project, namespace, data);
    Object.assign(json, {
      _links: {
        self,
        issues: `${self}/issues`,
        merge_requests: `${self}/merge_requests`,
        repo_branches: `${self}/repository/branches`,
        labels: `${self}/labels`,
        events: `${self}/events`,
        members: `${self}/members`,
      },
      empty_repo: project.default_branch === null,
      archived: project.archived,
      visibility: project.visibility,
    });
    if (owner) json.owner = { id: owner.id, name: owner.name, username: owner.username, state: owner.state, avatar_url: owner.avatar_url, web_url: `${externalUrl}/${owner.username}`, created_at: owner.created_at };
    Object.assign(json, {
      resolve_outdated_diff_discussions: project.resolve_outdated_diff_discussions,
      container_registry_enabled: project.container_registry_enabled,
      issues_enabled: project.issues_enabled,
      merge_requests_enabled: project.merge_requests_enabled,
      wiki_enabled: project.wiki_enabled,
      jobs_enabled: project.jobs_enabled,
      snippets_enabled: project.snippets_enabled,
      issues_access_level: featureLevel(project.issues_enabled),
      repository_access_level: 'enabled',
      merge_requests_access_level: featureLevel(project.merge_requests_enabled),
      wiki_access_level: featureLevel(project.wiki_enabled),
      builds_access_level: featureLevel(project.jobs_enabled),
      snippets_access_level: featureLevel(project.snippets_enabled),
      shared_runners_enabled: project.shared_runners_enabled,
      lfs_enabled: project.lfs_enabled,
      creator_id: project.creator_id,
    });
    if (parent && parentNamespace) json.forked_from_project = this.simple(parent, parentNamespace, data);
    Object.assign(json, {
      import_status: project.import_status,
      import_error: project.import_error,
      open_issues_count: 0,
      ci_default_git_depth: 50,
      public_jobs: project.public_jobs,
      build_timeout: 3600,
      ci_config_path: project.ci_config_path,
      shared_with_groups: (data.shares.get(project.id) ?? []).flatMap((share) => {
        const group = data.namespaces.get(share.group_id);
        if (!group || !data.readableShareGroups.has(group.id)) return [];
        return [{ group_id: group.id, group_name: group.name, group_full_path: group.full_path, group_access_level: share.group_access }];
      }),
      only_allow_merge_if_pipeline_succeeds: project.only_allow_merge_if_pipeline_succeeds,
      request_access_enabled: project.request_access_enabled,
      only_allow_merge_if_all_discussions_are_resolved: project.only_allow_merge_if_all_discussions_are_resolved,
      printing_merge_requests_link_enabled: project.printing_merge_requests_link_enabled,
      merge_method: 'merge',
    });
    if (actor) json.permissions = this.permissionsJson(project, data.access);
    if (this.mayReadRunnersToken(project, actor, data.access)) json.runners_token = project.runners_token;
    return json;
  }

  private permissionsJson(project: ProjectRecord, access: ActorProjectAccess): Json {
    const member = access.projectMembers.get(project.id);
    const groupLevel = access.namespaceLevels.get(project.namespace_id);
    return {
      project_access: member ? { access_level: member.access_level, notification_level: member.notification_level } : null,
      group_access: groupLevel === undefined ? null : { access_level: groupLevel, notification_level: 3 },
    };
  }

  private mayReadRunnersToken(project: ProjectRecord, actor: Actor, access: ActorProjectAccess): boolean {
    if (!actor) return false;
    if (actor.is_admin) return true;
    const levels: AccessLevel[] = [access.projectMembers.get(project.id)?.access_level, access.namespaceLevels.get(project.namespace_id)].filter(
      (level): level is AccessLevel => level !== undefined,
    );
    return levels.some((level) => level >= MAINTAINER);
  }

  private async statistics(project: ProjectRecord): Promise<Json> {
    const { repositories } = this.context;
    let commitCount = 0;
    let repositorySize = 0;
    if (await repositories.exists(project.id)) {
      const repository = repositories.open(project.id);
      repositorySize = await repository.sizeInBytes();
      if (!(await repository.isEmpty())) commitCount = await repository.countCommits({});
    }
    return {
      commit_count: commitCount,
      storage_size: repositorySize,
      repository_size: repositorySize,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
    };
  }
}
