import { columnTypes, type DialectMigration } from './helpers.ts';

/**
 * Where each member of an artifacts archive starts (its local header's offset) and how it is
 * compressed, so one member is opened without reading the archive's central directory. Rows
 * recorded before have NULL in both: their archive is indexed again on first use.
 */
export const artifactMemberLocations: DialectMigration = {
  async up(db, dialect) {
    const types = columnTypes(dialect);
    await db.schema.alterTable('ci_artifact_entries').addColumn('header_offset', types.bigint).execute();
    await db.schema.alterTable('ci_artifact_entries').addColumn('compression', 'integer').execute();
  },
};
