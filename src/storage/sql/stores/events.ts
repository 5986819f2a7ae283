import type { Db } from '../database.ts';
import type { EventsTable } from '../schema-accounts.ts';
import type { EventAction, EventListFilter, EventNote, EventPushData, EventRecord, EventsStore, NewEvent } from '../../types-events.ts';

type EventRow = Omit<EventsTable, 'id'> & { id: number };

/** Activity events: appended once, read newest or oldest first; no read cache depends on them. */
export class SqlEventsStore implements EventsStore {
  constructor(private readonly db: Db) {}

  async record(event: NewEvent): Promise<void> {
    await this.db
      .insertInto('events')
      .values({
        ...event,
        push_data: event.push_data === null ? null : JSON.stringify(event.push_data),
        note: event.note === null ? null : JSON.stringify(event.note),
        confidential: event.confidential ? 1 : 0,
      })
      .execute();
  }

  async deleteOldBatch(before: string, afterId: number, limit: number): Promise<{ deleted: number; lastId: number | null }> {
    // The primary key's order: the oldest rows first, without an index on created_at.
    const ids = (await this.db.selectFrom('events').select('id').where('id', '>', afterId).orderBy('id', 'asc').limit(limit).execute()).map((row) => row.id);
    const lastId = ids.at(-1) ?? null;
    if (lastId === null) return { deleted: 0, lastId };
    const result = await this.db.deleteFrom('events').where('id', 'in', ids).where('created_at', '<', before).executeTakeFirst();
    return { deleted: Number(result.numDeletedRows), lastId };
  }

  async list(filter: EventListFilter, page: { offset: number; limit: number }): Promise<{ items: EventRecord[]; total: number }> {
    const { scope } = filter;
    if (scope && scope.visibilities.length + scope.namespaceIds.length + scope.projectIds.length === 0) return { items: [], total: 0 };
    let query = this.db.selectFrom('events').innerJoin('projects', 'projects.id', 'events.project_id').where('projects.pending_delete', '=', 0);
    if (scope) {
      query = query.where((eb) => {
        const alternatives = [];
        if (scope.visibilities.length > 0) alternatives.push(eb('projects.visibility', 'in', scope.visibilities));
        if (scope.namespaceIds.length > 0) alternatives.push(eb('projects.namespace_id', 'in', [...new Set(scope.namespaceIds)]));
        if (scope.projectIds.length > 0) alternatives.push(eb('projects.id', 'in', [...new Set(scope.projectIds)]));
        return eb.or(alternatives);
      });
    }
    const { confidential } = filter;
    if (confidential !== 'all') {
      query = query.where((eb) => {
        const alternatives = [eb('events.confidential', '=', 0)];
        if (confidential.authorId !== null) alternatives.push(eb('events.author_id', '=', confidential.authorId));
        if (confidential.namespaceIds.length > 0) alternatives.push(eb('projects.namespace_id', 'in', [...new Set(confidential.namespaceIds)]));
        if (confidential.projectIds.length > 0) alternatives.push(eb('projects.id', 'in', [...new Set(confidential.projectIds)]));
        return eb.or(alternatives);
      });
    }
    if (filter.authorId !== undefined) query = query.where('events.author_id', '=', filter.authorId);
    if (filter.projectId !== undefined) query = query.where('events.project_id', '=', filter.projectId);
    if (filter.action !== undefined) query = query.where('events.action', '=', filter.action);
    if (filter.targetType !== undefined) query = query.where('events.target_type', '=', filter.targetType);
    if (filter.before !== undefined) query = query.where('events.created_at', '<', filter.before);
    if (filter.after !== undefined) query = query.where('events.created_at', '>=', filter.after);
    const rows = await query.selectAll('events').orderBy('events.id', filter.sort).offset(page.offset).limit(page.limit).execute();
    const { count } = await query.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
    return { items: rows.map(toEvent), total: Number(count) };
  }
}

function toEvent(row: EventRow): EventRecord {
  return {
    ...row,
    action: row.action as EventAction,
    confidential: row.confidential === 1,
    push_data: row.push_data === null ? null : (JSON.parse(row.push_data) as EventPushData),
    note: row.note === null ? null : (JSON.parse(row.note) as EventNote),
  };
}
