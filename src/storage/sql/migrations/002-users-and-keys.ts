import type { DialectMigration } from './helpers.ts';

/** SSH keys may expire (`expires_at`, a date); keys are listed per user. */
export const usersAndKeys: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('ssh_keys').addColumn('expires_at', 'text').execute();
    await db.schema.createIndex('ssh_keys_user').on('ssh_keys').column('user_id').execute();
    await db.schema.createIndex('gpg_keys_user').on('gpg_keys').column('user_id').execute();
  },
};
