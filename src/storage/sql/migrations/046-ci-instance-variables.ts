import { withId, type DialectMigration } from './helpers.ts';

/**
 * The instance's CI variables (GitLab's `ci_instance_variables`, `/admin/ci/variables`): unique
 * by key, no environment scope; `raw` ones are not expanded by the runner. Values are sealed
 * as project and group variables are.
 */
export const ciInstanceVariables: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('ci_instance_variables'), dialect)
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
      .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('masked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('raw', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
