import { sql, type RawBuilder, type SqlBool } from '#deps/kysely';
import { confidentialVisible, inVisibleProjects } from './issue-visibility.ts';
import { ISSUE_TABLES, negatedConditions, utcToday } from './issuable-negation.ts';
import { countAll, inTransaction, type Db } from '../database.ts';
import type { Page } from '../../types-ci.ts';
import type { ConfidentialAccess, IssueChanges, IssueListFilter, IssueRecord, IssueRelations, IssuesStore, IssueState, LabelRecord, NewIssue } from '../../types-planning.ts';
import { nextInternalId } from './internal-ids.ts';
import { fuzzyMatch } from './like.ts';
import { ColumnKinds } from './row-mapping.ts';

const issueColumns = new ColumnKinds<IssueRecord>({ confidential: 'boolean', discussion_locked: 'boolean' });
export const toIssue = (row: object): IssueRecord => {
  // Never set stays null (GitLab answers null, not false), which the boolean conversion would lose.
  const neverLocked = (row as { discussion_locked: number | null }).discussion_locked === null;
  const issue = issueColumns.toRecord(row);
  if (neverLocked) issue.discussion_locked = null;
  issue.state = issue.state as IssueState;
  return issue;
};
const unique = (ids: readonly number[]): number[] => [...new Set(ids)];

/**
 * GitLab's timebox wildcards over `issues i`: `upcoming` is the issue's milestone when it is its
 * project's or group's next active one due after today (Milestone.upcoming_ids: the earliest
 * due date, ties to the lowest id); `started` an active milestone started by today.
 */
function milestoneWildcard(wildcard: NonNullable<IssueListFilter['milestoneWildcard']>, today: string): RawBuilder<SqlBool> {
  if (wildcard === 'started') return sql<SqlBool>`i.milestone_id in (select id from milestones where state = 'active' and start_date <= ${today})`;
  return sql<SqlBool>`i.milestone_id in (select ms.id from milestones as ms where ms.state = 'active' and ms.due_date > ${today} and not exists (
    select 1 from milestones as sooner where sooner.state = 'active' and sooner.due_date > ${today}
      and (sooner.project_id = ms.project_id or (sooner.project_id is null and ms.project_id is null))
      and (sooner.group_id = ms.group_id or (sooner.group_id is null and ms.group_id is null))
      and (sooner.due_date < ms.due_date or (sooner.due_date = ms.due_date and sooner.id < ms.id))))`;
}

/** `due_date` over `issues i` (dates are `YYYY-MM-DD` text, so they compare as strings). */
function dueDate(due: NonNullable<IssueListFilter['due']>): RawBuilder<SqlBool> {
  if (due === 'none') return sql<SqlBool>`i.due_date is null`;
  if (due === 'any') return sql<SqlBool>`i.due_date is not null`;
  const bounds = [sql`i.due_date is not null`];
  if (due.from !== undefined) bounds.push(sql`i.due_date >= ${due.from}`);
  if (due.to !== undefined) bounds.push(sql`i.due_date <= ${due.to}`);
  if (due.before !== undefined) bounds.push(sql`i.due_date < ${due.before}`);
  return sql<SqlBool>`(${sql.join(bounds, sql` and `)})`;
}


export class SqlIssuesStore implements IssuesStore {
  constructor(private readonly db: Db) {}

  async create(issue: NewIssue, relations: IssueRelations): Promise<IssueRecord> {
    return inTransaction(this.db, async (trx) => {
      const iid = await nextInternalId(trx, issue.project_id, 'issues');
      const row = await trx.insertInto('issues').values({ ...issueColumns.toColumns(issue), iid }).returningAll().executeTakeFirstOrThrow();
      await this.setRelations(trx, row.id, relations);
      return toIssue(row);
    });
  }

  async findByIid(projectId: number, iid: number): Promise<IssueRecord | undefined> {
    const row = await this.db.selectFrom('issues').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
    return row && toIssue(row);
  }

  async findByIds(ids: readonly number[]): Promise<IssueRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('issues').selectAll().where('id', 'in', unique(ids)).execute();
    return rows.map(toIssue);
  }

  async list(filter: IssueListFilter, page: Page): Promise<{ items: IssueRecord[]; total: number }> {
    const query = this.filtered(filter);
    if (!query) return { items: [], total: 0 };
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .selectAll('i')
      .orderBy(`i.${filter.orderBy}`, filter.sort)
      .orderBy('i.id', filter.sort)
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map(toIssue), total: Number(counted.total) };
  }

  /** The filter as one query over `issues i` joined with its project `p`; undefined when it can match nothing. */
  private filtered(filter: IssueListFilter) {
    const { projects } = filter;
    if (projects.projectIds?.length === 0 || projects.namespaceIds?.length === 0 || filter.iids?.length === 0) return undefined;
    let query = this.db
      .selectFrom('issues as i')
      .innerJoin('projects as p', 'p.id', 'i.project_id')
      .where('p.pending_delete', '=', 0)
      .where('p.issues_enabled', '=', 1);
    if (projects.projectIds) query = query.where('i.project_id', 'in', unique(projects.projectIds));
    if (projects.namespaceIds) query = query.where('p.namespace_id', 'in', unique(projects.namespaceIds));
    if (projects.visibleScope) {
      const visible = inVisibleProjects(projects.visibleScope);
      if (!visible) return undefined;
      query = query.where(visible);
    }
    const access = filter.confidentialAccess;
    if (access) query = query.where(confidentialVisible(access));
    if (filter.state) query = query.where('i.state', '=', filter.state);
    if (filter.confidential !== undefined) query = query.where('i.confidential', '=', filter.confidential ? 1 : 0);
    if (filter.authorId !== undefined) query = query.where('i.author_id', '=', filter.authorId);
    if (filter.milestoneId !== undefined) query = query.where('i.milestone_id', '=', filter.milestoneId);
    if (filter.iids) query = query.where('i.iid', 'in', unique(filter.iids));
    if (filter.createdAfter) query = query.where('i.created_at', '>=', filter.createdAfter);
    if (filter.createdBefore) query = query.where('i.created_at', '<=', filter.createdBefore);
    if (filter.updatedAfter) query = query.where('i.updated_at', '>=', filter.updatedAfter);
    if (filter.updatedBefore) query = query.where('i.updated_at', '<=', filter.updatedBefore);
    const searched = filter.search === undefined ? undefined : fuzzyMatch(this.db, (filter.searchIn?.length ? filter.searchIn : ['title', 'description']).map((column) => `i.${column}`), filter.search);
    if (searched) query = query.where(searched);
    const { milestone, labels, assigneeId } = filter;
    const today = filter.today ?? utcToday();
    if (filter.milestoneWildcard !== undefined) query = query.where(milestoneWildcard(filter.milestoneWildcard, today));
    if (filter.due !== undefined) query = query.where(dueDate(filter.due));
    if (filter.not) for (const condition of negatedConditions(ISSUE_TABLES, filter.not, today)) query = query.where(condition);
    if (milestone === 'none') query = query.where('i.milestone_id', 'is', null);
    else if (milestone === 'any') query = query.where('i.milestone_id', 'is not', null);
    else if (milestone !== undefined) query = query.where('i.milestone_id', 'in', this.db.selectFrom('milestones').select('id').where('title', '=', milestone));
    const labelLinks = this.db.selectFrom('issue_labels').select('issue_id');
    if (labels === 'none') query = query.where('i.id', 'not in', labelLinks);
    else if (labels === 'any') query = query.where('i.id', 'in', labelLinks);
    else if (labels !== undefined && labels.length > 0) {
      // One probe of the issue's own labels per title: the work follows the project's issues,
      // never every issue of the instance that carries a label of that title.
      for (const title of new Set(labels)) {
        query = query.where(({ exists, selectFrom }) =>
          exists(selectFrom('issue_labels as il').innerJoin('labels as l', 'l.id', 'il.label_id').select('il.label_id').whereRef('il.issue_id', '=', 'i.id').where('l.title', '=', title)),
        );
      }
    }
    if (filter.reactedBy) {
      const { userId, emoji } = filter.reactedBy;
      let awarded = this.db.selectFrom('award_emoji').select('awardable_id').where('awardable_type', '=', 'Issue').where('user_id', '=', userId);
      if (emoji !== 'none' && emoji !== 'any') awarded = awarded.where('name', '=', emoji);
      query = query.where('i.id', emoji === 'none' ? 'not in' : 'in', awarded);
    }
    const assignments = this.db.selectFrom('issue_assignees').select('issue_id');
    if (assigneeId === 'none') query = query.where('i.id', 'not in', assignments);
    else if (assigneeId === 'any') query = query.where('i.id', 'in', assignments);
    else if (assigneeId !== undefined) query = query.where('i.id', 'in', assignments.where('user_id', '=', assigneeId));
    return query;
  }


  async labelsOf(issueIds: readonly number[]): Promise<Map<number, LabelRecord[]>> {
    const byIssue = new Map<number, LabelRecord[]>();
    if (issueIds.length === 0) return byIssue;
    const rows = await this.db
      .selectFrom('issue_labels as il')
      .innerJoin('labels as l', 'l.id', 'il.label_id')
      .selectAll('l')
      .select('il.issue_id')
      .where('il.issue_id', 'in', unique(issueIds))
      .orderBy('l.title')
      .orderBy('l.id')
      .execute();
    for (const { issue_id: issueId, ...label } of rows) {
      const list = byIssue.get(issueId) ?? [];
      list.push(label);
      byIssue.set(issueId, list);
    }
    return byIssue;
  }

  async assigneesOf(issueIds: readonly number[]): Promise<Map<number, number[]>> {
    const byIssue = new Map<number, number[]>();
    if (issueIds.length === 0) return byIssue;
    const rows = await this.db.selectFrom('issue_assignees').selectAll().where('issue_id', 'in', unique(issueIds)).orderBy('user_id').execute();
    for (const row of rows) byIssue.set(row.issue_id, [...(byIssue.get(row.issue_id) ?? []), row.user_id]);
    return byIssue;
  }

  async update(id: number, changes: IssueChanges, relations: IssueRelations): Promise<IssueRecord | undefined> {
    return inTransaction(this.db, async (trx) => {
      const set = issueColumns.toColumns(changes);
      const row =
        Object.keys(set).length === 0
          ? await trx.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirst()
          : await trx.updateTable('issues').set(set).where('id', '=', id).returningAll().executeTakeFirst();
      if (!row) return undefined;
      await this.setRelations(trx, id, relations);
      return toIssue(row);
    });
  }

  /** Also deletes what names the issue by type and id: its notes (and their award emoji), award emoji, time logs, subscriptions and todos. */
  async delete(id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const noteIds = trx.selectFrom('notes').select('id').where('noteable_type', '=', 'Issue').where('noteable_id', '=', id);
      await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'Note').where('awardable_id', 'in', noteIds).execute();
      await trx.deleteFrom('todos').where('note_id', 'in', noteIds).execute();
      await trx.deleteFrom('notes').where('noteable_type', '=', 'Issue').where('noteable_id', '=', id).execute();
      await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'Issue').where('awardable_id', '=', id).execute();
      await trx.deleteFrom('timelogs').where('issuable_type', '=', 'Issue').where('issuable_id', '=', id).execute();
      await trx.deleteFrom('subscriptions').where('subscribable_type', '=', 'Issue').where('subscribable_id', '=', id).execute();
      await trx.deleteFrom('todos').where('target_type', '=', 'Issue').where('target_id', '=', id).execute();
      const result = await trx.deleteFrom('issues').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  async countsByLabel(labelIds: readonly number[], projectIds: readonly number[], confidentialAccess: ConfidentialAccess | null): Promise<Map<number, { opened: number; closed: number }>> {
    const counts = new Map<number, { opened: number; closed: number }>();
    if (labelIds.length === 0 || projectIds.length === 0) return counts;
    let query = this.db
      .selectFrom('issue_labels as il')
      .innerJoin('issues as i', 'i.id', 'il.issue_id')
      .innerJoin('projects as p', 'p.id', 'i.project_id')
      .select(['il.label_id', 'i.state', countAll().as('count')])
      .where('il.label_id', 'in', unique(labelIds))
      .where('i.project_id', 'in', unique(projectIds))
      .where('p.pending_delete', '=', 0)
      .where('p.issues_enabled', '=', 1)
      .groupBy(['il.label_id', 'i.state']);
    if (confidentialAccess) query = query.where(confidentialVisible(confidentialAccess));
    for (const row of await query.execute()) {
      const entry = counts.get(row.label_id) ?? { opened: 0, closed: 0 };
      if (row.state === 'opened') entry.opened = Number(row.count);
      else entry.closed = Number(row.count);
      counts.set(row.label_id, entry);
    }
    return counts;
  }

  private async setRelations(trx: Db, issueId: number, relations: IssueRelations): Promise<void> {
    if (relations.labelIds) {
      await trx.deleteFrom('issue_labels').where('issue_id', '=', issueId).execute();
      const labelIds = unique(relations.labelIds);
      if (labelIds.length) await trx.insertInto('issue_labels').values(labelIds.map((labelId) => ({ issue_id: issueId, label_id: labelId }))).execute();
    }
    if (relations.assigneeIds) {
      await trx.deleteFrom('issue_assignees').where('issue_id', '=', issueId).execute();
      const userIds = unique(relations.assigneeIds);
      if (userIds.length) await trx.insertInto('issue_assignees').values(userIds.map((userId) => ({ issue_id: issueId, user_id: userId }))).execute();
    }
  }
}
