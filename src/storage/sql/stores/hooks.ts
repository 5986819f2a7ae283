import type { ExpressionBuilder } from '#deps/kysely';
import { HOOK_EVENT_FLAGS, type BranchFilterStrategy, type HookEventFlag, type HookEvents, type HookKind, type HookOwner, type HookRecord, type HookSettings, type HooksStore } from '../../types-hooks.ts';
import type { DatabaseSchema } from '../schema.ts';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { WebHooksTable } from '../schema-hooks.ts';

type Row = Omit<WebHooksTable, 'id'> & { id: number };

function toRecord(row: Row, secrets: SecretBox): HookRecord {
  const events = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, row[flag] === 1])) as HookEvents;
  return {
    id: row.id,
    kind: row.kind as HookKind,
    project_id: row.project_id,
    group_id: row.group_id,
    repository_update_events: row.repository_update_events === 1,
    subgroup_events: row.subgroup_events === 1,
    member_events: row.member_events === 1,
    url: secrets.open(row.url),
    name: row.name,
    description: row.description,
    token: secrets.openNullable(row.token),
    enable_ssl_verification: row.enable_ssl_verification === 1,
    push_events_branch_filter: row.push_events_branch_filter,
    branch_filter_strategy: row.branch_filter_strategy as BranchFilterStrategy,
    events,
    recent_failures: row.recent_failures,
    backoff_count: row.backoff_count,
    disabled_until: row.disabled_until,
    permanently_disabled: row.permanently_disabled === 1,
    created_at: row.created_at,
  };
}

function settingsColumns(settings: HookSettings, secrets: SecretBox) {
  const flags = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, settings.events[flag] ? 1 : 0])) as Record<HookEventFlag, number>;
  return {
    url: secrets.seal(settings.url),
    name: settings.name,
    description: settings.description,
    token: secrets.sealNullable(settings.token),
    enable_ssl_verification: settings.enable_ssl_verification ? 1 : 0,
    push_events_branch_filter: settings.push_events_branch_filter,
    branch_filter_strategy: settings.branch_filter_strategy,
    repository_update_events: settings.repository_update_events ? 1 : 0,
    subgroup_events: settings.subgroup_events ? 1 : 0,
    member_events: settings.member_events ? 1 : 0,
    ...flags,
  };
}

/** An edit re-enables a hook: GitLab clears its failures when its settings are saved. */
const ENABLED = { recent_failures: 0, backoff_count: 0, disabled_until: null, permanently_disabled: 0 } as const;

function ownerColumns(owner: HookOwner) {
  return { kind: owner.kind, project_id: owner.kind === 'project' ? owner.id : null, group_id: owner.kind === 'group' ? owner.id : null };
}

/** The rows of one owner. */
function ownedBy(owner: HookOwner) {
  return (eb: ExpressionBuilder<DatabaseSchema, 'web_hooks'>) => {
    if (owner.kind === 'system') return eb('kind', '=', 'system');
    return eb.and([eb('kind', '=', owner.kind), eb(owner.kind === 'project' ? 'project_id' : 'group_id', '=', owner.id)]);
  };
}

export class SqlHooksStore implements HooksStore {
  /** listSubscribed's statement per event flag, built once (every CI event of a project asks). */
  private readonly subscribed = new Map<HookEventFlag, ReturnType<SqlHooksStore['subscribedQuery']>>();

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async create(owner: HookOwner, settings: HookSettings, now: string): Promise<HookRecord> {
    const row = await this.db
      .insertInto('web_hooks')
      .values({ ...ownerColumns(owner), ...settingsColumns(settings, this.secrets), ...ENABLED, delivery_owner: null, delivery_lease_until: null, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row, this.secrets);
  }

  async find(owner: HookOwner, hookId: number): Promise<HookRecord | undefined> {
    const row = await this.db.selectFrom('web_hooks').selectAll().where(ownedBy(owner)).where('id', '=', hookId).executeTakeFirst();
    return row ? toRecord(row, this.secrets) : undefined;
  }

  async findById(hookId: number): Promise<HookRecord | undefined> {
    const row = await this.db.selectFrom('web_hooks').selectAll().where('id', '=', hookId).executeTakeFirst();
    return row ? toRecord(row, this.secrets) : undefined;
  }

  async list(owner: HookOwner, page: { limit: number; offset: number }): Promise<{ hooks: HookRecord[]; total: number }> {
    const rows = await this.db.selectFrom('web_hooks').selectAll().where(ownedBy(owner)).orderBy('id').limit(page.limit).offset(page.offset).execute();
    const count = await this.db.selectFrom('web_hooks').select((eb) => eb.fn.countAll<number>().as('total')).where(ownedBy(owner)).executeTakeFirstOrThrow();
    return { hooks: rows.map((row) => toRecord(row, this.secrets)), total: Number(count.total) };
  }

  async listSubscribed(projectId: number, flag: HookEventFlag): Promise<HookRecord[]> {
    let query = this.subscribed.get(flag);
    if (!query) {
      query = this.subscribedQuery(flag);
      this.subscribed.set(flag, query);
    }
    const rows = await query(projectId, projectId);
    return rows.map((row) => toRecord(row, this.secrets));
  }

  /**
   * The project's namespace and its ancestors, walked in the database (a personal namespace
   * is one step), so an event costs one statement whether groups have hooks or not. The
   * project's id is a parameter twice (a prepared statement's placeholders are used once each).
   */
  private subscribedQuery(flag: HookEventFlag) {
    return preparedQuery(this.db, (projectId: number, sameProjectId: number) =>
      this.db
        .withRecursive('chain(id, parent_id)', (db) =>
          db
            .selectFrom('namespaces')
            .innerJoin('projects', 'projects.namespace_id', 'namespaces.id')
            .select(['namespaces.id', 'namespaces.parent_id'])
            .where('projects.id', '=', projectId)
            .unionAll((next) => next.selectFrom('namespaces').innerJoin('chain', 'chain.parent_id', 'namespaces.id').select(['namespaces.id', 'namespaces.parent_id'])),
        )
        .selectFrom('web_hooks')
        .selectAll('web_hooks')
        .where((eb) =>
          eb.or([
            eb.and([eb('kind', '=', 'project'), eb('project_id', '=', sameProjectId)]),
            eb.and([eb('kind', '=', 'group'), eb('group_id', 'in', eb.selectFrom('chain').select('chain.id'))]),
          ]),
        )
        .where(flag, '=', 1)
        .orderBy('id')
        .compile());
  }

  async listForGroups(groupIds: readonly number[], flag: 'subgroup_events' | 'member_events'): Promise<HookRecord[]> {
    if (groupIds.length === 0) return [];
    const rows = await this.db.selectFrom('web_hooks').selectAll().where('kind', '=', 'group').where('group_id', 'in', [...groupIds]).where(flag, '=', 1).orderBy('id').execute();
    return rows.map((row) => toRecord(row, this.secrets));
  }

  async listSystem(flag: 'push_events' | 'tag_push_events' | 'merge_requests_events' | 'repository_update_events' | null): Promise<HookRecord[]> {
    let query = this.db.selectFrom('web_hooks').selectAll().where('kind', '=', 'system');
    if (flag !== null) query = query.where(flag, '=', 1);
    return (await query.orderBy('id').execute()).map((row) => toRecord(row, this.secrets));
  }

  async update(hookId: number, settings: HookSettings): Promise<HookRecord | undefined> {
    const row = await this.db.updateTable('web_hooks').set({ ...settingsColumns(settings, this.secrets), ...ENABLED }).where('id', '=', hookId).returningAll().executeTakeFirst();
    return row ? toRecord(row, this.secrets) : undefined;
  }

  async remove(owner: HookOwner, hookId: number): Promise<boolean> {
    const result = await this.db.deleteFrom('web_hooks').where(ownedBy(owner)).where('id', '=', hookId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async saveFailureState(hookId: number, state: Pick<HookRecord, 'recent_failures' | 'backoff_count' | 'disabled_until' | 'permanently_disabled'>): Promise<void> {
    await this.db
      .updateTable('web_hooks')
      .set({ recent_failures: state.recent_failures, backoff_count: state.backoff_count, disabled_until: state.disabled_until, permanently_disabled: state.permanently_disabled ? 1 : 0 })
      .where('id', '=', hookId)
      .execute();
  }
}
