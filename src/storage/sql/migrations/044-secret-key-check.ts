import type { DialectMigration } from './helpers.ts';

/**
 * `gantry_secret_key_check`: one row, a known text sealed with the coordinators' secret key. A
 * coordinator started with another key cannot open it and refuses to start, rather than write
 * secrets the others cannot read (storage/sql/secrets-at-rest.ts). The existing secret columns
 * are sealed after the migrations, at start-up: a migration has no key.
 */
export const secretKeyCheck: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('gantry_secret_key_check')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('sealed', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
