import { sql, type SqlBool } from '#deps/kysely';
import { confidentialVisible, inVisibleProjects } from './issue-visibility.ts';
import { countAll, type Db } from '../database.ts';
import type { TodosTable } from '../schema-planning-activity.ts';
import type { Page } from '../../types-ci.ts';
import type { NewTodo, TodoAction, TodoListFilter, TodoRecord, TodosStore, TodoState } from '../../types-todos.ts';

const unique = (ids: readonly number[]): number[] => [...new Set(ids)];

function toTodo(row: Omit<TodosTable, 'id'> & { id: number }): TodoRecord {
  return { ...row, target_type: row.target_type as TodoRecord['target_type'], action: row.action as TodoAction, state: row.state as TodoState };
}

export class SqlTodosStore implements TodosStore {
  constructor(private readonly db: Db) {}

  async createPending(userIds: readonly number[], todo: Omit<NewTodo, 'user_id'>): Promise<TodoRecord[]> {
    const wanted = unique(userIds);
    if (wanted.length === 0) return [];
    const holders = await this.db
      .selectFrom('todos')
      .select('user_id')
      .where('user_id', 'in', wanted)
      .where('target_type', '=', todo.target_type)
      .where('target_id', '=', todo.target_id)
      .where('state', '=', 'pending')
      .execute();
    const held = new Set(holders.map((row) => row.user_id));
    const fresh = wanted.filter((userId) => !held.has(userId));
    if (fresh.length === 0) return [];
    const rows = await this.db
      .insertInto('todos')
      .values(fresh.map((userId) => ({ ...todo, user_id: userId, state: 'pending', updated_at: todo.created_at })))
      .returningAll()
      .execute();
    return rows.map(toTodo);
  }

  /**
   * Todos of issues and merge requests, joined to their target and its project so that what
   * the caller may no longer see drops out in the query: an issue by the issue lists' rule
   * (issues enabled, a visible project, confidential ones to those who see them), a merge
   * request whoever reads its project while merge requests are enabled there.
   */
  async list(filter: TodoListFilter, page: Page): Promise<{ items: TodoRecord[]; total: number }> {
    const { projects } = filter;
    if (projects.projectIds?.length === 0 || filter.namespaceIds?.length === 0) return { items: [], total: 0 };
    const wantsIssues = filter.targetType !== 'MergeRequest';
    const wantsMergeRequests = filter.targetType !== 'Issue';
    let query = this.db
      .selectFrom('todos as t')
      .leftJoin('issues as i', (join) => join.onRef('i.id', '=', 't.target_id').on('t.target_type', '=', 'Issue'))
      .leftJoin('merge_requests as m', (join) => join.onRef('m.id', '=', 't.target_id').on('t.target_type', '=', 'MergeRequest'))
      .innerJoin('projects as p', (join) => join.on(sql<SqlBool>`${sql.ref('p.id')} = coalesce(${sql.ref('i.project_id')}, ${sql.ref('m.project_id')})`))
      .where('t.user_id', '=', filter.userId)
      .where('p.pending_delete', '=', 0);
    const access = filter.confidentialAccess;
    query = query.where((eb) => {
      const readable = [];
      if (wantsIssues) readable.push(eb.and([eb('t.target_type', '=', 'Issue'), eb('i.id', 'is not', null), eb('p.issues_enabled', '=', 1), ...(access ? [confidentialVisible(access)] : [])]));
      if (wantsMergeRequests) readable.push(eb.and([eb('t.target_type', '=', 'MergeRequest'), eb('m.id', 'is not', null), eb('p.merge_requests_enabled', '=', 1)]));
      return eb.or(readable);
    });
    if (projects.visibleScope) {
      const visible = inVisibleProjects(projects.visibleScope);
      if (!visible) return { items: [], total: 0 };
      query = query.where(visible);
    }
    if (projects.projectIds) query = query.where('p.id', 'in', unique(projects.projectIds));
    if (filter.namespaceIds) query = query.where('p.namespace_id', 'in', unique(filter.namespaceIds));
    if (filter.projectId !== undefined) query = query.where('t.project_id', '=', filter.projectId);
    if (filter.action) query = query.where('t.action', '=', filter.action);
    if (filter.authorId !== undefined) query = query.where('t.author_id', '=', filter.authorId);
    if (filter.state) query = query.where('t.state', '=', filter.state);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll('t').orderBy('t.created_at', 'desc').orderBy('t.id', 'desc').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toTodo), total: Number(counted.total) };
  }

  async findOwn(userId: number, id: number): Promise<TodoRecord | undefined> {
    const row = await this.db.selectFrom('todos').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return row && toTodo(row);
  }

  async markDone(userId: number, which: { id: number } | { targetType: string; targetId: number } | 'all', at: string): Promise<number> {
    let query = this.db.updateTable('todos').set({ state: 'done', updated_at: at }).where('user_id', '=', userId).where('state', '=', 'pending');
    if (which !== 'all' && 'id' in which) query = query.where('id', '=', which.id);
    if (which !== 'all' && 'targetType' in which) query = query.where('target_type', '=', which.targetType).where('target_id', '=', which.targetId);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
