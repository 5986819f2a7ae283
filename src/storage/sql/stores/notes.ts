import type { NewNote, NoteableType, NoteRecord, NotesStore } from '../../types-notes.ts';
import type { Db } from '../database.ts';
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
}
