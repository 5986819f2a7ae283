import { partial, withId, type DialectMigration } from './helpers.ts';

/**
 * Merge requests: a source branch (of the target project or of a fork) proposed for a target
 * branch, with their labels, assignees and reviewers, and the pipelines run for them. At most
 * one open request per pair of branches: a partial unique index makes the second create lose
 * under concurrency too.
 */
export const mergeRequests: DialectMigration = {
  async up(db, dialect) {
    // author_id, merge_user_id, merged_by_id and closed_by_id have no foreign key: a removed user's requests stay.
    await withId(db.schema.createTable('merge_requests'), dialect)
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('source_project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
      .addColumn('source_branch', 'text', (c) => c.notNull())
      .addColumn('target_branch', 'text', (c) => c.notNull())
      .addColumn('author_id', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('discussion_locked', 'integer')
      .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
      .addColumn('time_estimate', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total_time_spent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('merge_status', 'text', (c) => c.notNull())
      .addColumn('merge_error', 'text')
      .addColumn('merge_when_pipeline_succeeds', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('merge_user_id', 'integer')
      .addColumn('merge_params', 'text')
      .addColumn('squash', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('force_remove_source_branch', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('should_remove_source_branch', 'integer')
      .addColumn('allow_collaboration', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('head_sha', 'text')
      .addColumn('base_sha', 'text')
      .addColumn('start_sha', 'text')
      .addColumn('head_pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
      .addColumn('merge_commit_sha', 'text')
      .addColumn('squash_commit_sha', 'text')
      .addColumn('merged_at', 'text')
      .addColumn('merged_by_id', 'integer')
      .addColumn('closed_at', 'text')
      .addColumn('closed_by_id', 'integer')
      .addColumn('lock_version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('merge_requests_project_iid', ['project_id', 'iid'])
      .execute();
    await db.schema.createIndex('merge_requests_project_created').on('merge_requests').columns(['project_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('merge_requests_project_updated').on('merge_requests').columns(['project_id', 'updated_at', 'id']).execute();
    await db.schema.createIndex('merge_requests_project_state').on('merge_requests').columns(['project_id', 'state', 'created_at', 'id']).execute();
    await db.schema.createIndex('merge_requests_author').on('merge_requests').columns(['author_id', 'id']).execute();
    await db.schema.createIndex('merge_requests_milestone').on('merge_requests').column('milestone_id').where(partial('milestone_id is not null')).execute();
    await db.schema.createIndex('merge_requests_source').on('merge_requests').columns(['source_project_id', 'source_branch', 'state']).execute();
    await db.schema.createIndex('merge_requests_target').on('merge_requests').columns(['project_id', 'target_branch', 'state']).execute();
    await db.schema
      .createIndex('merge_requests_one_open')
      .on('merge_requests')
      .columns(['project_id', 'target_branch', 'source_project_id', 'source_branch'])
      .unique()
      .where(partial("state = 'opened'"))
      .execute();

    for (const [table, column, references] of [
      ['merge_request_labels', 'label_id', 'labels.id'],
      ['merge_request_assignees', 'user_id', 'users.id'],
      ['merge_request_reviewers', 'user_id', 'users.id'],
    ] as const) {
      await db.schema
        .createTable(table)
        .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
        .addColumn(column, 'integer', (c) => c.notNull().references(references).onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint(`${table}_pk`, ['merge_request_id', column])
        .execute();
      await db.schema.createIndex(`${table}_${column}`).on(table).columns([column, 'merge_request_id']).execute();
    }

    // The merge request a pipeline was run for (source merge_request_event); null for every other pipeline.
    await db.schema.alterTable('ci_pipelines').addColumn('merge_request_id', 'integer', (c) => c.references('merge_requests.id').onDelete('set null')).execute();
    await db.schema.createIndex('ci_pipelines_merge_request').on('ci_pipelines').columns(['merge_request_id', 'id']).where(partial('merge_request_id is not null')).execute();
  },
};
