import type { Db } from '../database.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { CiVariableType } from '../../types-ci.ts';
import type { CiVariableChanges, CiVariableRecord, CiVariablesStore } from '../../types-ci-settings.ts';

interface VariableRow {
  owner_id: number;
  key: string;
  value: string;
  variable_type: string;
  protected: number;
  masked: number;
  environment_scope: string;
  raw: number;
  description: string | null;
  hidden: number;
}

/** The columns a project or group variable is read with, the owner's id as `owner_id`. */
const HIDABLE_COLUMNS = ['key', 'value', 'variable_type', 'protected', 'masked', 'raw', 'description', 'hidden'] as const;

function toVariable(row: VariableRow, secrets: SecretBox): CiVariableRecord {
  return {
    key: row.key,
    value: secrets.open(row.value),
    variable_type: row.variable_type as CiVariableType,
    protected: row.protected === 1,
    masked: row.masked === 1,
    environment_scope: row.environment_scope,
    raw: row.raw === 1,
    description: row.description,
    hidden: row.hidden === 1,
  };
}

/** A new variable's columns (its value sealed), without its owner, scope and times. */
function newColumns(variable: CiVariableRecord, secrets: SecretBox) {
  return {
    key: variable.key,
    value: secrets.seal(variable.value),
    variable_type: variable.variable_type,
    protected: variable.protected ? 1 : 0,
    masked: variable.masked ? 1 : 0,
    raw: variable.raw ? 1 : 0,
    description: variable.description,
  };
}

function toColumns(changes: CiVariableChanges, secrets: SecretBox): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (changes.value !== undefined) columns.value = secrets.seal(changes.value);
  if (changes.variable_type !== undefined) columns.variable_type = changes.variable_type;
  if (changes.protected !== undefined) columns.protected = changes.protected ? 1 : 0;
  if (changes.masked !== undefined) columns.masked = changes.masked ? 1 : 0;
  if (changes.raw !== undefined) columns.raw = changes.raw ? 1 : 0;
  if (changes.description !== undefined) columns.description = changes.description;
  return columns;
}

/** Project variables (`ci_variables`): unique by key and environment scope. */
export class SqlProjectVariablesStore implements CiVariablesStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  private select() {
    return this.db
      .selectFrom('ci_variables')
      .select(['project_id as owner_id', ...HIDABLE_COLUMNS, 'environment_scope']);
  }

  async list(ownerId: number): Promise<CiVariableRecord[]> {
    return (await this.listForOwners([ownerId])).get(ownerId) ?? [];
  }

  async listForOwners(ownerIds: readonly number[]): Promise<Map<number, CiVariableRecord[]>> {
    return groupByOwner(this.secrets, ownerIds.length === 0 ? [] : await this.select().where('project_id', 'in', [...new Set(ownerIds)]).orderBy('id').execute());
  }

  async find(ownerId: number, key: string, environmentScope?: string): Promise<CiVariableRecord | undefined> {
    let query = this.select().where('project_id', '=', ownerId).where('key', '=', key);
    if (environmentScope !== undefined) query = query.where('environment_scope', '=', environmentScope);
    const rows = await query.execute();
    const row = rows.find((candidate) => candidate.environment_scope === '*') ?? rows.sort((a, b) => (a.environment_scope < b.environment_scope ? -1 : 1))[0];
    return row && toVariable(row, this.secrets);
  }

  async create(ownerId: number, variable: CiVariableRecord, now: string): Promise<CiVariableRecord> {
    await this.db
      .insertInto('ci_variables')
      .values({ project_id: ownerId, ...newColumns(variable, this.secrets), environment_scope: variable.environment_scope, hidden: variable.hidden ? 1 : 0, created_at: now, updated_at: now })
      .execute();
    return variable;
  }

  async update(ownerId: number, key: string, environmentScope: string, changes: CiVariableChanges, now: string): Promise<CiVariableRecord | undefined> {
    const row = await this.db
      .updateTable('ci_variables')
      .set({ ...toColumns(changes, this.secrets), updated_at: now })
      .where('project_id', '=', ownerId)
      .where('key', '=', key)
      .where('environment_scope', '=', environmentScope)
      .returning(['project_id as owner_id', ...HIDABLE_COLUMNS, 'environment_scope'])
      .executeTakeFirst();
    return row && toVariable(row, this.secrets);
  }

  async delete(ownerId: number, key: string, environmentScope: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('ci_variables')
      .where('project_id', '=', ownerId)
      .where('key', '=', key)
      .where('environment_scope', '=', environmentScope)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** Group variables (`ci_group_variables`): unique by key; their scope is always `*`. */
export class SqlGroupVariablesStore implements CiVariablesStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  private select() {
    return this.db
      .selectFrom('ci_group_variables')
      .select((eb) => ['group_id as owner_id', ...HIDABLE_COLUMNS, eb.val('*').as('environment_scope')]);
  }

  async list(ownerId: number): Promise<CiVariableRecord[]> {
    return (await this.listForOwners([ownerId])).get(ownerId) ?? [];
  }

  async listForOwners(ownerIds: readonly number[]): Promise<Map<number, CiVariableRecord[]>> {
    return groupByOwner(this.secrets, ownerIds.length === 0 ? [] : await this.select().where('group_id', 'in', [...new Set(ownerIds)]).orderBy('id').execute());
  }

  async find(ownerId: number, key: string, environmentScope?: string): Promise<CiVariableRecord | undefined> {
    if (environmentScope !== undefined && environmentScope !== '*') return undefined;
    const row = await this.select().where('group_id', '=', ownerId).where('key', '=', key).executeTakeFirst();
    return row && toVariable(row, this.secrets);
  }

  async create(ownerId: number, variable: CiVariableRecord, now: string): Promise<CiVariableRecord> {
    await this.db
      .insertInto('ci_group_variables')
      .values({ group_id: ownerId, ...newColumns(variable, this.secrets), hidden: variable.hidden ? 1 : 0, created_at: now, updated_at: now })
      .execute();
    return { ...variable, environment_scope: '*' };
  }

  async update(ownerId: number, key: string, environmentScope: string, changes: CiVariableChanges, now: string): Promise<CiVariableRecord | undefined> {
    if (environmentScope !== '*') return undefined;
    await this.db.updateTable('ci_group_variables').set({ ...toColumns(changes, this.secrets), updated_at: now }).where('group_id', '=', ownerId).where('key', '=', key).execute();
    return this.find(ownerId, key);
  }

  async delete(ownerId: number, key: string, environmentScope: string): Promise<boolean> {
    if (environmentScope !== '*') return false;
    const result = await this.db.deleteFrom('ci_group_variables').where('group_id', '=', ownerId).where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function groupByOwner(secrets: SecretBox, rows: readonly VariableRow[]): Map<number, CiVariableRecord[]> {
  const byOwner = new Map<number, CiVariableRecord[]>();
  for (const row of rows) {
    const list = byOwner.get(row.owner_id) ?? [];
    list.push(toVariable(row, secrets));
    byOwner.set(row.owner_id, list);
  }
  return byOwner;
}

type InstanceVariableRow = Omit<VariableRow, 'owner_id' | 'environment_scope' | 'hidden'>;

const INSTANCE_COLUMNS = ['key', 'value', 'variable_type', 'protected', 'masked', 'raw', 'description'] as const;

/**
 * The instance's variables (`ci_instance_variables`): unique by key, scope always `*`. The
 * instance is their one owner, so the owner ids of CiVariablesStore are not read.
 */
export class SqlInstanceVariablesStore implements CiVariablesStore {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  private select() {
    return this.db.selectFrom('ci_instance_variables').select([...INSTANCE_COLUMNS]);
  }

  private toRecord(row: InstanceVariableRow): CiVariableRecord {
    return toVariable({ ...row, owner_id: 0, environment_scope: '*', hidden: 0 }, this.secrets);
  }

  async list(): Promise<CiVariableRecord[]> {
    return (await this.select().orderBy('id').execute()).map((row) => this.toRecord(row));
  }

  async listForOwners(ownerIds: readonly number[]): Promise<Map<number, CiVariableRecord[]>> {
    const variables = await this.list();
    return new Map(ownerIds.map((ownerId) => [ownerId, variables]));
  }

  async find(_ownerId: number, key: string, environmentScope?: string): Promise<CiVariableRecord | undefined> {
    if (environmentScope !== undefined && environmentScope !== '*') return undefined;
    const row = await this.select().where('key', '=', key).executeTakeFirst();
    return row && this.toRecord(row);
  }

  async create(_ownerId: number, variable: CiVariableRecord, now: string): Promise<CiVariableRecord> {
    await this.db
      .insertInto('ci_instance_variables')
      .values({ ...newColumns(variable, this.secrets), created_at: now, updated_at: now })
      .execute();
    return { ...variable, environment_scope: '*', hidden: false };
  }

  async update(_ownerId: number, key: string, environmentScope: string, changes: CiVariableChanges, now: string): Promise<CiVariableRecord | undefined> {
    if (environmentScope !== '*') return undefined;
    const row = await this.db
      .updateTable('ci_instance_variables')
      .set({ ...toColumns(changes, this.secrets), updated_at: now })
      .where('key', '=', key)
      .returning([...INSTANCE_COLUMNS])
      .executeTakeFirst();
    return row && this.toRecord(row);
  }

  async delete(_ownerId: number, key: string, environmentScope: string): Promise<boolean> {
    if (environmentScope !== '*') return false;
    const result = await this.db.deleteFrom('ci_instance_variables').where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
