import type { ReleaseChanges, ReleaseRecord, ReleasesStore } from '../../types-repository.ts';
import type { Db } from '../database.ts';

export class SqlReleasesStore implements ReleasesStore {
  constructor(private readonly db: Db) {}

  async listForProject(projectId: number): Promise<ReleaseRecord[]> {
    return this.db.selectFrom('releases').selectAll().where('project_id', '=', projectId).execute();
  }

  async find(projectId: number, tagName: string): Promise<ReleaseRecord | null> {
    const row = await this.db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag_name', '=', tagName).executeTakeFirst();
    return row ?? null;
  }

  async create(release: Omit<ReleaseRecord, 'id'>): Promise<ReleaseRecord> {
    return this.db.insertInto('releases').values(release).returningAll().executeTakeFirstOrThrow();
  }

  async update(id: number, changes: ReleaseChanges): Promise<ReleaseRecord> {
    return this.db.updateTable('releases').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  async delete(projectId: number, tagName: string): Promise<void> {
    await this.db.deleteFrom('releases').where('project_id', '=', projectId).where('tag_name', '=', tagName).execute();
  }

  async deleteForProject(projectId: number): Promise<void> {
    await this.db.deleteFrom('releases').where('project_id', '=', projectId).execute();
  }
}
