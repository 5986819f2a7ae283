import { sql } from '#deps/kysely';
import { withId, type DialectMigration } from './helpers.ts';

/**
 * Users' secondary e-mail addresses (`/user/emails`), unique case-insensitively among
 * themselves (and, checked by the service, against primary addresses), and the activity
 * events of projects and users (`/events`), one row per push, creation, comment, merge, close.
 */
export const userEmailsAndEvents: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('user_emails'), dialect)
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('confirmed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('user_emails_user').on('user_emails').columns(['user_id', 'id']).execute();
    await db.schema.createIndex('user_emails_email_lower').unique().on('user_emails').expression(sql`lower(email)`).execute();

    await withId(db.schema.createTable('events'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target_type', 'text')
      .addColumn('target_id', 'integer')
      .addColumn('target_iid', 'integer')
      .addColumn('target_title', 'text')
      .addColumn('push_data', 'text')
      .addColumn('note', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('events_author').on('events').columns(['author_id', 'id']).execute();
    await db.schema.createIndex('events_project').on('events').columns(['project_id', 'id']).execute();
  },
};
