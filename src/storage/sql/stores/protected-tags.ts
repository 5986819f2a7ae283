import type { ProtectedTagRecord, ProtectedTagsStore, ProtectionLevel } from '../../types-repository.ts';
import type { Db } from '../database.ts';
import type { ProtectedTagsTable } from '../schema-repository-protection.ts';

type ProtectedTagRow = Omit<ProtectedTagsTable, 'id'> & { id: number };

function toRecord(row: ProtectedTagRow): ProtectedTagRecord {
  const level = row.create_access_level;
  const createAccessLevel: ProtectionLevel = level === 0 || level === 30 ? level : 40;
  return { ...row, create_access_level: createAccessLevel };
}

export class SqlProtectedTagsStore implements ProtectedTagsStore {
  constructor(private readonly db: Db) {}

  async listForProject(projectId: number): Promise<ProtectedTagRecord[]> {
    const rows = await this.db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
    return rows.map(toRecord);
  }

  async find(projectId: number, name: string): Promise<ProtectedTagRecord | null> {
    const row = await this.db.selectFrom('protected_tags').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async create(rule: Omit<ProtectedTagRecord, 'id'>): Promise<ProtectedTagRecord | null> {
    const row = await this.db
      .insertInto('protected_tags')
      .values(rule)
      .onConflict((conflict) => conflict.columns(['project_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async delete(projectId: number, name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('protected_tags').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
