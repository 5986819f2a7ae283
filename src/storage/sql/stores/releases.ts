import type { ReleaseChanges, ReleaseRecord, ReleasesStore } from '../../types-repository.ts';
import { inTransaction, type Db } from '../database.ts';

export class SqlReleasesStore implements ReleasesStore {
  constructor(private readonly db: Db) {}

  async listForProject(projectId: number): Promise<ReleaseRecord[]> {
    return this.db.selectFrom('releases').selectAll().where('project_id', '=', projectId).execute();
  }

  async find(projectId: number, tagName: string): Promise<ReleaseRecord | null> {
    const row = await this.db.selectFrom('releases').selectAll().where('project_id', '=', projectId).where('tag_name', '=', tagName).executeTakeFirst();
    return row ?? null;
  }

  async create(release: Omit<ReleaseRecord, 'id'>, milestoneIds: readonly number[] = []): Promise<ReleaseRecord> {
    return inTransaction(this.db, async (trx) => {
      const created = await trx.insertInto('releases').values(release).returningAll().executeTakeFirstOrThrow();
      await addMilestones(trx, created.id, milestoneIds);
      return created;
    });
  }

  async update(id: number, changes: ReleaseChanges, milestoneIds?: readonly number[]): Promise<ReleaseRecord> {
    return inTransaction(this.db, async (trx) => {
      const updated = await trx.updateTable('releases').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
      if (milestoneIds !== undefined) {
        await trx.deleteFrom('milestone_releases').where('release_id', '=', id).execute();
        await addMilestones(trx, id, milestoneIds);
      }
      return updated;
    });
  }

  async milestoneIds(releaseIds: readonly number[]): Promise<Map<number, number[]>> {
    const byRelease = new Map<number, number[]>();
    if (releaseIds.length === 0) return byRelease;
    const rows = await this.db
      .selectFrom('milestone_releases')
      .select(['release_id', 'milestone_id'])
      .where('release_id', 'in', [...new Set(releaseIds)])
      .orderBy('milestone_id')
      .execute();
    for (const row of rows) byRelease.set(row.release_id, [...(byRelease.get(row.release_id) ?? []), row.milestone_id]);
    return byRelease;
  }

  async delete(projectId: number, tagName: string): Promise<void> {
    await this.db.deleteFrom('releases').where('project_id', '=', projectId).where('tag_name', '=', tagName).execute();
  }

  async deleteForProject(projectId: number): Promise<void> {
    await this.db.deleteFrom('releases').where('project_id', '=', projectId).execute();
  }
}

async function addMilestones(db: Db, releaseId: number, milestoneIds: readonly number[]): Promise<void> {
  const unique = [...new Set(milestoneIds)];
  if (unique.length === 0) return;
  await db.insertInto('milestone_releases').values(unique.map((milestoneId) => ({ release_id: releaseId, milestone_id: milestoneId }))).execute();
}
