import type { DialectMigration } from './helpers.ts';

/**
 * `ci_jobs.environment_variables` (JSON): the variables a job's `environment:url` and
 * `auto_stop_in` name, with the values they had when the job was created, so that its
 * deployment's success expands the URL and `auto_stop_in` as written with them and the dotenv
 * reports in GitLab's order (a report's value over them). Null for jobs created before, whose
 * deployments expand the values kept by migration 053 as they did.
 */
export const jobEnvironmentVariables: DialectMigration = {
  async up(db) {
    await db.schema.alterTable('ci_jobs').addColumn('environment_variables', 'text').execute();
  },
};
