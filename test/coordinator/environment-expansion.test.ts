/**
 * A job's `environment:url` and `auto_stop_in` as GitLab expands them: the values kept when the
 * job is created, and their expansion when its deployment succeeds in `Ci::Build#variables`'
 * order (predefined and CI file, dependencies' reports, settings, the job's own report,
 * CI_ENVIRONMENT_NAME and CI_ENVIRONMENT_SLUG; the later wins).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePipeline, type JobDefinition } from '../../src/ci/index.ts';
import { environmentSlug } from '../../src/ci/slug.ts';
import {
  deploymentReports, environmentOptions, expandedAtSuccess, NO_REPORTS, readsReports, type CreationScope, type EnvironmentFields,
} from '../../src/coordinator/services/ci/pipelines/environment-expansion.ts';
import type { DotenvVariableRecord, JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { pushContext } from '../ci/fixture-support.ts';

async function deployJob(environment: string): Promise<JobDefinition> {
  const result = await compilePipeline(`deploy:\n  script: ./deploy\n  environment:\n${environment}\n`, pushContext({ readFile: async () => null }));
  assert.equal(result.status, 'created', JSON.stringify(result.errors));
  const job = result.jobs[0];
  assert.ok(job);
  return job;
}

/** The job row's environment fields as pipeline creation stores them. */
async function created(environment: string, scope: CreationScope): Promise<EnvironmentFields> {
  const definition = await deployJob(environment);
  return { definition, environment: 'review/main', ...environmentOptions('review/main', definition, scope) };
}

const SCOPE: CreationScope = {
  ci: [{ key: 'FROM_FILE', value: 'file' }, { key: 'BOTH', value: 'file' }, { key: 'CI_COMMIT_REF_SLUG', value: 'main' }],
  settings: [{ key: 'FROM_SETTINGS', value: 'settings' }, { key: 'BOTH', value: 'settings' }],
};

describe('environment URL and auto_stop_in expansion', () => {
  it('keeps the values the URL and auto_stop_in name when the job is created, settings marked, the environment\'s own and unknown ones not', async () => {
    const job = await created(
      '    name: review/main\n    url: https://$FROM_FILE.$FROM_SETTINGS.$BOTH.$UNKNOWN.$CI_ENVIRONMENT_SLUG/\n    auto_stop_in: ${CI_COMMIT_REF_SLUG}',
      SCOPE,
    );
    assert.deepEqual(job.environment_variables, [
      { key: 'FROM_FILE', value: 'file' },
      { key: 'FROM_SETTINGS', value: 'settings', settings: true },
      { key: 'BOTH', value: 'settings', settings: true },
      { key: 'CI_COMMIT_REF_SLUG', value: 'main' },
    ]);
    assert.equal(job.environment_url, `https://file.settings.settings.$UNKNOWN.${environmentSlug('review/main')}/`, 'what is known at creation, the rest as written');
    assert.equal(job.environment_auto_stop_in, 'main');
  });

  it('expands at success in GitLab\'s order: CI file < dependencies\' reports < settings < own report < the environment\'s own', async () => {
    const job = await created('    name: review/main\n    url: https://$FROM_FILE.$FROM_SETTINGS.$CI_ENVIRONMENT_NAME.$CI_ENVIRONMENT_SLUG/$LATE', SCOPE);
    assert.equal(expandedAtSuccess(job, NO_REPORTS).url, `https://file.settings.review/main.${environmentSlug('review/main')}/`, 'an unknown variable expands to nothing');

    const overriding = [
      { key: 'FROM_FILE', value: 'dep' }, { key: 'FROM_SETTINGS', value: 'dep' }, { key: 'CI_ENVIRONMENT_NAME', value: 'dep' },
      { key: 'CI_ENVIRONMENT_SLUG', value: 'dep' }, { key: 'LATE', value: 'dep' },
    ];
    assert.equal(
      expandedAtSuccess(job, { dependencies: overriding, own: [] }).url, `https://dep.settings.review/main.${environmentSlug('review/main')}/dep`,
      'a dependency\'s report overrides the CI file\'s variable, not a setting or the environment\'s own',
    );
    assert.equal(
      expandedAtSuccess(job, { dependencies: overriding, own: overriding.map((variable) => ({ ...variable, value: 'own' })) }).url,
      `https://own.own.review/main.${environmentSlug('review/main')}/own`,
      'the job\'s own report overrides all but the environment\'s own',
    );
  });

  it("expands a variable's own references first, with the reports too; a raw one's stay", async () => {
    const scope: CreationScope = {
      ci: [{ key: 'HOST', value: '$DYNAMIC_HOST.$DOMAIN' }, { key: 'DOMAIN', value: 'example.com' }, { key: 'LITERAL', value: '$DOMAIN', raw: true }],
      settings: [],
    };
    const job = await created('    name: review/main\n    url: https://$HOST/$LITERAL', scope);
    assert.deepEqual(job.environment_variables, [
      { key: 'HOST', value: '$DYNAMIC_HOST.$DOMAIN' }, { key: 'LITERAL', value: '$DOMAIN', raw: true }, { key: 'DOMAIN', value: 'example.com' },
    ], 'what the named values name is kept too');
    assert.equal(expandedAtSuccess(job, { dependencies: [], own: [{ key: 'DYNAMIC_HOST', value: 'pr-1' }] }).url, 'https://pr-1.example.com/$DOMAIN');
    assert.equal(
      expandedAtSuccess(job, { dependencies: [], own: [{ key: 'DOMAIN', value: 'apps.$DYNAMIC_HOST.test' }, { key: 'DYNAMIC_HOST', value: 'pr-2' }] }).url,
      'https://pr-2.apps.pr-2.test/$DOMAIN', "a report's value expanded too",
    );
  });

  it('expands auto_stop_in the same way', async () => {
    const job = await created('    name: review/main\n    auto_stop_in: $FROM_FILE', { ci: [{ key: 'FROM_FILE', value: '1 hour' }], settings: [] });
    assert.equal(expandedAtSuccess(job, NO_REPORTS).autoStopIn, '1 hour');
    assert.equal(expandedAtSuccess(job, { dependencies: [{ key: 'FROM_FILE', value: '2 hours' }], own: [] }).autoStopIn, '2 hours');
    assert.equal(expandedAtSuccess(job, NO_REPORTS).url, null, 'no url, none expanded');
  });

  it('reads reports only for a URL or auto_stop_in naming a variable other than the environment\'s own', async () => {
    assert.equal(readsReports(await created('    name: review/main\n    url: https://$CI_ENVIRONMENT_SLUG.example.com/', SCOPE)), false);
    assert.equal(readsReports(await created('    name: review/main\n    url: https://example.com/', SCOPE)), false);
    assert.equal(readsReports(await created('    name: review/main\n    url: https://$FROM_FILE.example.com/', SCOPE)), true, 'a report may override a variable known at creation');
    assert.equal(readsReports(await created('    name: review/main\n    auto_stop_in: $STOP_IN', SCOPE)), true);
  });

  it('expands what a job created before migration 058 kept, as then: the reports fill only what it still names', async () => {
    const job = { ...(await created('    name: review/main\n    url: https://$FROM_FILE.$LATE/', SCOPE)), environment_variables: null };
    assert.equal(job.environment_url, 'https://file.$LATE/');
    assert.equal(readsReports(job), true);
    const reports = { dependencies: [{ key: 'FROM_FILE', value: 'dep' }], own: [{ key: 'LATE', value: 'own' }] };
    assert.equal(expandedAtSuccess(job, reports).url, 'https://file.own/');
    assert.equal(readsReports({ ...job, environment_url: 'https://file.example.com/' }), false, 'fully expanded then: no report read');
  });

  it("reads the reports in one query and the pipeline's builds once, for the jobs that need them only", async () => {
    const result = await compilePipeline(
      `stages: [build, deploy]
build: { stage: build, script: ./build }
review:
  stage: deploy
  script: ./deploy
  environment: { name: review/main, url: "https://$HOST/" }
staging:
  stage: deploy
  script: ./deploy
  environment: { name: staging, url: "https://$HOST/", auto_stop_in: $STOP_IN }
fixed:
  stage: deploy
  script: ./deploy
  environment: { name: fixed, url: "https://$CI_ENVIRONMENT_SLUG.example.com/" }
`,
      pushContext({ readFile: async () => null }),
    );
    const rows = result.jobs.map((definition, index) => jobRow(index + 1, definition));
    const calls = { list: 0, dotenv: [] as number[][] };
    const reports: DotenvVariableRecord[] = [
      { job_id: 1, key: 'HOST', value: 'from-build' }, { job_id: 1, key: 'STOP_IN', value: '1 hour' }, { job_id: 3, key: 'HOST', value: 'from-staging' },
    ];
    const stores = {
      jobs: { list: async () => ((calls.list += 1), { items: rows.filter((row) => row.type === 'build'), total: rows.length }) },
      jobArtifacts: { dotenvVariablesForJobs: async (ids: readonly number[]) => (calls.dotenv.push([...ids]), reports.filter((report) => ids.includes(report.job_id))) },
    };
    const byJob = await deploymentReports(stores, rows.slice(1));
    assert.deepEqual([calls.list, calls.dotenv], [1, [[2, 3, 1]]], 'one read of the builds, one of the reports (the fixed URL reads none)');
    assert.deepEqual([...byJob.keys()], [2, 3]);
    assert.deepEqual(byJob.get(3)?.own.map((variable) => variable.value), ['from-staging']);
    assert.deepEqual(byJob.get(2)?.dependencies.map((variable) => variable.value), ['from-build', '1 hour']);
  });
});

/** A stored job of pipeline 1 as creation saves it (`environment_variables` kept, none known). */
function jobRow(id: number, definition: JobDefinition): JobRecord {
  const environment = definition.environment?.name ?? null;
  return {
    id, pipeline_id: 1, project_id: 1, stage_id: null, stage: definition.stage, stage_idx: definition.stageIndex, name: definition.name, type: 'build',
    status: 'success', when: definition.when, allow_failure: false, retried: false, failure_reason: null, exit_code: null, coverage: null, user_id: null,
    runner_id: null, runner_type: null, tag_list: [], protected: false, ref: 'main', sha: 'a', tag: false, definition, needs: null, retry: null,
    start_in_seconds: null, environment, target_url: null, description: null, created_at: '', queued_at: null, started_at: null, finished_at: null,
    scheduled_at: null, erased_at: null, updated_at: '', artifacts_expire_at: null, trace_size: null, trace_checksum: null, lock_version: 0,
    cancel_gracefully: false, downstream_errors: null, resource_group: null,
    ...environmentOptions(environment, definition, { ci: [], settings: [] }),
  };
}
