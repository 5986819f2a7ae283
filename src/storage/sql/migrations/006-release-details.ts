import type { DialectMigration } from './helpers.ts';

/** Releases get a title, a release date and an author (the Releases API). */
export const releaseDetails: DialectMigration = {
  async up(db) {
    // One column per statement: SQLite's ALTER TABLE adds a single column.
    await db.schema.alterTable('releases').addColumn('name', 'text').execute();
    await db.schema.alterTable('releases').addColumn('released_at', 'text').execute();
    await db.schema.alterTable('releases').addColumn('author_id', 'integer').execute();
  },
};
