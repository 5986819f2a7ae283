import type { DialectMigration } from './helpers.ts';

/** Every scope a token can carry; tokens issued before scopes existed keep all of them. */
const ALL_SCOPES = '["api","read_user","read_api","read_repository","write_repository","read_registry","write_registry","sudo"]';

/** Personal and impersonation tokens get scopes, an expiry date and a revoked flag (the tokens API). */
export const tokenDetails: DialectMigration = {
  async up(db) {
    // One column per statement: SQLite's ALTER TABLE adds a single column.
    await db.schema.alterTable('personal_tokens').addColumn('scopes', 'text', (c) => c.notNull().defaultTo(ALL_SCOPES)).execute();
    await db.schema.alterTable('personal_tokens').addColumn('expires_at', 'text').execute();
    await db.schema.alterTable('personal_tokens').addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('personal_tokens').addColumn('impersonation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('personal_tokens_user').on('personal_tokens').column('user_id').execute();
  },
};
