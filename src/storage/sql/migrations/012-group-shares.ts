import { withId, type DialectMigration } from './helpers.ts';

/** Groups shared with groups: members of the invited group reach the shared group and its subgroups. */
export const groupShares: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('group_group_links'), dialect)
      .addColumn('shared_group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('shared_with_group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
      .addColumn('group_access', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('group_group_links_pair', ['shared_group_id', 'shared_with_group_id'])
      .execute();
    await db.schema.createIndex('group_group_links_with').on('group_group_links').column('shared_with_group_id').execute();
  },
};
