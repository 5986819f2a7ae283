import type { DialectMigration } from './helpers.ts';

/**
 * The web pages' sign-in: one row per signed-in browser (only a digest of the cookie's
 * secret is kept), and failed sign-ins per login name, for the lock-out.
 */
export const webSessions: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('web_sessions')
      .addColumn('id_digest', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('web_sessions_user_id').on('web_sessions').column('user_id').execute();
    await db.schema.createIndex('web_sessions_expires_at').on('web_sessions').column('expires_at').execute();
    await db.schema
      .createTable('web_sign_in_failures')
      .addColumn('login', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('window_ends_at', 'text', (c) => c.notNull())
      .execute();
  },
};
