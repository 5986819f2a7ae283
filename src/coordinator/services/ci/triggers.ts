import { randomBytes } from 'node:crypto';
import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import type { TriggerRecord, TriggersStore } from '../../../storage/types-ci-settings.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import { exceedsLength, tooLongMessage } from '../field-limits.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { pageOfList, type Page, type Paged } from '../repository/pages.ts';

/** A trigger as one caller sees it. */
export interface TriggerView {
  trigger: TriggerRecord;
  owner: UserRecord | null;
  /** The token to show: whole for its owner, else its first 4 characters (GitLab's `short_token`). */
  token: string;
}

export interface TriggersServiceDeps {
  triggers: Omit<TriggersStore, 'findByToken'>;
  users: Pick<UsersStore, 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canManageProjectCiSettings' | 'seesTriggerToken'>;
}

export const TRIGGER_DESCRIPTION_MAX = 255;

/** A new trigger token: 30 hexadecimal characters from the system's CSPRNG, as GitLab's. */
export function newTriggerToken(): string {
  return randomBytes(15).toString('hex');
}

/** `/projects/:id/triggers`: pipeline trigger tokens, managed by the project's Maintainers. */
export class TriggersService {
  constructor(private readonly deps: TriggersServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<TriggerView>> {
    const project = await this.project(projectRef, actor);
    const { items, total } = pageOfList(await this.deps.triggers.list(project.id), page);
    return { items: await this.views(items, actor), total };
  }

  async get(projectRef: string, actor: UserRecord, triggerId: number): Promise<TriggerView> {
    return this.view(await this.find(await this.project(projectRef, actor), triggerId), actor);
  }

  /** The caller owns the new trigger. */
  async create(projectRef: string, actor: UserRecord, description: string): Promise<TriggerView> {
    const project = await this.project(projectRef, actor);
    checkDescription(description);
    const trigger = await this.deps.triggers.create({
      project_id: project.id,
      token: newTriggerToken(),
      description,
      owner_id: actor.id,
      created_at: new Date().toISOString(),
    });
    return this.view(trigger, actor);
  }

  async update(projectRef: string, actor: UserRecord, triggerId: number, changes: { description?: string }): Promise<TriggerView> {
    const trigger = await this.find(await this.project(projectRef, actor), triggerId);
    if (changes.description !== undefined) checkDescription(changes.description);
    return this.change(trigger, { description: changes.description }, actor);
  }

  async takeOwnership(projectRef: string, actor: UserRecord, triggerId: number): Promise<TriggerView> {
    const trigger = await this.find(await this.project(projectRef, actor), triggerId);
    return this.change(trigger, { owner_id: actor.id }, actor);
  }

  async remove(projectRef: string, actor: UserRecord, triggerId: number): Promise<void> {
    const trigger = await this.find(await this.project(projectRef, actor), triggerId);
    if (!(await this.deps.triggers.delete(trigger.id))) throw new GantryError('GANTRY_E_TRIGGER_NOT_FOUND');
  }

  private async change(trigger: TriggerRecord, changes: { description?: string; owner_id?: number }, actor: UserRecord): Promise<TriggerView> {
    const updated = await this.deps.triggers.update(trigger.id, { ...changes, updated_at: new Date().toISOString() });
    if (!updated) throw new GantryError('GANTRY_E_TRIGGER_NOT_FOUND');
    return this.view(updated, actor);
  }

  private async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canManageProjectCiSettings(project, actor))) throw accessDenied();
    return project;
  }

  private async find(project: ProjectRecord, triggerId: number): Promise<TriggerRecord> {
    const trigger = await this.deps.triggers.findInProject(project.id, triggerId);
    if (!trigger) throw new GantryError('GANTRY_E_TRIGGER_NOT_FOUND');
    return trigger;
  }

  private async view(trigger: TriggerRecord, actor: UserRecord): Promise<TriggerView> {
    const [view] = await this.views([trigger], actor);
    return view!;
  }

  private async views(triggers: readonly TriggerRecord[], actor: UserRecord): Promise<TriggerView[]> {
    const ownerIds = [...new Set(triggers.flatMap((trigger) => (trigger.owner_id === null ? [] : [trigger.owner_id])))];
    const owners = new Map((ownerIds.length ? await this.deps.users.findByIds(ownerIds) : []).map((user) => [user.id, user]));
    return triggers.map((trigger) => ({
      trigger,
      owner: trigger.owner_id === null ? null : (owners.get(trigger.owner_id) ?? null),
      token: this.deps.permissions.seesTriggerToken(trigger, actor) ? trigger.token : trigger.token.slice(0, 4),
    }));
  }
}

function checkDescription(description: string): void {
  if (exceedsLength(description, TRIGGER_DESCRIPTION_MAX)) throw validationFailed({ description: [tooLongMessage(TRIGGER_DESCRIPTION_MAX)] });
}
