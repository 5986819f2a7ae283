import { INTEGRATION_EVENT_FLAGS, type IntegrationEvents, type IntegrationPropertyValue, type IntegrationRecord, type IntegrationsStore, type IntegrationWrite } from '../../types-integrations.ts';
import type { Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { IntegrationsTable } from '../schema-integrations.ts';

type Row = Omit<IntegrationsTable, 'id'> & { id: number };

function toRecord(row: Row, secrets: SecretBox): IntegrationRecord {
  const events = Object.fromEntries(INTEGRATION_EVENT_FLAGS.map((flag) => [flag, row[flag] === 1])) as IntegrationEvents;
  const parsed: unknown = JSON.parse(secrets.open(row.properties));
  const properties = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, IntegrationPropertyValue>;
  return { id: row.id, project_id: row.project_id, slug: row.slug, active: row.active === 1, events, properties, created_at: row.created_at, updated_at: row.updated_at };
}

function columns(write: IntegrationWrite, secrets: SecretBox) {
  const flags = Object.fromEntries(INTEGRATION_EVENT_FLAGS.map((flag) => [flag, write.events[flag] ? 1 : 0])) as Record<(typeof INTEGRATION_EVENT_FLAGS)[number], number>;
  return { active: write.active ? 1 : 0, ...flags, properties: secrets.seal(JSON.stringify(write.properties)) };
}

export class SqlIntegrationsStore implements IntegrationsStore {
  // Every CI event of a project asks which of its integrations are active.
  private readonly active;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.active = preparedQuery(db, (projectId: number) => db.selectFrom('integrations').selectAll().where('project_id', '=', projectId).where('active', '=', 1).orderBy('slug').compile());
  }

  async find(projectId: number, slug: string): Promise<IntegrationRecord | undefined> {
    const row = await this.db.selectFrom('integrations').selectAll().where('project_id', '=', projectId).where('slug', '=', slug).executeTakeFirst();
    return row ? toRecord(row, this.secrets) : undefined;
  }

  async listActive(projectId: number): Promise<IntegrationRecord[]> {
    const rows = await this.active(projectId);
    return rows.map((row) => toRecord(row, this.secrets));
  }

  async save(projectId: number, slug: string, write: IntegrationWrite, now: string): Promise<IntegrationRecord> {
    const values = columns(write, this.secrets);
    const row = await this.db
      .insertInto('integrations')
      .values({ project_id: projectId, slug, ...values, created_at: now, updated_at: now })
      .onConflict((conflict) => conflict.columns(['project_id', 'slug']).doUpdateSet({ ...values, updated_at: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row, this.secrets);
  }

  async remove(projectId: number, slug: string): Promise<boolean> {
    const result = await this.db.deleteFrom('integrations').where('project_id', '=', projectId).where('slug', '=', slug).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
