import { randomBytes } from 'node:crypto';
import type { DiffPosition, DiscussionFilter, NewNote, NoteableType, NoteListFilter, NoteRecord, NotesStore, NoteType } from '../../types-notes.ts';
import { countAll, type Db } from '../database.ts';
import type { NotesTable } from '../schema-planning-activity.ts';

type Row = Omit<NotesTable, 'id'> & { id: number };

/** A thread id as GitLab's look: 40 hexadecimal characters. */
function newDiscussionId(): string {
  return randomBytes(20).toString('hex');
}

/** A notes row as the domain reads it (also for other stores that read notes). */
export function noteRecordOf(row: Row): NoteRecord {
  return {
    ...row,
    noteable_type: row.noteable_type as NoteableType,
    system: row.system === 1,
    internal: row.internal === 1,
    // Rows are written by this store (or copied with their thread): a missing id is one no route can name.
    discussion_id: row.discussion_id ?? '',
    type: row.type as NoteType,
    position: row.position === null ? null : (JSON.parse(row.position) as DiffPosition),
  };
}

/** The notes a thread's resolution counts: a person's DiscussionNote or DiffNote on a merge request. */
const RESOLVABLE_TYPES = ['DiscussionNote', 'DiffNote'];

export class SqlNotesStore implements NotesStore {
  constructor(private readonly db: Db) {}

  async create(note: NewNote): Promise<NoteRecord> {
    const row = await this.db
      .insertInto('notes')
      .values({
        ...note,
        system: note.system ? 1 : 0,
        internal: note.internal ? 1 : 0,
        discussion_id: note.discussion_id ?? newDiscussionId(),
        type: note.type ?? null,
        position: note.position ? JSON.stringify(note.position) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return noteRecordOf(row);
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
    return { items: rows.map(noteRecordOf), total: Number(counted.total) };
  }

  async findOn(noteableType: NoteableType, noteableId: number, noteId: number): Promise<NoteRecord | undefined> {
    const row = await this.db
      .selectFrom('notes')
      .selectAll()
      .where('id', '=', noteId)
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .executeTakeFirst();
    return row && noteRecordOf(row);
  }

  async update(id: number, changes: { body: string; updated_at: string }): Promise<NoteRecord | undefined> {
    const row = await this.db.updateTable('notes').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
    return row && noteRecordOf(row);
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

  async discussionIds(filter: DiscussionFilter, page: { offset: number; limit: number }): Promise<{ ids: string[]; total: number }> {
    let query = this.db.selectFrom('notes').where('noteable_type', '=', filter.noteableType).where('noteable_id', '=', filter.noteableId).where('discussion_id', 'is not', null);
    if (!filter.includeInternal) query = query.where('internal', '=', 0);
    const counted = await query.select((eb) => eb.fn.count<number>('discussion_id').distinct().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .select(['discussion_id', (eb) => eb.fn.min('id').as('first_id')])
      .groupBy('discussion_id')
      .orderBy('first_id')
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { ids: rows.flatMap((row) => (row.discussion_id === null ? [] : [row.discussion_id])), total: Number(counted.total) };
  }

  async notesOfDiscussions(filter: DiscussionFilter, discussionIds: readonly string[]): Promise<NoteRecord[]> {
    if (discussionIds.length === 0) return [];
    let query = this.db
      .selectFrom('notes')
      .selectAll()
      .where('noteable_type', '=', filter.noteableType)
      .where('noteable_id', '=', filter.noteableId)
      .where('discussion_id', 'in', [...new Set(discussionIds)]);
    if (!filter.includeInternal) query = query.where('internal', '=', 0);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(noteRecordOf);
  }

  async convertToDiscussion(id: number): Promise<void> {
    await this.db.updateTable('notes').set({ type: 'DiscussionNote' }).where('id', '=', id).where('type', 'is', null).where('system', '=', 0).execute();
  }

  async setResolved(ids: readonly number[], by: { userId: number; at: string } | null): Promise<NoteRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('notes')
      .set({ resolved_by_id: by?.userId ?? null, resolved_at: by?.at ?? null })
      .where('id', 'in', [...new Set(ids)])
      .where('type', 'in', RESOLVABLE_TYPES)
      .where('system', '=', 0)
      .returningAll()
      .execute();
    return rows.map(noteRecordOf).sort((a, b) => a.id - b.id);
  }

  async unresolvedDiscussionCounts(ids: readonly number[]): Promise<Map<number, number>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('notes')
      .select(['noteable_id', (eb) => eb.fn.count<number>('discussion_id').distinct().as('count')])
      .where('noteable_type', '=', 'MergeRequest')
      .where('noteable_id', 'in', [...new Set(ids)])
      .where('type', 'in', RESOLVABLE_TYPES)
      .where('system', '=', 0)
      .where('resolved_at', 'is', null)
      .groupBy('noteable_id')
      .execute();
    return new Map(rows.map((row) => [row.noteable_id, Number(row.count)]));
  }

  async authorIdsOf(noteableType: NoteableType, noteableId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('notes')
      .select('author_id')
      .distinct()
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .where('system', '=', 0)
      .where('internal', '=', 0)
      .orderBy('author_id')
      .execute();
    return rows.map((row) => row.author_id);
  }
}
