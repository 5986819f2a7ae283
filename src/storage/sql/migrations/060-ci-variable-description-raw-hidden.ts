import type { DialectMigration } from './helpers.ts';

/**
 * GitLab's later CI variable fields: `description` (null or at most 255 characters, kept in
 * clear: it is not a secret) on project, group and instance variables; `raw` (the runner leaves
 * `$` references unexpanded; the instance's have it since migration 046) and `hidden` (created
 * masked and hidden: no API answer shows the value again, and it stays hidden) on project and
 * group variables. Rows kept before read as GitLab's defaults: no description, not raw, not hidden.
 */
export const ciVariableDescriptionRawHidden: DialectMigration = {
  async up(db) {
    for (const table of ['ci_variables', 'ci_group_variables']) {
      await db.schema.alterTable(table).addColumn('description', 'text').execute();
      await db.schema.alterTable(table).addColumn('raw', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable(table).addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    }
    await db.schema.alterTable('ci_instance_variables').addColumn('description', 'text').execute();
  },
};
