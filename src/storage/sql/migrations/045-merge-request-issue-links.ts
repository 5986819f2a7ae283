import type { DialectMigration } from './helpers.ts';

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
  },
};
