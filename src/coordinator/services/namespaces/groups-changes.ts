import type { CoordinatorEvents } from '../events.ts';
import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type {
  CustomAttributesStore,
  MembersStore,
  NamespaceChanges,
  NamespaceRecord,
  NamespacesStore,
  ProjectsStore,
  UserRecord,
  Visibility,
} from '../../../storage/types.ts';
import type { GroupDetails, GroupsService } from './groups.ts';
import { checkDescription, checkGroupName, checkGroupPath, FieldErrors } from './groups-validation.ts';
import type { Lookup } from '../access/lookup.ts';
import { OWNER, type Permissions } from '../access/permissions.ts';
import type { ProjectTransfer } from './project-transfer.ts';
import type { ProjectsService } from './projects.ts';
import type { SettingsService } from '../instance/settings.ts';
import { defaultGroupVisibility, groupVisibilityRefusals, restrictedVisibilityRefusal, type GroupPlace } from '../access/visibility-rules.ts';
import type { AvatarFiles } from '../accounts/avatars.ts';

export interface GroupAttributes {
  name?: string;
  path?: string;
  description?: string;
  visibility?: Visibility;
  lfs_enabled?: boolean;
  request_access_enabled?: boolean;
}

export type NewGroupInput = GroupAttributes & { name: string; path: string; parent_id?: number };

/** Told about each project removed with its group (repositories, artifacts). */
export interface GroupChangesServiceDeps {
  namespaces: Pick<NamespacesStore, 'create' | 'update' | 'findById' | 'findByFullPath' | 'children' | 'refreshPaths' | 'descendantIds' | 'delete'>;
  projects: Pick<ProjectsStore, 'listByNamespaces' | 'findByNamespaceAndPath'>;
  members: Pick<MembersStore, 'add' | 'removeAllForSource'>;
  customAttributes: Pick<CustomAttributesStore, 'deleteAllFor'>;
  lookup: Pick<Lookup, 'findGroup' | 'findProject'>;
  permissions: Pick<Permissions, 'canCreateGroup' | 'canAdminGroup' | 'isAdministrator' | 'usesRestrictedVisibilities'>;
  settings: Pick<SettingsService, 'values' | 'isVisibilityRestricted'>;
  groups: Pick<GroupsService, 'readable' | 'details'>;
  /** Moves a project into a group (the projects area's rules). */
  transfer: Pick<ProjectTransfer, 'refusal' | 'move'>;
  /** Deletes one project whole (repository, memberships, attributes, avatar, events), as `DELETE /projects/:id` does. */
  projectRemoval: Pick<ProjectsService, 'remove'>;
  /** Removes the avatar files of the groups and projects removed (after their rows). */
  avatarFiles?: Pick<AvatarFiles, 'removeFor'>;
  /** System hooks' `group_create` / `group_destroy`. */
  events?: Pick<CoordinatorEvents, 'publishSystemEvent'>;
}

/** Creating, changing and removing groups, and moving projects into them. */
export class GroupChangesService {
  constructor(private readonly deps: GroupChangesServiceDeps) {}

  async create(actor: UserRecord, input: NewGroupInput): Promise<NamespaceRecord> {
    const { permissions, groups, settings, namespaces, members } = this.deps;
    let parent: NamespaceRecord | undefined;
    if (input.parent_id !== undefined) {
      parent = await groups.readable(input.parent_id, actor);
      if (!(await permissions.canAdminGroup(parent, actor))) throw accessDenied();
    } else if (!permissions.canCreateGroup(actor)) {
      throw accessDenied();
    }

    const visibility = input.visibility ?? defaultGroupVisibility((await settings.values()).default_group_visibility, parent);
    const errors = new FieldErrors();
    checkGroupName(input.name, errors);
    checkGroupPath(input.path, parent === undefined, errors);
    checkDescription(input.description ?? '', errors);
    await this.checkVisibilityAllowed(actor, visibility, { parent }, errors);
    await this.checkPathFree(input.path, parent, undefined, errors);
    errors.throwIfAny();

    const now = new Date().toISOString();
    let group: NamespaceRecord;
    try {
      group = await namespaces.create({
        kind: 'group',
        name: input.name,
        path: input.path,
        full_path: parent ? `${parent.full_path}/${input.path}` : input.path,
        full_name: parent ? `${parent.full_name} / ${input.name}` : input.name,
        parent_id: parent?.id ?? null,
        owner_id: null,
        description: input.description ?? '',
        visibility,
        lfs_enabled: input.lfs_enabled ?? true,
        request_access_enabled: input.request_access_enabled ?? false,
        avatar_url: null,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed({ path: ['has already been taken'] });
      throw error;
    }
    await members.add({
      source_type: 'namespace',
      source_id: group.id,
      user_id: actor.id,
      access_level: OWNER,
      notification_level: 3,
      expires_at: null,
      created_by_id: actor.id,
      created_at: now,
      updated_at: now,
    });
    await this.deps.events?.publishSystemEvent({ name: 'group_create', group });
    return group;
  }

  /** `PUT /groups/:id`: answers the changed group's details. */
  async update(ref: string, actor: UserRecord, changes: GroupAttributes): Promise<GroupDetails> {
    const { permissions, namespaces, projects, groups } = this.deps;
    const group = await groups.readable(ref, actor);
    if (!(await permissions.canAdminGroup(group, actor))) throw accessDenied();
    const parent = group.parent_id === null ? undefined : await namespaces.findById(group.parent_id);
    const errors = new FieldErrors();
    if (changes.name !== undefined) checkGroupName(changes.name, errors);
    if (changes.path !== undefined && changes.path !== group.path) {
      checkGroupPath(changes.path, parent === undefined, errors);
      await this.checkPathFree(changes.path, parent, group.id, errors);
    }
    if (changes.description !== undefined) checkDescription(changes.description, errors);
    if (changes.visibility !== undefined && changes.visibility !== group.visibility) {
      const subgroups = await namespaces.children(group.id);
      const inGroup = await projects.listByNamespaces([group.id]);
      const place = { parent, subgroups, projectVisibilities: inGroup.map((project) => project.visibility) };
      await this.checkVisibilityAllowed(actor, changes.visibility, place, errors);
    }
    errors.throwIfAny();

    const update: NamespaceChanges = { ...changes, updated_at: new Date().toISOString() };
    // The group's own full path changes in the same statement, so its unique index refuses a
    // path a concurrent rename took; subgroups follow in refreshPaths.
    const name = changes.name ?? group.name;
    const path = changes.path ?? group.path;
    update.full_path = parent ? `${parent.full_path}/${path}` : path;
    update.full_name = parent ? `${parent.full_name} / ${name}` : name;
    let updated: NamespaceRecord | undefined;
    try {
      updated = await namespaces.update(group.id, update);
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed({ path: ['has already been taken'] });
      throw error;
    }
    if (!updated) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    if (changes.name !== undefined || changes.path !== undefined) {
      await namespaces.refreshPaths(group.id);
      updated = (await namespaces.findById(group.id)) ?? updated;
    }
    // GitLab's group_rename follows a change of the path only (not of the name, nor a transfer).
    if (updated.path !== group.path) await this.deps.events?.publishSystemEvent({ name: 'group_rename', group: updated, oldPath: group.path, oldFullPath: group.full_path });
    return groups.details(updated, actor);
  }

  /** Removes the group, its subgroups and every project in them (each as `DELETE /projects/:id` removes one), with their members and attributes. */
  async remove(ref: string, actor: UserRecord): Promise<void> {
    const { permissions, namespaces, projects, members, customAttributes, groups } = this.deps;
    const group = await groups.readable(ref, actor);
    if (!(await permissions.canAdminGroup(group, actor))) throw accessDenied();
    const groupIds = [group.id, ...(await namespaces.descendantIds(group.id))];
    const removedProjects = await projects.listByNamespaces(groupIds);
    for (const project of removedProjects) await this.deps.projectRemoval.remove(project);
    for (const id of groupIds) {
      await members.removeAllForSource('namespace', id);
      await customAttributes.deleteAllFor('group', id);
    }
    // Subgroups go with their parent (ON DELETE CASCADE).
    await namespaces.delete(group.id);
    await this.deps.avatarFiles?.removeFor('group', groupIds);
    await this.deps.events?.publishSystemEvent({ name: 'group_destroy', group });
  }

  /**
   * `POST /groups/:id/projects/:project_id` (administrators): moves a project into the group's
   * namespace, a project more open than the group narrowed to it; answers the group's details.
   */
  async transferProject(actor: UserRecord, groupRef: string, projectRef: string): Promise<GroupDetails> {
    const { permissions, lookup, transfer, groups } = this.deps;
    if (!permissions.isAdministrator(actor)) throw accessDenied();
    const group = await lookup.findGroup(groupRef);
    if (!group) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
    const project = await lookup.findProject(projectRef);
    if (!project || project.pending_delete) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    const refusal = await transfer.refusal(project, group);
    if (refusal) throw new GantryError('GANTRY_E_TRANSFER_REFUSED', refusal, { reason: refusal });
    await transfer.move(project, group);
    return groups.details(group, actor);
  }

  private async checkVisibilityAllowed(actor: UserRecord, visibility: Visibility, place: GroupPlace, errors: FieldErrors): Promise<void> {
    const restricted = await restrictedVisibilityRefusal(this.deps, actor, visibility);
    if (restricted) errors.add('visibility_level', restricted);
    for (const refusal of groupVisibilityRefusals(visibility, place)) errors.add('visibility_level', refusal);
  }

  /** A path is taken by another namespace with the same full path or a project of the same parent. */
  private async checkPathFree(path: string, parent: NamespaceRecord | undefined, selfId: number | undefined, errors: FieldErrors): Promise<void> {
    const { namespaces, projects } = this.deps;
    const fullPath = parent ? `${parent.full_path}/${path}` : path;
    const existing = await namespaces.findByFullPath(fullPath);
    const projectClash = parent ? await projects.findByNamespaceAndPath(parent.id, path) : undefined;
    if ((existing && existing.id !== selfId) || projectClash) errors.add('path', 'has already been taken');
  }
}
