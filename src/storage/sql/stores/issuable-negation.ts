import { sql, type RawBuilder, type SqlBool } from '#deps/kysely';
import type { NegatedIssuableFilter } from '../../types-planning.ts';

/** Where an issuable list finds what `not[...]` names: its alias, link tables and award type. */
export interface IssuableTables {
  alias: 'i' | 'm';
  labelLinks: { table: 'issue_labels' | 'merge_request_labels'; key: 'issue_id' | 'merge_request_id' };
  assigneeLinks: { table: 'issue_assignees' | 'merge_request_assignees'; key: 'issue_id' | 'merge_request_id' };
  awardableType: 'Issue' | 'MergeRequest';
}

export const ISSUE_TABLES: IssuableTables = {
  alias: 'i',
  labelLinks: { table: 'issue_labels', key: 'issue_id' },
  assigneeLinks: { table: 'issue_assignees', key: 'issue_id' },
  awardableType: 'Issue',
};

export const MERGE_REQUEST_TABLES: IssuableTables = {
  alias: 'm',
  labelLinks: { table: 'merge_request_labels', key: 'merge_request_id' },
  assigneeLinks: { table: 'merge_request_assignees', key: 'merge_request_id' },
  awardableType: 'MergeRequest',
};

/**
 * `not[...]` of GitLab's IssuableFinder as conditions over the list's rows (each one leaves out
 * what it names): any of the labels, the milestone of that title (rows without a milestone stay),
 * the timebox wildcards, the author, the assignee, the caller's award, the iids. `today`
 * (`YYYY-MM-DD`) is GitLab's CURRENT_DATE for the wildcards.
 */
export function negatedConditions(tables: IssuableTables, not: NegatedIssuableFilter, today = utcToday()): RawBuilder<SqlBool>[] {
  const column = (name: string) => sql.ref(`${tables.alias}.${name}`);
  const id = column('id');
  const conditions: RawBuilder<SqlBool>[] = [];
  const { labelLinks, assigneeLinks } = tables;
  if (not.labels !== undefined && not.labels.length > 0) {
    const titles = [...new Set(not.labels)];
    conditions.push(sql<SqlBool>`${id} not in (select ${sql.ref(`ll.${labelLinks.key}`)} from ${sql.table(labelLinks.table)} as ll inner join labels as l on l.id = ll.label_id where l.title in (${sql.join(titles)}))`);
  }
  const milestone = column('milestone_id');
  if (not.milestone !== undefined) {
    conditions.push(sql<SqlBool>`(${milestone} is null or ${milestone} not in (select id from milestones where title = ${not.milestone}))`);
  }
  switch (not.milestoneWildcard) {
    case 'none':
      conditions.push(sql<SqlBool>`${milestone} is not null`);
      break;
    case 'any':
      conditions.push(sql<SqlBool>`${milestone} is null`);
      break;
    case 'upcoming':
      // GitLab's Milestone.not_upcoming: an active milestone due today or before.
      conditions.push(sql<SqlBool>`${milestone} in (select id from milestones where state = 'active' and due_date <= ${today})`);
      break;
    case 'started':
      // GitLab's Milestone.not_started: an active milestone starting after today.
      conditions.push(sql<SqlBool>`${milestone} in (select id from milestones where state = 'active' and start_date > ${today})`);
      break;
    default:
      break;
  }
  if (not.authorId !== undefined) conditions.push(sql<SqlBool>`${column('author_id')} <> ${not.authorId}`);
  if (not.assigneeId !== undefined) {
    conditions.push(sql<SqlBool>`${id} not in (select ${sql.ref(assigneeLinks.key)} from ${sql.table(assigneeLinks.table)} where user_id = ${not.assigneeId})`);
  }
  if (not.reactedBy) {
    const { userId, emoji } = not.reactedBy;
    conditions.push(
      sql<SqlBool>`${id} not in (select awardable_id from award_emoji where awardable_type = ${tables.awardableType} and user_id = ${userId} and name = ${emoji})`,
    );
  }
  if (not.iids !== undefined && not.iids.length > 0) conditions.push(sql<SqlBool>`${column('iid')} not in (${sql.join([...new Set(not.iids)])})`);
  return conditions;
}

export const utcToday = (): string => new Date().toISOString().slice(0, 10);
