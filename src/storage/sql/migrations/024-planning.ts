import { partial, withId, type DialectMigration } from './helpers.ts';

/**
 * The planning half: labels and milestones (of a project or of a group), issues with their
 * per-project iid, the labels and assignees of each issue, and the iid counters of groups
 * (group milestones; projects keep theirs in `internal_ids`).
 */
export const planning: DialectMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('group_internal_ids')
      .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('usage', 'text', (c) => c.notNull())
      .addColumn('last_value', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('group_internal_ids_pk', ['group_id', 'usage'])
      .execute();

    await withId(db.schema.createTable('labels'), dialect)
      .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('color', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('priority', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('labels_project_title', ['project_id', 'title'])
      .addUniqueConstraint('labels_group_title', ['group_id', 'title'])
      .execute();
    await db.schema.createIndex('labels_group').on('labels').column('group_id').where(partial('group_id is not null')).execute();

    await withId(db.schema.createTable('milestones'), dialect)
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('due_date', 'text')
      .addColumn('start_date', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('milestones_project_iid', ['project_id', 'iid'])
      .addUniqueConstraint('milestones_group_iid', ['group_id', 'iid'])
      .addUniqueConstraint('milestones_project_title', ['project_id', 'title'])
      .addUniqueConstraint('milestones_group_title', ['group_id', 'title'])
      .execute();

    // author_id has no foreign key: a removed user's issues stay (GitLab gives them to the ghost user).
    await withId(db.schema.createTable('issues'), dialect)
      .addColumn('iid', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('author_id', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('discussion_locked', 'integer')
      .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
      .addColumn('due_date', 'text')
      .addColumn('time_estimate', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('total_time_spent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('closed_at', 'text')
      .addColumn('closed_by_id', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('issues_project_iid', ['project_id', 'iid'])
      .execute();
    await db.schema.createIndex('issues_project_created').on('issues').columns(['project_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('issues_project_updated').on('issues').columns(['project_id', 'updated_at', 'id']).execute();
    await db.schema.createIndex('issues_author').on('issues').columns(['author_id', 'id']).execute();
    await db.schema.createIndex('issues_milestone').on('issues').column('milestone_id').where(partial('milestone_id is not null')).execute();

    await db.schema
      .createTable('issue_labels')
      .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
      .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('issue_labels_pk', ['issue_id', 'label_id'])
      .execute();
    await db.schema.createIndex('issue_labels_label').on('issue_labels').columns(['label_id', 'issue_id']).execute();

    await db.schema
      .createTable('issue_assignees')
      .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('issue_assignees_pk', ['issue_id', 'user_id'])
      .execute();
    await db.schema.createIndex('issue_assignees_user').on('issue_assignees').columns(['user_id', 'issue_id']).execute();
  },
};
