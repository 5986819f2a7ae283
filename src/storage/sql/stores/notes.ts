import type { NewNote, NoteableType, NoteListFilter, NoteRecord, NotesStore } from '../../types-notes.ts';
import { countAll, type Db } from '../database.ts';
import type { NotesTable } from '../schema-planning-activity.ts';

type Row = Omit<NotesTable, 'id'> & { id: number };

function toRecord(row: Row): NoteRecord {
  return { ...row, noteable_type: row.noteable_type as NoteableType, system: row.system === 1, internal: row.internal === 1 };
}

export class SqlNotesStore implements NotesStore {
  constructor(private readonly db: Db) {}

  async create(note: NewNote): Promise<NoteRecord> {
    const row = await this.db
      .insertInto('notes')
      .values({ ...note, system: note.system ? 1 : 0, internal: note.internal ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  async list(filter: NoteListFilter, page: { offset: number; limit: number }): Promise<{ items: NoteRecord[]; total: number }> {
    let query = this.db.selectFrom('notes').where('noteable_type', '=', filter.noteableType).where('noteable_id', '=', filter.noteableId);
    if (!filter.includeInternal) query = query.where('internal', '=', 0);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .selectAll()
      .orderBy(filter.orderBy, filter.sort)
      .orderBy('id', filter.sort)
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map(toRecord), total: Number(counted.total) };
  }

  async findOn(noteableType: NoteableType, noteableId: number, noteId: number): Promise<NoteRecord | undefined> {
    const row = await this.db
      .selectFrom('notes')
      .selectAll()
      .where('id', '=', noteId)
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async update(id: number, changes: { body: string; updated_at: string }): Promise<NoteRecord | undefined> {
    const row = await this.db.updateTable('notes').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
    return row && toRecord(row);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('notes').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async userNoteCounts(noteableType: NoteableType, ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notes')
      .select(['noteable_id', countAll().as('count')])
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', 'in', [...new Set(ids)])
      .where('system', '=', 0)
      .where('internal', '=', 0)
      .groupBy('noteable_id')
      .execute();
    return new Map(rows.map((row) => [row.noteable_id, Number(row.count)]));
  }
}
