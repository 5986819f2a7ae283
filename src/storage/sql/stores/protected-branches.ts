import type { ProtectedBranchRecord, ProtectedBranchesStore, ProtectionLevel } from '../../types-repository.ts';
import type { Db } from '../database.ts';

interface ProtectedBranchRow {
  id: number;
  project_id: number;
  name: string;
  push_access_level: number;
  merge_access_level: number;
  allow_force_push: number;
  created_at: string;
  updated_at: string;
}

function toLevel(value: number): ProtectionLevel {
  return value === 0 || value === 30 ? value : 40;
}

function toRecord(row: ProtectedBranchRow): ProtectedBranchRecord {
  return {
    ...row,
    push_access_level: toLevel(row.push_access_level),
    merge_access_level: toLevel(row.merge_access_level),
    allow_force_push: Boolean(row.allow_force_push),
  };
}

export class SqlProtectedBranchesStore implements ProtectedBranchesStore {
  constructor(private readonly db: Db) {}

  async listForProject(projectId: number): Promise<ProtectedBranchRecord[]> {
    const rows = await this.db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
    return rows.map(toRecord);
  }

  async find(projectId: number, name: string): Promise<ProtectedBranchRecord | null> {
    const row = await this.db.selectFrom('protected_branches').selectAll().where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async create(rule: Omit<ProtectedBranchRecord, 'id'>): Promise<ProtectedBranchRecord | null> {
    const row = { ...rule, allow_force_push: rule.allow_force_push ? 1 : 0 };
    const inserted = await this.db
      .insertInto('protected_branches')
      .values(row)
      .onConflict((conflict) => conflict.columns(['project_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return inserted ? toRecord(inserted) : null;
  }

  async update(id: number, levels: { push_access_level: ProtectionLevel; merge_access_level: ProtectionLevel; updated_at: string }): Promise<ProtectedBranchRecord> {
    return toRecord(await this.db.updateTable('protected_branches').set(levels).where('id', '=', id).returningAll().executeTakeFirstOrThrow());
  }

  async delete(projectId: number, name: string): Promise<boolean> {
    const result = await this.db.deleteFrom('protected_branches').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteForProject(projectId: number): Promise<void> {
    await this.db.deleteFrom('protected_branches').where('project_id', '=', projectId).execute();
  }
}
