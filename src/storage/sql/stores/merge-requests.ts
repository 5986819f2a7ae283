import { sql, type RawBuilder, type SqlBool } from '#deps/kysely';
import { countAll, inTransaction, type Db } from '../database.ts';
import { isUniqueViolation } from '../../errors.ts';
import type { Page } from '../../types-ci.ts';
import type { LabelRecord } from '../../types-planning.ts';
import {
  DRAFT_TITLE_PREFIXES,
  OpenMergeRequestExists,
  type MergeRequestListFilter,
  type MergeRequestChanges,
  type MergeRequestRecord,
  type MergeRequestRelations,
  type MergeRequestsStore,
  type NewMergeRequest,
} from '../../types-merge-requests.ts';
import { inVisibleProjects } from './issue-visibility.ts';
import { MERGE_REQUEST_TABLES, negatedConditions } from './issuable-negation.ts';
import { nextInternalId } from './internal-ids.ts';
import { fuzzyMatch } from './like.ts';
import { ColumnKinds } from './row-mapping.ts';

const columns = new ColumnKinds<MergeRequestRecord>({
  discussion_locked: 'boolean',
  merge_when_pipeline_succeeds: 'boolean',
  squash: 'boolean',
  force_remove_source_branch: 'boolean',
  should_remove_source_branch: 'boolean',
  allow_collaboration: 'boolean',
  merge_params: 'json',
});

export const toMergeRequest = (row: object): MergeRequestRecord => {
  // Never set stays null (GitLab answers null, not false), which the boolean conversion would lose.
  const raw = row as { discussion_locked: number | null; should_remove_source_branch: number | null };
  const neverLocked = raw.discussion_locked === null;
  const removalUnset = raw.should_remove_source_branch === null;
  const request = columns.toRecord(row);
  if (neverLocked) request.discussion_locked = null;
  if (removalUnset) request.should_remove_source_branch = null;
  return request;
};
const unique = (ids: readonly number[]): number[] => [...new Set(ids)];

/** A draft's title (types-merge-requests.ts: isDraftTitle), as SQL over `merge_requests m`. */
function draftTitle(): RawBuilder<SqlBool> {
  const title = sql`ltrim(lower(${sql.ref('m.title')}))`;
  return sql<SqlBool>`(${sql.join(DRAFT_TITLE_PREFIXES.map((prefix) => sql`${title} like ${`${prefix}%`}`), sql` or `)})`;
}

const DEFAULTS = {
  discussion_locked: null, milestone_id: null, time_estimate: 0, total_time_spent: 0, merge_status: 'unchecked', merge_error: null,
  merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: null, squash: false, force_remove_source_branch: false,
  should_remove_source_branch: null, allow_collaboration: false, head_sha: null, base_sha: null, start_sha: null, head_pipeline_id: null,
  merge_commit_sha: null, squash_commit_sha: null, merged_at: null, merged_by_id: null, closed_at: null, closed_by_id: null,
} as const;

type UserLink = 'merge_request_assignees' | 'merge_request_reviewers';

export class SqlMergeRequestsStore implements MergeRequestsStore {
  constructor(private readonly db: Db) {}

  async create(request: NewMergeRequest, relations: MergeRequestRelations): Promise<MergeRequestRecord> {
    return this.guardPair(() =>
      inTransaction(this.db, async (trx) => {
        const iid = await nextInternalId(trx, request.project_id, 'merge_requests');
        const values = columns.toColumns({ ...DEFAULTS, updated_at: request.created_at, ...request });
        const row = await trx.insertInto('merge_requests').values({ ...values, iid }).returningAll().executeTakeFirstOrThrow();
        await this.setRelations(trx, row.id, relations);
        return toMergeRequest(row);
      }),
      request,
    );
  }

  async findByIid(projectId: number, iid: number): Promise<MergeRequestRecord | undefined> {
    const row = await this.db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
    return row && toMergeRequest(row);
  }

  async findByIds(ids: readonly number[]): Promise<MergeRequestRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('merge_requests').selectAll().where('id', 'in', unique(ids)).execute();
    return rows.map(toMergeRequest);
  }

  async list(filter: MergeRequestListFilter, page: Page): Promise<{ items: MergeRequestRecord[]; total: number }> {
    const query = this.filtered(filter);
    if (!query) return { items: [], total: 0 };
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query
      .selectAll('m')
      .orderBy(`m.${filter.orderBy}`, filter.sort)
      .orderBy('m.id', filter.sort)
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    return { items: rows.map(toMergeRequest), total: Number(counted.total) };
  }

  async openCountsByLabel(labelIds: readonly number[], projectIds: readonly number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    if (labelIds.length === 0 || projectIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('merge_request_labels as ml')
      .innerJoin('merge_requests as m', 'm.id', 'ml.merge_request_id')
      .innerJoin('projects as p', 'p.id', 'm.project_id')
      .select(['ml.label_id', countAll().as('count')])
      .where('ml.label_id', 'in', unique(labelIds))
      .where('m.project_id', 'in', unique(projectIds))
      .where('m.state', 'in', ['opened', 'locked'])
      .where('p.pending_delete', '=', 0)
      .where('p.merge_requests_enabled', '=', 1)
      .groupBy('ml.label_id')
      .execute();
    for (const row of rows) counts.set(row.label_id, Number(row.count));
    return counts;
  }

  async lockedBefore(before: string, limit: number): Promise<MergeRequestRecord[]> {
    const rows = await this.db.selectFrom('merge_requests').selectAll().where('state', '=', 'locked').where('updated_at', '<', before).orderBy('updated_at').orderBy('id').limit(limit).execute();
    return rows.map(toMergeRequest);
  }

  async openBySource(sourceProjectId: number, sourceBranch: string): Promise<MergeRequestRecord[]> {
    const rows = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('source_project_id', '=', sourceProjectId)
      .where('source_branch', '=', sourceBranch)
      .where('state', '=', 'opened')
      .orderBy('id')
      .execute();
    return rows.map(toMergeRequest);
  }

  async openByTarget(projectId: number, targetBranch: string): Promise<MergeRequestRecord[]> {
    const rows = await this.db
      .selectFrom('merge_requests')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('target_branch', '=', targetBranch)
      .where('state', '=', 'opened')
      .orderBy('id')
      .execute();
    return rows.map(toMergeRequest);
  }

  async labelsOf(ids: readonly number[]): Promise<Map<number, LabelRecord[]>> {
    const byRequest = new Map<number, LabelRecord[]>();
    if (ids.length === 0) return byRequest;
    const rows = await this.db
      .selectFrom('merge_request_labels as ml')
      .innerJoin('labels as l', 'l.id', 'ml.label_id')
      .selectAll('l')
      .select('ml.merge_request_id')
      .where('ml.merge_request_id', 'in', unique(ids))
      .orderBy('l.title')
      .orderBy('l.id')
      .execute();
    for (const { merge_request_id: requestId, ...label } of rows) {
      const list = byRequest.get(requestId) ?? [];
      list.push(label);
      byRequest.set(requestId, list);
    }
    return byRequest;
  }

  assigneesOf(ids: readonly number[]): Promise<Map<number, number[]>> {
    return this.usersOf('merge_request_assignees', ids);
  }

  reviewersOf(ids: readonly number[]): Promise<Map<number, number[]>> {
    return this.usersOf('merge_request_reviewers', ids);
  }

  async update(id: number, changes: MergeRequestChanges, relations: MergeRequestRelations): Promise<MergeRequestRecord | undefined> {
    return this.guardPair(() =>
      inTransaction(this.db, async (trx) => {
        const set = columns.toColumns(changes);
        const row =
          Object.keys(set).length === 0
            ? await trx.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirst()
            : await trx
                .updateTable('merge_requests')
                .set((eb) => ({ ...set, lock_version: eb('lock_version', '+', 1) }))
                .where('id', '=', id)
                .returningAll()
                .executeTakeFirst();
        if (!row) return undefined;
        await this.setRelations(trx, id, relations);
        return toMergeRequest(row);
      }),
    );
  }

  async updateIfUnchanged(id: number, lockVersion: number, changes: MergeRequestChanges): Promise<MergeRequestRecord | undefined> {
    const row = await this.db
      .updateTable('merge_requests')
      .set((eb) => ({ ...columns.toColumns(changes), lock_version: eb('lock_version', '+', 1) }))
      .where('id', '=', id)
      .where('lock_version', '=', lockVersion)
      .returningAll()
      .executeTakeFirst();
    return row && toMergeRequest(row);
  }

  /** Also deletes what names the request by type and id: its notes (and their award emoji), award emoji, time logs, subscriptions and todos. */
  async delete(id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const noteIds = trx.selectFrom('notes').select('id').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', id);
      await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'Note').where('awardable_id', 'in', noteIds).execute();
      await trx.deleteFrom('todos').where('note_id', 'in', noteIds).execute();
      await trx.deleteFrom('notes').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', id).execute();
      await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'MergeRequest').where('awardable_id', '=', id).execute();
      await trx.deleteFrom('timelogs').where('issuable_type', '=', 'MergeRequest').where('issuable_id', '=', id).execute();
      await trx.deleteFrom('subscriptions').where('subscribable_type', '=', 'MergeRequest').where('subscribable_id', '=', id).execute();
      await trx.deleteFrom('todos').where('target_type', '=', 'MergeRequest').where('target_id', '=', id).execute();
      const result = await trx.deleteFrom('merge_requests').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** The filter as one query over `merge_requests m` joined with its project `p`; undefined when it can match nothing. */
  private filtered(filter: MergeRequestListFilter) {
    const { projects } = filter;
    if (projects.projectIds?.length === 0 || projects.namespaceIds?.length === 0 || filter.iids?.length === 0) return undefined;
    let query = this.db
      .selectFrom('merge_requests as m')
      .innerJoin('projects as p', 'p.id', 'm.project_id')
      .where('p.pending_delete', '=', 0)
      .where('p.merge_requests_enabled', '=', 1);
    if (projects.projectIds) query = query.where('m.project_id', 'in', unique(projects.projectIds));
    if (projects.namespaceIds) query = query.where('p.namespace_id', 'in', unique(projects.namespaceIds));
    if (projects.visibleScope) {
      const visible = inVisibleProjects(projects.visibleScope);
      if (!visible) return undefined;
      query = query.where(visible);
    }
    if (filter.state) query = query.where('m.state', 'in', filter.state === 'opened' ? ['opened', 'locked'] : [filter.state]);
    if (filter.authorId !== undefined) query = query.where('m.author_id', '=', filter.authorId);
    if (filter.milestoneId !== undefined) query = query.where('m.milestone_id', '=', filter.milestoneId);
    if (filter.iids) query = query.where('m.iid', 'in', unique(filter.iids));
    if (filter.sourceBranch !== undefined) query = query.where('m.source_branch', '=', filter.sourceBranch);
    if (filter.targetBranch !== undefined) query = query.where('m.target_branch', '=', filter.targetBranch);
    if (filter.createdAfter) query = query.where('m.created_at', '>=', filter.createdAfter);
    if (filter.createdBefore) query = query.where('m.created_at', '<=', filter.createdBefore);
    if (filter.updatedAfter) query = query.where('m.updated_at', '>=', filter.updatedAfter);
    if (filter.updatedBefore) query = query.where('m.updated_at', '<=', filter.updatedBefore);
    if (filter.draft !== undefined) query = query.where(filter.draft ? draftTitle() : sql<SqlBool>`not ${draftTitle()}`);
    if (filter.deployed) {
      // One probe of the links, as GitLab's finder joins its deployment filters into one.
      const { environment, finishedBefore, finishedAfter } = filter.deployed;
      let links = this.db.selectFrom('deployment_merge_requests as dm').innerJoin('deployments as d', 'd.id', 'dm.deployment_id').select('dm.merge_request_id');
      if (environment !== undefined) links = links.innerJoin('environments as e', 'e.id', 'dm.environment_id').where('e.name', '=', environment);
      if (finishedBefore !== undefined) links = links.where('d.finished_at', '<', finishedBefore);
      if (finishedAfter !== undefined) links = links.where('d.finished_at', '>', finishedAfter);
      query = query.where('m.id', 'in', links);
    }
    if (filter.linkedIssue) {
      let links = this.db.selectFrom('merge_request_issue_links').select('merge_request_id').where('issue_id', '=', filter.linkedIssue.issueId);
      if (filter.linkedIssue.closing) links = links.where('closes', '=', 1);
      query = query.where('m.id', 'in', links);
    }
    const searched = filter.search === undefined ? undefined : fuzzyMatch(this.db, (filter.searchIn?.length ? filter.searchIn : ['title', 'description']).map((column) => `m.${column}`), filter.search);
    if (searched) query = query.where(searched);
    const { milestone, labels } = filter;
    if (milestone === 'none') query = query.where('m.milestone_id', 'is', null);
    else if (milestone === 'any') query = query.where('m.milestone_id', 'is not', null);
    else if (milestone !== undefined) query = query.where('m.milestone_id', 'in', this.db.selectFrom('milestones').select('id').where('title', '=', milestone));
    const labelLinks = this.db.selectFrom('merge_request_labels').select('merge_request_id');
    if (labels === 'none') query = query.where('m.id', 'not in', labelLinks);
    else if (labels === 'any') query = query.where('m.id', 'in', labelLinks);
    else if (labels !== undefined) {
      // One probe of the request's own labels per title: the work follows the listed requests.
      for (const title of new Set(labels)) {
        query = query.where(({ exists, selectFrom }) =>
          exists(selectFrom('merge_request_labels as ml').innerJoin('labels as l', 'l.id', 'ml.label_id').select('ml.label_id').whereRef('ml.merge_request_id', '=', 'm.id').where('l.title', '=', title)),
        );
      }
    }
    if (filter.reactedBy) {
      const { userId, emoji } = filter.reactedBy;
      let awarded = this.db.selectFrom('award_emoji').select('awardable_id').where('awardable_type', '=', 'MergeRequest').where('user_id', '=', userId);
      if (emoji !== 'none' && emoji !== 'any') awarded = awarded.where('name', '=', emoji);
      query = query.where('m.id', emoji === 'none' ? 'not in' : 'in', awarded);
    }
    for (const [table, wanted] of [['merge_request_assignees', filter.assigneeId], ['merge_request_reviewers', filter.reviewerId]] as const) {
      if (wanted === undefined) continue;
      const links = this.db.selectFrom(table).select('merge_request_id');
      if (wanted === 'none') query = query.where('m.id', 'not in', links);
      else if (wanted === 'any') query = query.where('m.id', 'in', links);
      else query = query.where('m.id', 'in', links.where('user_id', '=', wanted));
    }
    if (filter.not) {
      // `not[...]`: each given filter leaves out the requests it would match (GitLab's negated finder params).
      for (const condition of negatedConditions(MERGE_REQUEST_TABLES, filter.not)) query = query.where(condition);
      const { reviewerId } = filter.not;
      if (reviewerId !== undefined) query = query.where('m.id', 'not in', this.db.selectFrom('merge_request_reviewers').select('merge_request_id').where('user_id', '=', reviewerId));
    }
    return query;
  }

  private async usersOf(table: UserLink, ids: readonly number[]): Promise<Map<number, number[]>> {
    const byRequest = new Map<number, number[]>();
    if (ids.length === 0) return byRequest;
    const rows = await this.db.selectFrom(table).selectAll().where('merge_request_id', 'in', unique(ids)).orderBy('merge_request_id').orderBy('position').execute();
    for (const row of rows) byRequest.set(row.merge_request_id, [...(byRequest.get(row.merge_request_id) ?? []), row.user_id]);
    return byRequest;
  }

  private async setRelations(trx: Db, requestId: number, relations: MergeRequestRelations): Promise<void> {
    if (relations.labelIds) {
      await trx.deleteFrom('merge_request_labels').where('merge_request_id', '=', requestId).execute();
      const labelIds = unique(relations.labelIds);
      if (labelIds.length) await trx.insertInto('merge_request_labels').values(labelIds.map((labelId) => ({ merge_request_id: requestId, label_id: labelId }))).execute();
    }
    await this.setUsers(trx, 'merge_request_assignees', requestId, relations.assigneeIds);
    await this.setUsers(trx, 'merge_request_reviewers', requestId, relations.reviewerIds);
  }

  private async setUsers(trx: Db, table: UserLink, requestId: number, userIds: readonly number[] | undefined): Promise<void> {
    if (!userIds) return;
    await trx.deleteFrom(table).where('merge_request_id', '=', requestId).execute();
    const ordered = unique(userIds);
    if (ordered.length) await trx.insertInto(table).values(ordered.map((userId, position) => ({ merge_request_id: requestId, user_id: userId, position }))).execute();
  }

  /** Turns the one-open-per-branch-pair index's violation into OpenMergeRequestExists. */
  private async guardPair<T>(write: () => Promise<T>, pair?: Pick<NewMergeRequest, 'project_id' | 'target_branch' | 'source_project_id' | 'source_branch'>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = pair?.source_project_id == null ? undefined : await this.db
        .selectFrom('merge_requests')
        .select('iid')
        .where('project_id', '=', pair.project_id)
        .where('target_branch', '=', pair.target_branch)
        .where('source_project_id', '=', pair.source_project_id)
        .where('source_branch', '=', pair.source_branch)
        .where('state', '=', 'opened')
        .executeTakeFirst();
      throw new OpenMergeRequestExists(existing?.iid ?? null);
    }
  }
}
