import { sql } from '#deps/kysely';
import { withId, type DialectMigration } from './helpers.ts';

/**
 * Four account additions:
 * - `user_activity_days`: a user's last activity day, apart from the users row, so the write
 *   an API request makes (at most once a day) leaves cached credentials alone; filled from
 *   `users.last_activity_on`, which nothing writes from here on.
 * - `gpg_key_subkeys`: the subkeys of each GPG key (GitLab's table), so a commit signed by a
 *   signing subkey finds its key. Keys stored before this migration have none listed.
 * - `email_addresses`: every primary and secondary address, lower-cased, as a primary key: the
 *   database refuses an address that any user already has, where the services' checks race.
 *   Existing duplicates (possible only from that race) keep the first row's claim.
 * - `events.confidential`: an event of a confidential issue or an internal note, shown only to
 *   those who may see it.
 */
export const activityDaysSubkeysEmailAddresses: DialectMigration = {
  async up(db, dialect) {
    await db.schema
      .createTable('user_activity_days')
      .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('user_activity_days_day').on('user_activity_days').columns(['day', 'user_id']).execute();
    await sql`INSERT INTO user_activity_days (user_id, day) SELECT id, last_activity_on FROM users WHERE last_activity_on IS NOT NULL`.execute(db);

    await withId(db.schema.createTable('gpg_key_subkeys'), dialect)
      .addColumn('gpg_key_id', 'integer', (c) => c.notNull().references('gpg_keys.id').onDelete('cascade'))
      .addColumn('keyid', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
      .execute();
    await db.schema.createIndex('gpg_key_subkeys_key').on('gpg_key_subkeys').column('gpg_key_id').execute();
    await db.schema.createIndex('gpg_key_subkeys_keyid').on('gpg_key_subkeys').column('keyid').execute();

    await db.schema
      .createTable('email_addresses')
      .addColumn('address', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('user_email_id', 'integer', (c) => c.references('user_emails.id').onDelete('cascade'))
      .execute();
    await db.schema.createIndex('email_addresses_user').on('email_addresses').columns(['user_id', 'user_email_id']).execute();
    await sql`INSERT INTO email_addresses (address, user_id, user_email_id) SELECT lower(email), id, NULL FROM users WHERE true ON CONFLICT DO NOTHING`.execute(db);
    await sql`INSERT INTO email_addresses (address, user_id, user_email_id) SELECT lower(email), user_id, id FROM user_emails WHERE true ORDER BY id ON CONFLICT DO NOTHING`.execute(db);

    await db.schema.alterTable('events').addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
