import { sql } from '#deps/kysely';
import { withId, type DialectMigration } from './helpers.ts';

/**
 * A project's resource groups as records (GitLab's `ci_resource_groups`): one per key its jobs
 * name, made when the first such job is created, with the process mode that decides which job
 * gets the resource next (`unordered` until changed through the API). The groups of the jobs
 * created before are made here, dated by their first job.
 */
export const resourceGroups: DialectMigration = {
  async up(db, dialect) {
    await withId(db.schema.createTable('ci_resource_groups'), dialect)
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('process_mode', 'text', (c) => c.notNull().defaultTo('unordered'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('ci_resource_groups_project_key', ['project_id', 'key'])
      .execute();
    await sql`
      INSERT INTO ci_resource_groups (project_id, key, process_mode, created_at, updated_at)
      SELECT project_id, resource_group, 'unordered', min(created_at), min(created_at) FROM ci_jobs
      WHERE resource_group IS NOT NULL GROUP BY project_id, resource_group
    `.execute(db);
  },
};
