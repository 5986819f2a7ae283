import { accessDenied, GantryError, missingParam } from '../../../shared/errors.ts';
import type { HookDeliveriesStore, HookLogRecord, HookRecord, HooksStore } from '../../../storage/types-hooks.ts';
import type { NamespaceRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import { hookSettings, localRequestsAllowed, type HookParams } from './hook-settings.ts';

export interface GroupHooksDeps {
  hooks: HooksStore;
  deliveries: Pick<HookDeliveriesStore, 'logs'>;
  lookup: Pick<Lookup, 'readableGroup'>;
  permissions: Pick<Permissions, 'canManageGroupHooks'>;
  settings: Pick<SettingsService, 'values'>;
  clock?: () => number;
}

/**
 * `/groups/:id/hooks`: a group's Owners list, add, edit and delete its webhooks, which hear the
 * events of every project under the group, subgroups included (GitLab Premium's group hooks).
 */
export class GroupHooksService {
  constructor(private readonly deps: GroupHooksDeps) {}

  async list(groupRef: string, actor: UserRecord, page: { limit: number; offset: number }): Promise<{ hooks: HookRecord[]; total: number }> {
    const group = await this.group(groupRef, actor);
    return this.deps.hooks.list({ kind: 'group', id: group.id }, page);
  }

  async get(groupRef: string, actor: UserRecord, hookId: number): Promise<HookRecord> {
    return this.hook(await this.group(groupRef, actor), hookId);
  }

  async create(groupRef: string, actor: UserRecord, params: HookParams): Promise<HookRecord> {
    const group = await this.group(groupRef, actor);
    if (params.url === undefined || params.url.trim() === '') throw missingParam('url');
    const settings = await hookSettings(undefined, params, await localRequestsAllowed(this.deps.settings, 'group'), true);
    return this.deps.hooks.create({ kind: 'group', id: group.id }, settings, new Date((this.deps.clock ?? Date.now)()).toISOString());
  }

  /** Saves the given parameters; an edit re-enables a disabled hook. */
  async update(groupRef: string, actor: UserRecord, hookId: number, params: HookParams): Promise<HookRecord> {
    const existing = await this.hook(await this.group(groupRef, actor), hookId);
    const updated = await this.deps.hooks.update(existing.id, await hookSettings(existing, params, await localRequestsAllowed(this.deps.settings, 'group'), true));
    if (!updated) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return updated;
  }

  async remove(groupRef: string, actor: UserRecord, hookId: number): Promise<void> {
    const group = await this.group(groupRef, actor);
    if (!(await this.deps.hooks.remove({ kind: 'group', id: group.id }, hookId))) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
  }

  async events(
    groupRef: string,
    actor: UserRecord,
    hookId: number,
    filter: { status?: 'successful' | 'client_failure' | 'server_failure' },
    page: { limit: number; offset: number },
  ): Promise<{ logs: HookLogRecord[]; total: number }> {
    const hook = await this.hook(await this.group(groupRef, actor), hookId);
    return this.deps.deliveries.logs(hook.id, filter, page);
  }

  /** The group and its hook, for an Owner (a test call). */
  async managed(groupRef: string, actor: UserRecord, hookId: number): Promise<{ group: NamespaceRecord; hook: HookRecord }> {
    const group = await this.group(groupRef, actor);
    return { group, hook: await this.hook(group, hookId) };
  }

  private async hook(group: NamespaceRecord, hookId: number): Promise<HookRecord> {
    const hook = await this.deps.hooks.find({ kind: 'group', id: group.id }, hookId);
    if (!hook) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return hook;
  }

  private async group(groupRef: string, actor: UserRecord): Promise<NamespaceRecord> {
    const group = await this.deps.lookup.readableGroup(groupRef, actor);
    if (!(await this.deps.permissions.canManageGroupHooks(group, actor))) throw accessDenied();
    return group;
  }
}
