import { partial, type DialectMigration } from './helpers.ts';

/**
 * Each start seals the secrets not yet sealed with the current key (secrets-at-rest.ts), and
 * `ci_jobs.environment_variables` is among them since it holds CI variables' values: the
 * index lists the jobs that have any (those with an environment URL naming a variable), so
 * the pass reads those rows instead of the whole jobs table at every start.
 */
export const jobEnvironmentVariablesIndex: DialectMigration = {
  async up(db) {
    await db.schema
      .createIndex('ci_jobs_environment_variables')
      .on('ci_jobs')
      .column('id')
      .where(partial('environment_variables is not null'))
      .execute();
  },
};
