import { accessDenied, GantryError, missingParam } from '../../../shared/errors.ts';
import type { HookLogRecord, HookRecord, HookSettings, HooksStore, HookDeliveriesStore } from '../../../storage/types-hooks.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import { hookSettings, localRequestsAllowed, type HookParams } from './hook-settings.ts';

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
    return this.deps.hooks.list({ kind: 'project', id: project.id }, page);
  }

  async get(projectRef: string, actor: UserRecord, hookId: number): Promise<HookRecord> {
    const project = await this.project(projectRef, actor);
    return this.hook(project, hookId);
  }

  async create(projectRef: string, actor: UserRecord, params: HookParams): Promise<HookRecord> {
    const project = await this.project(projectRef, actor);
    if (params.url === undefined || params.url.trim() === '') throw missingParam('url');
    const settings = await this.settings(undefined, params);
    return this.deps.hooks.create({ kind: 'project', id: project.id }, settings, new Date(this.now()).toISOString());
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
    if (!(await this.deps.hooks.remove({ kind: 'project', id: project.id }, hookId))) throw new GantryError('GANTRY_E_HOOK_NOT_FOUND');
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
    return hookSettings(existing, params, await localRequestsAllowed(this.deps.settings, 'project'));
  }

  private async hook(project: ProjectRecord, hookId: number): Promise<HookRecord> {
    const hook = await this.deps.hooks.find({ kind: 'project', id: project.id }, hookId);
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
