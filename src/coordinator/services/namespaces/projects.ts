import type { PackageFileBlobs } from '../../../storage/types-packages.ts';
import { randomBytes } from 'node:crypto';
import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { DefaultBranchOnCreation } from '../repository/default-branch.ts';
import type { RepositoryManager, StagedRepository } from '../../../storage/git/types.ts';
import type { CustomAttributesStore, MembersStore, NamespaceRecord, NamespacesStore, NewProject, ProjectChanges, ProjectRecord, ProjectsStore, UserRecord, Visibility } from '../../../storage/types.ts';
import type { ProjectQueriesStore } from '../../../storage/types-projects.ts';
import type { CoordinatorEvents } from '../events.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { nameAndPathErrors, projectChanges, pathFromName, type ProjectAttributesInput } from './project-attributes.ts';
import type { SettingsService } from '../instance/settings.ts';
import { forkVisibility, projectVisibilityRefusals, restrictedVisibilityRefusal } from '../access/visibility-rules.ts';
import type { AvatarFiles } from '../accounts/avatars.ts';
import { projectFullPathIn } from './project-full-path.ts';

export interface ProjectCreateRequest {
  name?: string;
  path?: string;
  /** Namespace id or full path; the creator's own namespace when absent. */
  namespace?: string;
  initializeWithReadme: boolean;
  defaultBranch?: string;
  attributes: ProjectAttributesInput;
}

export interface ProjectUpdateRequest {
  name?: string;
  path?: string;
  defaultBranch?: string;
  attributes: ProjectAttributesInput;
}

export interface ProjectForkRequest {
  /** Namespace id or full path; the caller's own namespace when absent. */
  namespace?: string;
  name?: string;
  path?: string;
  visibility?: Visibility;
}

export interface ProjectsServiceDeps {
  projects: Pick<ProjectsStore, 'create' | 'update' | 'delete' | 'findById' | 'findByNamespaceAndPath'>;
  projectQueries: Pick<ProjectQueriesStore, 'findByNamespaceAndName' | 'countInNamespace'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'findUserNamespace'>;
  members: Pick<MembersStore, 'removeAllForSource'>;
  customAttributes: Pick<CustomAttributesStore, 'deleteAllFor'>;
  repositories: Pick<RepositoryManager, 'stage' | 'stageFork' | 'exists' | 'open' | 'remove'>;
  events: Pick<CoordinatorEvents, 'publishProjectDeleted' | 'publishSystemEvent'>;
  settings: Pick<SettingsService, 'values' | 'isVisibilityRestricted'>;
  lookup: Pick<Lookup, 'findNamespace'>;
  permissions: Pick<Permissions, 'canForkProject' | 'projectCreationIn' | 'hasProjectLimit' | 'usesRestrictedVisibilities'>;
  /** This coordinator process (services/instance/instances.ts): the owner of the pending_delete marks it sets. */
  instanceId: string;
  /** Removes a deleted project's avatar files (after its row). */
  avatarFiles?: Pick<AvatarFiles, 'removeFor'>;
  /** Removes a deleted project's package files (after its rows). */
  packageFiles?: Pick<PackageFileBlobs, 'removeForProjects'>;
  /** Protects the default branch of a project made with a first commit (a README, a fork). */
  defaultBranch: Pick<DefaultBranchOnCreation, 'recordCreated'>;
}

const RUNNERS_TOKEN_PREFIX = 'GR1348941';

/** Creating, editing, forking and deleting projects with their repositories. */
export class ProjectsService {
  constructor(private readonly deps: ProjectsServiceDeps) {}

  async create(actor: UserRecord, owner: UserRecord, request: ProjectCreateRequest): Promise<ProjectRecord> {
    const namespace = request.namespace === undefined ? await this.personalNamespace(owner) : await this.targetNamespace(request.namespace, actor);
    const name = request.name ?? request.path ?? '';
    const path = request.path ?? pathFromName(name);
    const errors = nameAndPathErrors(name, path);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const attributes = projectChanges(request.attributes);
    const visibility = attributes.visibility ?? (await this.deps.settings.values()).default_project_visibility;
    await this.checkVisibility(actor, visibility, namespace);
    await this.checkLimit(owner, namespace);
    await this.checkNameAndPathFree(namespace.id, name, path);

    // The repository is built first under a temporary name; the row is inserted marked
    // pending_delete by this instance (invisible, and removed by reconciliation once this
    // instance is gone), the repository renamed into place, then the mark cleared: a crash
    // leaves nothing or a whole project.
    const staged = await this.deps.repositories.stage({
      initializeWithReadme: request.initializeWithReadme,
      defaultBranch: request.defaultBranch ?? 'main',
      projectName: name,
      author: { name: actor.name, email: actor.email },
    });
    const now = new Date().toISOString();
    let project: ProjectRecord;
    try {
      project = await this.insertProject({
        namespace_id: namespace.id, creator_id: actor.id, name, path, description: '', default_branch: staged.defaultBranch, visibility,
        archived: false, issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true,
        snippets_enabled: true, container_registry_enabled: true, resolve_outdated_diff_discussions: false,
        shared_runners_enabled: true, public_jobs: true, request_access_enabled: true,
        only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false,
        printing_merge_requests_link_enabled: true, lfs_enabled: true, tag_list: [], forked_from_id: null,
        runners_token: newRunnersToken(), import_status: 'none', import_error: null, avatar_url: null, ci_config_path: null,
        created_at: now, updated_at: now, last_activity_at: now,
        ...attributes,
        pending_delete: true,
        pending_instance_id: this.deps.instanceId,
      });
    } catch (error) {
      await staged.discard();
      throw error;
    }
    return this.publish(project, staged, owner);
  }

  async fork(source: ProjectRecord, actor: UserRecord, request: ProjectForkRequest): Promise<ProjectRecord> {
    if (!(await this.deps.permissions.canForkProject(source, actor))) throw accessDenied();
    const namespace = request.namespace === undefined ? await this.personalNamespace(actor) : await this.targetNamespace(request.namespace, actor);
    const name = request.name ?? source.name;
    const path = request.path ?? source.path;
    const errors = nameAndPathErrors(name, path);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    await this.checkLimit(actor, namespace);
    await this.checkNameAndPathFree(namespace.id, name, path);
    const visibility = forkVisibility(source, namespace, request.visibility);
    const now = new Date().toISOString();
    const { id: _sourceId, ...copied } = source;
    const author = { name: actor.name, email: actor.email };
    const staged = (await this.deps.repositories.exists(source.id))
      ? await this.deps.repositories.stageFork(source.id)
      : await this.deps.repositories.stage({ initializeWithReadme: false, defaultBranch: 'main', projectName: name, author });
    let fork: ProjectRecord;
    try {
      fork = await this.insertProject({
        ...copied, namespace_id: namespace.id, creator_id: actor.id, name, path, visibility, archived: false,
        default_branch: staged.defaultBranch, forked_from_id: source.id, runners_token: newRunnersToken(), pending_delete: true,
        pending_instance_id: this.deps.instanceId, created_at: now, updated_at: now, last_activity_at: now,
      });
    } catch (error) {
      await staged.discard();
      throw error;
    }
    return this.publish(fork, staged, actor);
  }

  /** Moves a staged repository into place for a row inserted pending, then makes the row visible. */
  private async publish(project: ProjectRecord, staged: StagedRepository, owner: UserRecord): Promise<ProjectRecord> {
    try {
      await staged.publish(project.id);
    } catch (error) {
      await this.deps.projects.delete(project.id);
      throw error;
    }
    const visible = { pending_delete: false, pending_instance_id: null };
    const published = (await this.deps.projects.update(project.id, visible)) ?? { ...project, ...visible };
    await this.deps.defaultBranch.recordCreated(published);
    await this.deps.events.publishSystemEvent({ name: 'project_create', project: published, creator: owner });
    return published;
  }

  /** `PUT /projects/:id`: name, path, default branch, visibility and the other attributes. */
  async update(project: ProjectRecord, actor: UserRecord, request: ProjectUpdateRequest): Promise<ProjectRecord> {
    const { name, path, defaultBranch } = request;
    const errors = nameAndPathErrors(name, path);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const changes: ProjectChanges = projectChanges(request.attributes);
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    if (!namespace) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    if (changes.visibility !== undefined && changes.visibility !== project.visibility) {
      const forkSource = project.forked_from_id === null ? null : await this.deps.projects.findById(project.forked_from_id);
      await this.checkVisibility(actor, changes.visibility, namespace, forkSource);
    }
    if (name !== undefined || path !== undefined) {
      await this.checkNameAndPathFree(namespace.id, name ?? project.name, path ?? project.path, project.id);
      if (name !== undefined) changes.name = name;
      if (path !== undefined) changes.path = path;
    }
    if (defaultBranch !== undefined && defaultBranch !== project.default_branch) {
      const repository = this.deps.repositories.open(project.id);
      if (!(await repository.isEmpty()) && !(await repository.branch(defaultBranch))) {
        throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND', `Could not change HEAD: branch '${defaultBranch}' does not exist`);
      }
      await repository.setDefaultBranch(defaultBranch);
      changes.default_branch = (await repository.isEmpty()) ? project.default_branch : defaultBranch;
    }
    changes.updated_at = new Date().toISOString();
    let updated: ProjectRecord;
    try {
      updated = (await this.deps.projects.update(project.id, changes)) ?? project;
    } catch (error) {
      // A concurrent rename took the path between the check above and this update.
      if (isUniqueViolation(error)) throw pathTaken({ path: ['has already been taken'] });
      throw error;
    }
    if (updated.path !== project.path) {
      await this.deps.events.publishSystemEvent({ name: 'project_rename', project: updated, oldPathWithNamespace: projectFullPathIn(namespace, project) });
    }
    return updated;
  }

  async setArchived(project: ProjectRecord, archived: boolean): Promise<ProjectRecord> {
    return (await this.deps.projects.update(project.id, { archived, updated_at: new Date().toISOString() })) ?? project;
  }

  /** Deletes the project, its memberships, attributes and repository, then tells listeners. */
  async remove(project: ProjectRecord): Promise<void> {
    const { projects, repositories, members, customAttributes, events } = this.deps;
    // Marked first and the row deleted last: after a crash at any point the row is still
    // there, marked, and reconciliation finishes the deletion once this instance is gone.
    await projects.update(project.id, { pending_delete: true, pending_instance_id: this.deps.instanceId });
    await repositories.remove(project.id);
    await members.removeAllForSource('project', project.id);
    await customAttributes.deleteAllFor('project', project.id);
    await projects.delete(project.id);
    await this.deps.avatarFiles?.removeFor('project', [project.id]);
    await this.deps.packageFiles?.removeForProjects([project.id]);
    events.publishProjectDeleted({ project_id: project.id });
    await events.publishSystemEvent({ name: 'project_destroy', project });
  }

  /** Sets default_branch and last activity after a push, so `default_branch` follows the repository. */
  async recordPush(projectId: number): Promise<void> {
    const project = await this.deps.projects.findById(projectId);
    if (!project) return;
    const changes: ProjectChanges = { last_activity_at: new Date().toISOString() };
    const current = await this.deps.repositories.open(projectId).defaultBranch();
    if (current !== project.default_branch) changes.default_branch = current;
    await this.deps.projects.update(projectId, changes);
  }

  /** Inserts the row; a concurrent creation of the same path gets the same refusal as a pre-checked clash. */
  private async insertProject(record: NewProject): Promise<ProjectRecord> {
    try {
      return await this.deps.projects.create(record);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.checkNameAndPathFree(record.namespace_id, record.name, record.path);
      throw pathTaken({ path: ['has already been taken'] });
    }
  }

  async checkNameAndPathFree(namespaceId: number, name: string, path: string, exceptId?: number): Promise<void> {
    const { projects, projectQueries } = this.deps;
    const errors: Record<string, string[]> = {};
    const byName = await projectQueries.findByNamespaceAndName(namespaceId, name);
    if (byName && byName.id !== exceptId) errors.name = ['has already been taken'];
    const byPath = await projects.findByNamespaceAndPath(namespaceId, path);
    if (byPath && byPath.id !== exceptId) errors.path = ['has already been taken'];
    if (Object.keys(errors).length > 0) throw pathTaken(errors);
  }

  /** GANTRY_E_VALIDATION_FAILED on `visibility_level` when the level is restricted or more open than the namespace or fork source. */
  async checkVisibility(actor: UserRecord, visibility: Visibility, namespace: NamespaceRecord, forkSource?: ProjectRecord | null): Promise<void> {
    const restricted = await restrictedVisibilityRefusal(this.deps, actor, visibility);
    if (restricted) throw validationFailed({ visibility_level: [restricted] });
    const refusals = projectVisibilityRefusals(visibility, { namespace, forkSource });
    if (refusals.length > 0) throw validationFailed({ visibility_level: refusals });
  }

  private async checkLimit(owner: UserRecord, namespace: NamespaceRecord): Promise<void> {
    if (namespace.kind !== 'user' || !this.deps.permissions.hasProjectLimit(owner)) return;
    if (owner.projects_limit === 0) {
      throw validationFailed({ limit_reached: ['Personal project creation is not allowed. Please contact your administrator with questions'] });
    }
    if ((await this.deps.projectQueries.countInNamespace(namespace.id)) >= owner.projects_limit) {
      throw validationFailed({ limit_reached: [`Your project limit is ${owner.projects_limit} projects! Please contact your administrator to increase it`] });
    }
  }

  private async personalNamespace(user: UserRecord): Promise<NamespaceRecord> {
    const namespace = await this.deps.namespaces.findUserNamespace(user.id);
    if (!namespace) throw new GantryError('GANTRY_E_NAMESPACE_NOT_FOUND');
    return namespace;
  }

  /** A namespace the actor may create projects in (the permission module's rule). */
  private async targetNamespace(reference: string, actor: UserRecord): Promise<NamespaceRecord> {
    const namespace = await this.deps.lookup.findNamespace(reference);
    const right = namespace ? await this.deps.permissions.projectCreationIn(namespace, actor) : 'hidden';
    if (!namespace || right === 'hidden') throw new GantryError('GANTRY_E_NAMESPACE_NOT_FOUND');
    if (right === 'denied') throw accessDenied();
    return namespace;
  }
}

/** The name or path is another project's in the namespace (a fork's route answers it as a conflict). */
function pathTaken(fields: Record<string, string[]>): GantryError {
  return new GantryError('GANTRY_E_PROJECT_PATH_TAKEN', `${Object.keys(fields).join(' and ')} already taken in the namespace`, { fields });
}

function newRunnersToken(): string {
  return `${RUNNERS_TOKEN_PREFIX}${randomBytes(15).toString('base64url')}`;
}
