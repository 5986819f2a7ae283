import type { NamespaceRecord, UserRecord } from '../../../storage/types.ts';
import type { PushEvent, SystemEvent } from '../events.ts';
import { accessLevelName as accessName } from '../access/access-level-names.ts';
import { projectHookData, type HookProject } from './hook-data-common.ts';

/** The `X-Gitlab-Event` of every system hook request, whatever the event. */
export const SYSTEM_HOOK_HEADER = 'System Hook';

const VISIBILITY_NAMES = { private: 'private', internal: 'internal', public: 'public' } as const;

/**
 * GitLab's system hook payload of the event (its SystemHooksService#build_event_data);
 * `pathWithNamespace` is the project's `namespace/path` for project and team events, `owners`
 * the project's owners for project events (GitLab's ProjectBuilder: the first one is `owner_*`).
 */
export function systemEventData(event: SystemEvent, pathWithNamespace: string, now: string, owners: readonly UserRecord[]): Record<string, unknown> {
  const base = { event_name: event.name, created_at: now, updated_at: now };
  switch (event.name) {
    case 'project_create':
    case 'project_destroy':
    case 'project_rename':
    case 'project_transfer': {
      const { project } = event;
      const [owner] = owners;
      return {
        ...base,
        created_at: project.created_at,
        name: project.name,
        path: project.path,
        path_with_namespace: pathWithNamespace,
        project_id: project.id,
        project_namespace_id: project.namespace_id,
        owner_name: owner?.name ?? null,
        owner_email: owner ? '[REDACTED]' : null,
        owners: owners.map((user) => ({ name: user.name, email: '[REDACTED]' })),
        project_visibility: VISIBILITY_NAMES[project.visibility],
        ...('oldPathWithNamespace' in event ? { old_path_with_namespace: event.oldPathWithNamespace } : {}),
      };
    }
    case 'user_create':
    case 'user_destroy':
    case 'user_rename':
      return {
        ...base,
        created_at: event.user.created_at,
        email: event.user.email,
        name: event.user.name,
        username: event.user.username,
        user_id: event.user.id,
        ...(event.name === 'user_rename' ? { old_username: event.oldUsername } : {}),
      };
    case 'group_create':
    case 'group_destroy':
    case 'group_rename':
      return {
        ...base, created_at: event.group.created_at, name: event.group.name, path: event.group.path, full_path: event.group.full_path, group_id: event.group.id, owner_name: null, owner_email: null,
        ...(event.name === 'group_rename' ? { old_path: event.oldPath, old_full_path: event.oldFullPath } : {}),
      };
    case 'key_create':
    case 'key_destroy':
      return { ...base, created_at: event.key.created_at, id: event.key.id, key: event.key.key, username: event.user.username };
    case 'user_add_to_team':
    case 'user_update_for_team':
    case 'user_remove_from_team': {
      const { project } = event;
      return {
        ...base,
        access_level: accessName(event.accessLevel),
        project_id: project.id,
        project_name: project.name,
        project_path: project.path,
        project_path_with_namespace: pathWithNamespace,
        project_visibility: VISIBILITY_NAMES[project.visibility],
        user_email: event.user.email,
        user_name: event.user.name,
        user_username: event.user.username,
        user_id: event.user.id,
      };
    }
    case 'user_add_to_group':
    case 'user_update_for_group':
    case 'user_remove_from_group':
      return { ...base, ...groupMemberFields(event), full_path: event.group.full_path };
  }
}

type GroupMemberEvent = Extract<SystemEvent, { group: NamespaceRecord; user: UserRecord }>;

function groupMemberFields(event: GroupMemberEvent) {
  return {
    group_access: accessName(event.accessLevel),
    group_id: event.group.id,
    group_name: event.group.name,
    group_path: event.group.path,
    user_email: event.user.email,
    user_name: event.user.name,
    user_username: event.user.username,
    user_id: event.user.id,
  };
}

/** A group hook's member event (GitLab's GroupMemberBuilder; `X-Gitlab-Event: Member Hook`). */
export function groupMemberHookData(event: GroupMemberEvent, now: string): Record<string, unknown> {
  return { created_at: now, updated_at: now, ...groupMemberFields(event), group_plan: null, expires_at: event.expiresAt ?? null, event_name: event.name };
}

/** A group hook's subgroup event, to the parent's hooks (GitLab's GroupBuilder; `X-Gitlab-Event: Subgroup Hook`). */
export function subgroupHookData(name: 'subgroup_create' | 'subgroup_destroy', group: NamespaceRecord, parent: NamespaceRecord, now: string): Record<string, unknown> {
  return {
    created_at: group.created_at,
    updated_at: now,
    event_name: name,
    name: group.name,
    path: group.path,
    full_path: group.full_path,
    group_id: group.id,
    parent_group_id: parent.id,
    parent_name: parent.name,
    parent_path: parent.path,
    parent_full_path: parent.full_path,
  };
}

/** GitLab's `repository_update` system event of one push: every ref it updated. */
export function repositoryUpdateData(target: HookProject, user: UserRecord | undefined, pushes: PushEvent[]): Record<string, unknown> {
  return {
    event_name: 'repository_update',
    user_id: user?.id ?? null,
    user_name: user?.name ?? null,
    user_email: user ? '[REDACTED]' : null,
    user_avatar: user?.avatar_url ?? null,
    project_id: target.project.id,
    project: projectHookData(target),
    changes: pushes.map((push) => ({ before: push.before, after: push.after, ref: push.ref })),
    refs: pushes.map((push) => push.ref),
  };
}
