import type { HookRecord, HooksStore } from '../../../storage/types-hooks.ts';
import type { MembersStore, NamespaceRecord, ProjectRecord, UserRecord, UsersStore, NamespacesStore } from '../../../storage/types.ts';
import type { SystemEvent } from '../events.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';
import { TRIGGERS, type HookTrigger } from './hook-payloads.ts';
import { executable } from './hook-state.ts';
import { groupMemberHookData, subgroupHookData, systemEventData } from './system-hook-data.ts';

const OWNER = 50;

export interface SystemEventHooksDeps {
  hooks: Pick<HooksStore, 'listSystem' | 'listForGroups'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  members: Pick<MembersStore, 'listForSource'>;
  users: Pick<UsersStore, 'findById' | 'findByIds'>;
}

export type QueuePayload = (hooks: readonly HookRecord[], trigger: HookTrigger, payload: Record<string, unknown>) => Promise<void>;

/**
 * Where a system event goes: every enabled system hook (with the project's owners filled in
 * for project events, and the personal project's owner joining it, as GitLab's project
 * creation adds the owner as a member), and the group hooks of the group and of its ancestors
 * for group membership changes (`member_events`) and subgroups created or deleted under them
 * (`subgroup_events`), as GitLab's group hooks have them.
 */
export class SystemEventHooks {
  constructor(private readonly deps: SystemEventHooksDeps) {}

  async record(event: SystemEvent, now: number, queue: QueuePayload): Promise<void> {
    await this.toSystemHooks(event, now, queue);
    await this.toGroupHooks(event, now, queue);
  }

  private async toSystemHooks(event: SystemEvent, now: number, queue: QueuePayload): Promise<void> {
    const hooks = (await this.deps.hooks.listSystem(null)).filter((hook) => executable(hook, now));
    if (hooks.length === 0) return;
    const at = new Date(now).toISOString();
    if (!('project' in event)) {
      await queue(hooks, TRIGGERS.system, systemEventData(event, '', at, []));
      return;
    }
    const namespace = await this.deps.namespaces.findById(event.project.namespace_id);
    const path = projectFullPathIn(namespace, event.project);
    const owners = event.name.startsWith('project_') ? await this.owners(namespace) : [];
    await queue(hooks, TRIGGERS.system, systemEventData(event, path, at, owners));
    const [owner] = owners;
    if (event.name === 'project_create' && namespace?.kind === 'user' && owner) {
      await queue(hooks, TRIGGERS.system, systemEventData(creatorJoined(event.project, owner), path, at, []));
    }
  }

  private async toGroupHooks(event: SystemEvent, now: number, queue: QueuePayload): Promise<void> {
    const at = new Date(now).toISOString();
    if (event.name === 'user_add_to_group' || event.name === 'user_remove_from_group' || event.name === 'user_update_for_group') {
      const hooks = await this.groupHooks(event.group.id, 'member_events', now);
      if (hooks.length > 0) await queue(hooks, TRIGGERS.member, groupMemberHookData(event, at));
    } else if ((event.name === 'group_create' || event.name === 'group_destroy') && event.group.parent_id !== null) {
      const hooks = await this.groupHooks(event.group.parent_id, 'subgroup_events', now);
      const parent = hooks.length > 0 ? await this.deps.namespaces.findById(event.group.parent_id) : undefined;
      if (parent) await queue(hooks, TRIGGERS.subgroup, subgroupHookData(event.name === 'group_create' ? 'subgroup_create' : 'subgroup_destroy', event.group, parent, at));
    }
  }

  /** The enabled hooks with `flag` of the group and of the groups above it. */
  private async groupHooks(groupId: number, flag: 'member_events' | 'subgroup_events', now: number): Promise<HookRecord[]> {
    const ids = [groupId, ...(await this.deps.namespaces.ancestors(groupId)).map((group) => group.id)];
    return (await this.deps.hooks.listForGroups(ids, flag)).filter((hook) => executable(hook, now));
  }

  /**
   * GitLab's project owners: the user of a personal namespace; the direct Owners of the
   * project's group (the nearest group above it that has some), in the order they joined.
   */
  private async owners(namespace: NamespaceRecord | undefined): Promise<UserRecord[]> {
    if (!namespace) return [];
    if (namespace.kind === 'user') {
      const user = namespace.owner_id === null ? undefined : await this.deps.users.findById(namespace.owner_id);
      return user ? [user] : [];
    }
    for (const group of [namespace, ...(await this.deps.namespaces.ancestors(namespace.id))]) {
      const ownerIds = (await this.deps.members.listForSource('namespace', group.id)).filter((member) => member.access_level === OWNER).map((member) => member.user_id);
      if (ownerIds.length === 0) continue;
      const users = new Map((await this.deps.users.findByIds(ownerIds)).map((user) => [user.id, user]));
      return ownerIds.flatMap((id) => users.get(id) ?? []);
    }
    return [];
  }
}

/** The personal project's owner as its first member (GitLab's `add_owner` on creation). */
function creatorJoined(project: ProjectRecord, owner: UserRecord): SystemEvent {
  return { name: 'user_add_to_team', project, user: owner, accessLevel: OWNER };
}
