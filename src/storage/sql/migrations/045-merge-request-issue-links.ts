import type { DialectMigration } from './helpers.ts';

/**
 * The durable task that links the requests opened before this migration (the coordinator's
 * `LINK_ISSUES_TASK`): reading their references needs the reference parser and the issues'
 * visibility, which a migration does not have.
 */
const LINK_ISSUES_TASK = 'merge-requests.link-issues';

/**
 * The issues each merge request names in its title or description (GitLab's
 * `merge_requests_closing_issues`, with the plain mentions beside the closing ones): one row
 * per request and issue, `closes` 1 when a closing phrase names it and the request targets the
 * default branch. Read from the issue's side (`closed_by`, `related_merge_requests`).
 */
export const mergeRequestIssueLinks: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('merge_request_issue_links')
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
      .addColumn('closes', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('merge_request_issue_links_pkey', ['merge_request_id', 'issue_id'])
      .execute();
    await db.schema.createIndex('merge_request_issue_links_issue').on('merge_request_issue_links').columns(['issue_id', 'closes', 'merge_request_id']).execute();
    const existing = await db.selectFrom('merge_requests').select('id').limit(1).executeTakeFirst();
    if (!existing) return;
    const now = new Date().toISOString();
    await db
      .insertInto('tasks')
      .values({ kind: LINK_ISSUES_TASK, payload: 'null', status: 'pending', run_at: now, attempts: 0, max_attempts: 5, dedupe_key: LINK_ISSUES_TASK, created_at: now, updated_at: now })
      .execute();
  },
};
