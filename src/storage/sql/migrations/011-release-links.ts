import { withId, type DialectMigration } from './helpers.ts';

/** Asset links of releases (`/releases/:tag_name/assets/links`). */
export const releaseLinks: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('release_links'), dialect)
      .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('filepath', 'text')
      .addColumn('link_type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('release_links_release_name', ['release_id', 'name'])
      .addUniqueConstraint('release_links_release_url', ['release_id', 'url'])
      .execute();
  },
};
