import { partial, withId, type DialectMigration } from './helpers.ts';

/**
 * What happens around issues (and, later, merge requests): notes (user and system), award
 * emoji on issues and notes, time logs, subscriptions and todos. Targets are named by a type
 * and an id (`Issue`, `MergeRequest`, `Note`, `Label`), as GitLab's polymorphic tables do, so
 * they carry no foreign key; deleting an issue deletes its rows through the planning services.
 */
export const planningActivity: DialectMigration = {
  async up(db, dialect) {
    // author_id has no foreign key: a removed user's notes stay (GitLab gives them to the ghost user).
    await withId(db.schema.createTable('notes'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('noteable_type', 'text', (c) => c.notNull())
      .addColumn('noteable_id', 'integer', (c) => c.notNull())
      .addColumn('author_id', 'integer', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('system', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('internal', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notes_noteable').on('notes').columns(['noteable_type', 'noteable_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('notes_author').on('notes').columns(['author_id', 'id']).execute();

    await withId(db.schema.createTable('award_emoji'), dialect)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('awardable_type', 'text', (c) => c.notNull())
      .addColumn('awardable_id', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('award_emoji_once', ['awardable_type', 'awardable_id', 'user_id', 'name'])
      .execute();
    await db.schema.createIndex('award_emoji_user').on('award_emoji').columns(['user_id', 'name']).execute();

    await withId(db.schema.createTable('timelogs'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('issuable_type', 'text', (c) => c.notNull())
      .addColumn('issuable_id', 'integer', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull())
      .addColumn('time_spent', 'integer', (c) => c.notNull())
      .addColumn('spent_at', 'text', (c) => c.notNull())
      .addColumn('summary', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('timelogs_issuable').on('timelogs').columns(['issuable_type', 'issuable_id']).execute();

    // subscribed 0 is an explicit unsubscribe: it outranks being a participant (author, assignee, commenter).
    await db.schema
      .createTable('subscriptions')
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('subscribable_type', 'text', (c) => c.notNull())
      .addColumn('subscribable_id', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('subscribed', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('subscriptions_pk', ['subscribable_type', 'subscribable_id', 'user_id'])
      .execute();
    await db.schema.createIndex('subscriptions_user').on('subscriptions').columns(['user_id', 'subscribable_type']).execute();

    await withId(db.schema.createTable('todos'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('author_id', 'integer', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_id', 'integer', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('note_id', 'integer')
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('todos_user_state').on('todos').columns(['user_id', 'state', 'id']).execute();
    await db.schema.createIndex('todos_target').on('todos').columns(['target_type', 'target_id']).execute();
    await db.schema.createIndex('todos_pending_target').on('todos').columns(['user_id', 'target_type', 'target_id']).where(partial("state = 'pending'")).execute();
  },
};
