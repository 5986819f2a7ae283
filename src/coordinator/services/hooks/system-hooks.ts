import { accessDenied, GantryError, missingParam } from '../../../shared/errors.ts';
import type { HookRecord, HooksStore } from '../../../storage/types-hooks.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import type { HookDeliveries } from './hook-deliveries.ts';
import { TRIGGERS } from './hook-payloads.ts';
import { hookSettings, localRequestsAllowed, type HookParams } from './hook-settings.ts';
import type { HookTestRateLimit } from './test-rate-limit.ts';

/** The parameters `/hooks` takes (GitLab's SystemHook: no issue, note or CI flags). */
export type SystemHookParams = Pick<HookParams, 'url' | 'name' | 'description' | 'token' | 'enable_ssl_verification' | 'push_events' | 'tag_push_events' | 'merge_requests_events' | 'repository_update_events' | 'push_events_branch_filter' | 'branch_filter_strategy'>;

/** What `POST /hooks/:id` sends and answers: GitLab's fixed sample. */
export const SYSTEM_HOOK_SAMPLE = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
} as const;

const SYSTEM = { kind: 'system' } as const;

export interface SystemHooksDeps {
  hooks: HooksStore;
  permissions: Pick<Permissions, 'isAdministrator'>;
  settings: Pick<SettingsService, 'values'>;
  deliveries: Pick<HookDeliveries, 'sendNow'>;
  rateLimit: HookTestRateLimit;
  clock?: () => number;
}

/** `/hooks`: administrators list, add, edit, test and delete the instance's system hooks. */
export class SystemHooksService {
  constructor(private readonly deps: SystemHooksDeps) {}

  async list(actor: UserRecord, page: { limit: number; offset: number }): Promise<{ hooks: HookRecord[]; total: number }> {
    this.requireAdministrator(actor);
    return this.deps.hooks.list(SYSTEM, page);
  }

  async get(actor: UserRecord, hookId: number): Promise<HookRecord> {
    this.requireAdministrator(actor);
    return this.hook(hookId);
  }

  async create(actor: UserRecord, params: SystemHookParams): Promise<HookRecord> {
    this.requireAdministrator(actor);
    if (params.url === undefined || params.url.trim() === '') throw missingParam('url');
    const settings = await hookSettings(undefined, params, await localRequestsAllowed(this.deps.settings, 'system'));
    return this.deps.hooks.create(SYSTEM, settings, new Date((this.deps.clock ?? Date.now)()).toISOString());
  }

  /** Saves the given parameters and re-enables the hook, as a project hook's edit does. */
  async update(actor: UserRecord, hookId: number, params: SystemHookParams): Promise<HookRecord> {
    this.requireAdministrator(actor);
    const existing = await this.hook(hookId);
    const updated = await this.deps.hooks.update(existing.id, await hookSettings(existing, params, await localRequestsAllowed(this.deps.settings, 'system')));
    if (!updated) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return updated;
  }

  async remove(actor: UserRecord, hookId: number): Promise<HookRecord> {
    this.requireAdministrator(actor);
    const hook = await this.hook(hookId);
    if (!(await this.deps.hooks.remove(SYSTEM, hookId))) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return hook;
  }

  /**
   * `POST /hooks/:id`: GitLab's sample `project_create` event, sent now (logged and counted as
   * any delivery); GitLab answers the sample whatever the receiver said.
   */
  async test(actor: UserRecord, hookId: number): Promise<typeof SYSTEM_HOOK_SAMPLE> {
    this.requireAdministrator(actor);
    const hook = await this.hook(hookId);
    this.deps.rateLimit.take(hook.id, actor.id);
    await this.deps.deliveries.sendNow(hook, TRIGGERS.system, { ...SYSTEM_HOOK_SAMPLE });
    return SYSTEM_HOOK_SAMPLE;
  }

  private async hook(hookId: number): Promise<HookRecord> {
    const hook = await this.deps.hooks.find(SYSTEM, hookId);
    if (!hook) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return hook;
  }

  private requireAdministrator(actor: UserRecord): void {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
  }
}
