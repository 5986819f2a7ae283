import { isIP } from 'node:net';
import { accessDenied, GantryError, missingParam } from '../../../shared/errors.ts';
import { HOOK_EVENT_FLAGS, type BranchFilterStrategy, type HookEventFlag, type HookLogRecord, type HookRecord, type HookSettings, type HooksStore, type HookDeliveriesStore } from '../../../storage/types-hooks.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import { isLocalAddress } from '../outbound/local-addresses.ts';
import { validWildcardFilter } from './branch-filter.ts';

/** POST and PUT parameters as the route read them. */
export type HookParams = Partial<Record<HookEventFlag, boolean>> & {
  url?: string;
  name?: string;
  description?: string;
  token?: string;
  enable_ssl_verification?: boolean;
  push_events_branch_filter?: string;
  branch_filter_strategy?: BranchFilterStrategy;
};

/** A new hook's subscriptions: pushes only, as GitLab's column defaults have it. */
const DEFAULT_EVENTS = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, flag === 'push_events'])) as Record<HookEventFlag, boolean>;

/** URLs longer than this are refused (GitLab's web_hooks.url validation is 5,000 at most). */
export const HOOK_URL_MAX_LENGTH = 5000;

export interface ProjectHooksDeps {
  hooks: HooksStore;
  deliveries: Pick<HookDeliveriesStore, 'logs'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canManageRepositorySettings'>;
  settings: Pick<SettingsService, 'values'>;
  clock?: () => number;
}

/** `/projects/:id/hooks`: Maintainers and Owners list, add, edit and delete a project's webhooks (GitLab's `admin_project`). */
export class ProjectHooksService {
  constructor(private readonly deps: ProjectHooksDeps) {}

  async list(projectRef: string, actor: UserRecord, page: { limit: number; offset: number }): Promise<{ hooks: HookRecord[]; total: number }> {
    const project = await this.project(projectRef, actor);
    return this.deps.hooks.list(project.id, page);
  }

  async get(projectRef: string, actor: UserRecord, hookId: number): Promise<HookRecord> {
    const project = await this.project(projectRef, actor);
    return this.hook(project, hookId);
  }

  async create(projectRef: string, actor: UserRecord, params: HookParams): Promise<HookRecord> {
    const project = await this.project(projectRef, actor);
    if (params.url === undefined || params.url.trim() === '') throw missingParam('url');
    const settings = await this.settings(undefined, params);
    return this.deps.hooks.create(project.id, settings, new Date(this.now()).toISOString());
  }

  /** Saves the given parameters; an edit also re-enables a disabled hook, as in GitLab. */
  async update(projectRef: string, actor: UserRecord, hookId: number, params: HookParams): Promise<HookRecord> {
    const project = await this.project(projectRef, actor);
    const existing = await this.hook(project, hookId);
    const updated = await this.deps.hooks.update(existing.id, await this.settings(existing, params));
    if (!updated) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return updated;
  }

  async remove(projectRef: string, actor: UserRecord, hookId: number): Promise<void> {
    const project = await this.project(projectRef, actor);
    if (!(await this.deps.hooks.remove(project.id, hookId))) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
  }

  /** A hook the caller manages, with its project (the test call's look-up). */
  async managed(projectRef: string, actor: UserRecord, hookId: number): Promise<{ project: ProjectRecord; hook: HookRecord }> {
    const project = await this.project(projectRef, actor);
    return { project, hook: await this.hook(project, hookId) };
  }

  /** The hook's logged deliveries, newest first (GitLab's `GET .../hooks/:hook_id/events`). */
  async events(
    projectRef: string,
    actor: UserRecord,
    hookId: number,
    filter: { status?: 'successful' | 'client_failure' | 'server_failure' },
    page: { limit: number; offset: number },
  ): Promise<{ logs: HookLogRecord[]; total: number }> {
    const project = await this.project(projectRef, actor);
    const hook = await this.hook(project, hookId);
    return this.deps.deliveries.logs(hook.id, filter, page);
  }

  private async settings(existing: HookRecord | undefined, params: HookParams): Promise<HookSettings> {
    const url = params.url ?? existing?.url ?? '';
    if (params.url !== undefined) await this.checkUrl(params.url);
    const strategy = params.branch_filter_strategy ?? existing?.branch_filter_strategy ?? 'wildcard';
    const filter = params.push_events_branch_filter ?? existing?.push_events_branch_filter ?? null;
    if (strategy === 'regex') throw new GantryError('GANTRY_E_HOOK_INVALID', 'Invalid branch filter given', { reason: 'regex branch filters are not supported' });
    if (strategy === 'wildcard' && filter !== null && filter !== '' && !validWildcardFilter(filter)) throw new GantryError('GANTRY_E_HOOK_INVALID', 'Invalid branch filter given');
    const events = { ...(existing?.events ?? DEFAULT_EVENTS) };
    for (const flag of HOOK_EVENT_FLAGS) {
      const value = params[flag];
      if (value !== undefined) events[flag] = value;
    }
    return {
      url,
      name: params.name ?? existing?.name ?? '',
      description: params.description ?? existing?.description ?? '',
      token: params.token === undefined ? (existing?.token ?? null) : params.token === '' ? null : params.token,
      enable_ssl_verification: params.enable_ssl_verification ?? existing?.enable_ssl_verification ?? true,
      push_events_branch_filter: filter === '' ? null : filter,
      branch_filter_strategy: strategy,
      events,
    };
  }

  /**
   * GitLab's AddressableUrlValidator at save time: an http(s) URL, without blanks, and, unless
   * local requests are allowed, not `localhost` nor a local IP literal (names are resolved and
   * checked again at each delivery by the outbound client).
   */
  private async checkUrl(raw: string): Promise<void> {
    const invalid = (): GantryError => new GantryError('GANTRY_E_HOOK_INVALID', 'Invalid url given');
    if (raw.length > HOOK_URL_MAX_LENGTH || /\s/.test(raw)) throw invalid();
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid();
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalid();
    if ((await this.deps.settings.values()).allow_local_requests_from_web_hooks_and_services === true) return;
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isLocalAddress(host))) throw invalid();
  }

  private async hook(project: ProjectRecord, hookId: number): Promise<HookRecord> {
    const hook = await this.deps.hooks.find(project.id, hookId);
    if (!hook) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
    return hook;
  }

  private async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canManageRepositorySettings(project, actor))) throw accessDenied();
    return project;
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }
}
