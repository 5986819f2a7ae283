import type { Db } from '../database.ts';
import type { TriggerRecord, TriggersStore } from '../../types-ci-settings.ts';

export class SqlTriggersStore implements TriggersStore {
  constructor(private readonly db: Db) {}

  async create(trigger: Omit<TriggerRecord, 'id' | 'last_used' | 'updated_at'>): Promise<TriggerRecord> {
    return this.db
      .insertInto('ci_triggers')
      .values({ ...trigger, last_used: null, updated_at: trigger.created_at })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async findInProject(projectId: number, id: number): Promise<TriggerRecord | undefined> {
    return this.db.selectFrom('ci_triggers').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst();
  }

  async findByToken(token: string): Promise<TriggerRecord | undefined> {
    return this.db.selectFrom('ci_triggers').selectAll().where('token', '=', token).executeTakeFirst();
  }

  async list(projectId: number): Promise<TriggerRecord[]> {
    return this.db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  }

  async update(id: number, changes: Partial<Pick<TriggerRecord, 'description' | 'owner_id' | 'last_used' | 'updated_at'>>): Promise<TriggerRecord | undefined> {
    const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(set).length === 0) return this.db.selectFrom('ci_triggers').selectAll().where('id', '=', id).executeTakeFirst();
    return this.db.updateTable('ci_triggers').set(set).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('ci_triggers').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
