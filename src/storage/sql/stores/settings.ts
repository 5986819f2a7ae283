import { dialectOf, inTransaction, type Db } from '../database.ts';
import type { SettingsRow, SettingsStore } from '../../types.ts';

/** Application settings live in one row (id 1) as a JSON document. */
export class SqlSettingsStore implements SettingsStore {
  constructor(private readonly db: Db) {}

  async load(): Promise<SettingsRow | undefined> {
    const row = await this.db.selectFrom('application_settings').selectAll().where('id', '=', 1).executeTakeFirst();
    if (!row) return undefined;
    return { settings: JSON.parse(row.settings) as Record<string, unknown>, created_at: row.created_at, updated_at: row.updated_at };
  }

  async save(settings: Record<string, unknown>, now: string): Promise<SettingsRow> {
    const text = JSON.stringify(settings);
    await this.db
      .insertInto('application_settings')
      .values({ id: 1, settings: text, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ settings: text, updated_at: now }))
      .execute();
    const saved = await this.load();
    if (!saved) throw new Error('application settings vanished after save');
    return saved;
  }

  async merge(changes: Record<string, unknown>, now: string): Promise<SettingsRow> {
    return inTransaction(this.db, async (trx) => {
      await trx.insertInto('application_settings').values({ id: 1, settings: '{}', created_at: now, updated_at: now }).onConflict((oc) => oc.column('id').doNothing()).execute();
      // SQLite transactions begin IMMEDIATE (one writer at a time); PostgreSQL locks the row.
      let read = trx.selectFrom('application_settings').select('settings').where('id', '=', 1);
      if (dialectOf(trx) === 'postgres') read = read.forUpdate();
      const row = await read.executeTakeFirstOrThrow();
      const text = JSON.stringify({ ...(JSON.parse(row.settings) as Record<string, unknown>), ...changes });
      await trx.updateTable('application_settings').set({ settings: text, updated_at: now }).where('id', '=', 1).execute();
      const saved = await new SqlSettingsStore(trx).load();
      if (!saved) throw new Error('application settings vanished after save');
      return saved;
    });
  }
}
