import type { DialectMigration } from './helpers.ts';

/**
 * `ci_signing_key`: one row, the instance's RSA key that signs CI jobs' ID tokens (GitLab's
 * `ci_jwt_signing_key` application setting), PKCS#8 PEM sealed as other secrets are. Written at
 * the first job that needs it, by whichever coordinator gets there first; the others read it.
 */
export const ciSigningKey: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('ci_signing_key')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
