import type { DialectMigration } from './helpers.ts';

/**
 * The variables of a job's `artifacts:reports:dotenv`, parsed when the report is uploaded
 * (GitLab's `ci_job_variables` with source `dotenv`). They belong to the report's artifact
 * row: when it is replaced, erased or expires, they go with it.
 */
export const dotenvVariables: DialectMigration = {
  async up(db) {
    await db.schema
      .createTable('ci_job_variables')
      .addColumn('artifact_id', 'integer', (c) => c.notNull().references('ci_job_artifacts.id').onDelete('cascade'))
      .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
      // The report's order: a later job's payload lists them as the file did.
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_job_variables_pkey', ['artifact_id', 'position'])
      .execute();
    await db.schema.createIndex('ci_job_variables_job').on('ci_job_variables').columns(['job_id', 'position']).execute();
  },
};
