import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextCronRun } from '../../src/coordinator/services/ci/pipelines/schedules.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = `
.base:
  script: make
build:
  extends: .base
  tags: [linux]
nightly:
  extends: .base
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule" && $FLAVOUR == "full"
`;

describe('CI lint and pipeline schedules', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let reporter: { id: number; token: string };

  async function waitForPipeline(predicate: (pipeline: PipelineRecord) => boolean): Promise<PipelineRecord> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const { items } = await gantry.coordinator.context.stores.pipelines.list({ projectId }, { offset: 0, limit: 100 });
      const found = items.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no such pipeline');
  }

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, scheduleIntervalMs: 100 } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'lint', initialize_with_readme: true } });
    projectId = created.json.id as number;
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
    });
    assert.equal(commit.status, 201, commit.text);
    reporter = await gantry.createUser('reporter');
    await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: reporter.id, access_level: 20 } });
  });
  after(() => gantry.close());

  it('POST /ci/lint answers status, errors, warnings and the merged YAML', async () => {
    const valid = await gantry.api('POST', '/ci/lint', { body: { content: CI, include_merged_yaml: true } });
    assert.equal(valid.status, 200, valid.text);
    assert.equal(valid.json.status, 'valid');
    assert.deepEqual(valid.json.errors, []);
    assert.match(String(valid.json.merged_yaml), /build:\n(.*\n)*\s+script: make/);
    const invalid = await gantry.api('POST', '/ci/lint', { body: { content: 'build:\n  scrip: make\n' } });
    assert.equal(invalid.json.status, 'invalid');
    assert.match(String((invalid.json.errors as string[])[0]), /script/);
    assert.equal('merged_yaml' in invalid.json, false);
    // python-gitlab's own example writes Ruby-symbol keys, which GitLab reads as plain names.
    const symbols = await gantry.api('POST', '/ci/lint', { body: { content: '---\n:test_job:\n  :script: echo 1\n', include_merged_yaml: true } });
    assert.deepEqual([symbols.json.status, symbols.json.errors], ['valid', []]);
    assert.match(String(symbols.json.merged_yaml), /^test_job:\n\s+script: echo 1/m);
    // GitLab answers its Ruby dump: a `---` line first, list items level with their key.
    const simple = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content: 'test:\n  stage: test\n  script:\n    - echo 1\n' } });
    assert.equal(simple.json.merged_yaml, '---\ntest:\n  stage: test\n  script:\n  - echo 1\n', simple.text);
    assert.deepEqual((await gantry.api('POST', '/ci/lint', { body: {} })).json, { error: 'content is missing' });
    assert.equal((await gantry.api('POST', '/ci/lint', { token: null, body: { content: CI } })).status, 401);
  });

  it('lints the project file (GET) and given content (POST), with jobs for a dry run', async () => {
    const file = await gantry.api('GET', `/projects/${projectId}/ci/lint`);
    assert.equal(file.json.valid, true, file.text);
    assert.equal('jobs' in file.json, false);
    const dry = await gantry.api('GET', `/projects/${projectId}/ci/lint?dry_run=true`);
    assert.deepEqual((dry.json.jobs as Array<Record<string, unknown>>).map((job) => [job.name, job.tag_list]), [['build', ['linux']]]);
    const posted = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content: 'test:\n  script: [echo]\n  needs: [nope]\n', include_jobs: true } });
    assert.equal(posted.json.valid, false);
    const reporterDry = await gantry.api('GET', `/projects/${projectId}/ci/lint?dry_run=true`, { token: reporter.token });
    assert.deepEqual(reporterDry.json.errors, ['Insufficient permissions to create a new pipeline']);
    assert.equal((await gantry.api('GET', '/projects/999999/ci/lint')).status, 404);
  });

  it('lists the included files with their blob and raw URLs, as GitLab', async () => {
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'shared', actions: [{ action: 'create', file_path: 'ci/shared.yml', content: 'shared:\n  script: echo shared\n' }] },
    });
    assert.equal(commit.status, 201, commit.text);
    const sha = commit.json.id as string;
    const linted = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content: 'include: ci/shared.yml\nown:\n  script: echo own\n' } });
    assert.equal(linted.json.valid, true, linted.text);
    const base = `http://gantry.test/root/lint`;
    assert.deepEqual(linted.json.includes, [{
      type: 'local', location: 'ci/shared.yml', blob: `${base}/-/blob/${sha}/ci/shared.yml`, raw: `${base}/-/raw/${sha}/ci/shared.yml`, extra: {}, context_project: 'root/lint', context_sha: sha,
    }]);
  });

  it('lists a shipped workflow template with its GitLab raw URL and no blob', async () => {
    const content = "include:\n  - template: 'Workflows/Branch-Pipelines.gitlab-ci.yml'\nown:\n  script: echo own\n";
    const linted = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content } });
    assert.equal(linted.json.valid, true, linted.text);
    const includes = linted.json.includes as Array<Record<string, unknown>>;
    assert.deepEqual(includes.map(({ type, location, blob, raw, extra }) => ({ type, location, blob, raw, extra })), [{
      type: 'template',
      location: 'Workflows/Branch-Pipelines.gitlab-ci.yml',
      blob: null,
      raw: 'https://gitlab.com/gitlab-org/gitlab/-/raw/master/lib/gitlab/ci/templates/Workflows/Branch-Pipelines.gitlab-ci.yml',
      extra: {},
    }]);
  });

  it('computes the next cron run in the schedule time zone', () => {
    const after = new Date('2024-01-01T00:00:00Z');
    assert.equal(nextCronRun('0 3 * * *', 'Europe/Berlin', after)?.toISOString(), '2024-01-01T02:00:00.000Z');
    assert.equal(nextCronRun('0 3 * * *', 'UTC', after)?.toISOString(), '2024-01-01T03:00:00.000Z');
    assert.equal(nextCronRun('not a cron', 'UTC', after), null);
  });

  it('runs a due schedule once (source schedule, its variables, owner), moves next_run_at and plays on demand', async () => {
    const { schedules } = gantry.coordinator.context.stores;
    const now = new Date().toISOString();
    const schedule = await schedules.create({
      project_id: projectId, description: 'nightly', ref: 'main', cron: '0 3 * * *', cron_timezone: 'UTC', next_run_at: new Date(Date.now() - 60_000).toISOString(),
      active: true, owner_id: 1, created_at: now, updated_at: now,
    });
    await schedules.createVariable(schedule.id, { key: 'FLAVOUR', value: 'full', variable_type: 'env_var' }, now);
    const pipeline = await waitForPipeline((item) => item.source === 'schedule');
    assert.equal(pipeline.schedule_id, schedule.id);
    assert.equal(pipeline.user_id, 1);
    const { items: jobs } = await gantry.coordinator.context.stores.jobs.list({ pipelineId: pipeline.id }, { offset: 0, limit: 10 });
    assert.deepEqual(jobs.map((job) => job.name).sort(), ['build', 'nightly']);
    const moved = await schedules.findInProject(projectId, schedule.id);
    assert.ok(moved?.next_run_at && Date.parse(moved.next_run_at) > Date.now());
    await new Promise((resolve) => setTimeout(resolve, 400));
    const count = async () => (await gantry.coordinator.context.stores.pipelines.list({ projectId, source: 'schedule' }, { offset: 0, limit: 10 })).total;
    assert.equal(await count(), 1, 'ran once');
    for (let attempt = 0; attempt < 100 && (await schedules.findInProject(projectId, schedule.id))?.last_pipeline_id !== pipeline.id; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await schedules.findInProject(projectId, schedule.id))?.last_pipeline_id, pipeline.id);
    const shown = await gantry.api('GET', `/projects/${projectId}/pipeline_schedules/${schedule.id}`);
    const lastPipeline = shown.json.last_pipeline as Record<string, unknown>;
    assert.deepEqual([lastPipeline.id, lastPipeline.ref, lastPipeline.sha, lastPipeline.source], [pipeline.id, 'main', pipeline.sha, 'schedule']);
    assert.match(String(lastPipeline.web_url), new RegExp(`/-/pipelines/${pipeline.id}$`));

    const play = await gantry.api('POST', `/projects/${projectId}/pipeline_schedules/${schedule.id}/play`);
    assert.equal(play.status, 201, play.text);
    const played = await waitForPipeline((item) => item.source === 'schedule' && item.id !== pipeline.id);
    assert.equal(await count(), 2);
    const created = await gantry.api('GET', `/projects/${projectId}/pipeline_schedules/${schedule.id}/pipelines`);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.list.map((item) => item.id), [played.id, pipeline.id], 'newest first');
    assert.equal(created.headers['x-total'], '2');
    assert.deepEqual(Object.keys(created.list[0]!).sort(), ['created_at', 'id', 'iid', 'project_id', 'ref', 'sha', 'source', 'status', 'updated_at', 'web_url']);
    const ascending = await gantry.api('GET', `/projects/${projectId}/pipeline_schedules/${schedule.id}/pipelines?sort=asc&per_page=1`);
    assert.deepEqual(ascending.list.map((item) => item.id), [pipeline.id]);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/pipeline_schedules/${schedule.id}/pipelines?sort=up`)).status, 400);
    assert.deepEqual((await gantry.api('GET', `/projects/${projectId}/pipeline_schedules/999999/pipelines`)).json, { message: '404 Pipeline Schedule Not Found' });
    assert.deepEqual((await gantry.api('POST', `/projects/${projectId}/pipeline_schedules/999999/play`)).json, { message: '404 Pipeline Schedule Not Found' });
    assert.equal((await gantry.api('POST', `/projects/${projectId}/pipeline_schedules/${schedule.id}/play`, { token: reporter.token })).status, 403);
  });
});
