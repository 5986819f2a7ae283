import { RELEASE_LINK_TYPES, type ReleaseLinkChanges, type ReleaseLinkRecord, type ReleaseLinksStore, type ReleaseLinkType } from '../../types-repository.ts';
import type { Db } from '../database.ts';
import type { ReleaseLinksTable } from '../schema-repository-protection.ts';

type ReleaseLinkRow = Omit<ReleaseLinksTable, 'id'> & { id: number };

function toRecord(row: ReleaseLinkRow): ReleaseLinkRecord {
  const linkType = (RELEASE_LINK_TYPES as readonly string[]).includes(row.link_type) ? (row.link_type as ReleaseLinkType) : 'other';
  return { ...row, link_type: linkType };
}

export class SqlReleaseLinksStore implements ReleaseLinksStore {
  constructor(private readonly db: Db) {}

  async listForReleases(releaseIds: readonly number[]): Promise<Map<number, ReleaseLinkRecord[]>> {
    const links = new Map<number, ReleaseLinkRecord[]>();
    if (releaseIds.length === 0) return links;
    const rows = await this.db.selectFrom('release_links').selectAll().where('release_id', 'in', [...new Set(releaseIds)]).orderBy('id').execute();
    for (const row of rows) {
      const list = links.get(row.release_id) ?? [];
      list.push(toRecord(row));
      links.set(row.release_id, list);
    }
    return links;
  }

  async find(releaseId: number, id: number): Promise<ReleaseLinkRecord | null> {
    const row = await this.db.selectFrom('release_links').selectAll().where('release_id', '=', releaseId).where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async create(link: Omit<ReleaseLinkRecord, 'id'>): Promise<ReleaseLinkRecord> {
    return toRecord(await this.db.insertInto('release_links').values(link).returningAll().executeTakeFirstOrThrow());
  }

  /** With nothing to change, answers the current row (an UPDATE with an empty SET is an SQL error). */
  async update(id: number, changes: ReleaseLinkChanges): Promise<ReleaseLinkRecord> {
    const row = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as ReleaseLinkChanges;
    if (Object.keys(row).length === 0) return toRecord(await this.db.selectFrom('release_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow());
    return toRecord(await this.db.updateTable('release_links').set(row).where('id', '=', id).returningAll().executeTakeFirstOrThrow());
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('release_links').where('id', '=', id).execute();
  }
}
