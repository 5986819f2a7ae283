import { sql, type RawBuilder, type SqlBool } from '#deps/kysely';
import type { ConfidentialAccess, IssueProjectScope } from '../../types-planning.ts';

/**
 * The read rules of issue lists as SQL conditions, for any query that joins an issue as `i`
 * and its project as `p` (the issue lists, the todo list): one rule, written once.
 */

const ids = (values: readonly number[]) => sql.join([...new Set(values)]);

/** Issues of the projects the caller reads; null when the scope names none (nothing matches). */
export function inVisibleProjects(visible: NonNullable<IssueProjectScope['visibleScope']>): RawBuilder<SqlBool> | null {
  const alternatives: RawBuilder<unknown>[] = [];
  if (visible.visibilities.length) alternatives.push(sql`${sql.ref('p.visibility')} in (${sql.join([...visible.visibilities])})`);
  if (visible.namespaceIds.length) alternatives.push(sql`${sql.ref('p.namespace_id')} in (${ids(visible.namespaceIds)})`);
  if (visible.projectIds.length) alternatives.push(sql`${sql.ref('p.id')} in (${ids(visible.projectIds)})`);
  return alternatives.length === 0 ? null : sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}

/** A confidential issue shows to its author, its assignees and Reporters and up of its project (or its namespaces). */
export function confidentialVisible(access: ConfidentialAccess): RawBuilder<SqlBool> {
  const alternatives: RawBuilder<unknown>[] = [sql`${sql.ref('i.confidential')} = 0`];
  if (access.userId !== null) {
    alternatives.push(sql`${sql.ref('i.author_id')} = ${access.userId}`);
    alternatives.push(sql`${sql.ref('i.id')} in (select issue_id from issue_assignees where user_id = ${access.userId})`);
  }
  if (access.projectIds.length) alternatives.push(sql`${sql.ref('i.project_id')} in (${ids(access.projectIds)})`);
  if (access.namespaceIds.length) alternatives.push(sql`${sql.ref('p.namespace_id')} in (${ids(access.namespaceIds)})`);
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}
