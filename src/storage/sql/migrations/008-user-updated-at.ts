import { sql } from '#deps/kysely';
import type { DialectMigration } from './helpers.ts';

/** Users get an update time (for `GET /users?order_by=updated_at`); existing users start at their creation. */
export const userUpdatedAt: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('users').addColumn('updated_at', 'text').execute();
    await sql`update users set updated_at = created_at`.execute(db);
  },
};
