import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import type { CustomAttributeRecord, CustomAttributeSubject, CustomAttributesStore } from '../../types.ts';

export class SqlCustomAttributesStore implements CustomAttributesStore {
  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {}

  async list(subject: CustomAttributeSubject, subjectId: number): Promise<CustomAttributeRecord[]> {
    return this.db
      .selectFrom('custom_attributes')
      .select(['key', 'value'])
      .where('subject_type', '=', subject)
      .where('subject_id', '=', subjectId)
      .orderBy('key')
      .execute();
  }

  async get(subject: CustomAttributeSubject, subjectId: number, key: string): Promise<CustomAttributeRecord | undefined> {
    return this.db
      .selectFrom('custom_attributes')
      .select(['key', 'value'])
      .where('subject_type', '=', subject)
      .where('subject_id', '=', subjectId)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  async set(subject: CustomAttributeSubject, subjectId: number, key: string, value: string): Promise<CustomAttributeRecord> {
    const now = new Date().toISOString();
    this.writes.report({ table: 'custom_attributes' });
    await this.db
      .insertInto('custom_attributes')
      .values({ subject_type: subject, subject_id: subjectId, key, value, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['subject_type', 'subject_id', 'key']).doUpdateSet({ value, updated_at: now }))
      .execute();
    return { key, value };
  }

  async delete(subject: CustomAttributeSubject, subjectId: number, key: string): Promise<boolean> {
    this.writes.report({ table: 'custom_attributes' });
    const result = await this.db
      .deleteFrom('custom_attributes')
      .where('subject_type', '=', subject)
      .where('subject_id', '=', subjectId)
      .where('key', '=', key)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteAllFor(subject: CustomAttributeSubject, subjectId: number): Promise<void> {
    this.writes.report({ table: 'custom_attributes' });
    await this.db.deleteFrom('custom_attributes').where('subject_type', '=', subject).where('subject_id', '=', subjectId).execute();
  }

  async subjectIdsMatching(subject: CustomAttributeSubject, filters: Record<string, string>): Promise<number[]> {
    let ids: Set<number> | undefined;
    for (const [key, value] of Object.entries(filters)) {
      const rows = await this.db
        .selectFrom('custom_attributes')
        .select('subject_id')
        .where('subject_type', '=', subject)
        .where('key', '=', key)
        .where('value', '=', value)
        .execute();
      const found = new Set(rows.map((row) => row.subject_id));
      ids = ids === undefined ? found : new Set([...ids].filter((id) => found.has(id)));
    }
    return ids === undefined ? [] : [...ids];
  }
}
