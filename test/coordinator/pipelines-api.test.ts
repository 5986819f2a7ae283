import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { startPipelinesFixture, type PipelinesFixture } from './pipelines-fixtures.ts';

/** Listing and reading pipelines: every filter and order of `GET /projects/:id/pipelines`, the two shapes, bad input. */
describe('pipelines API: list and get', () => {
  let fixture: PipelinesFixture;
  let project: ProjectRecord & { headSha: string };
  let other: ProjectRecord & { headSha: string };
  /** By name: main-pending, main-running, feature-success, tag-failed, feature-created, broken. */
  const seeded: Record<string, PipelineRecord> = {};
  let otherPipeline: PipelineRecord;

  const api = (path: string, token?: string | null) => fixture.gantry.api('GET', path, token === undefined ? {} : { token });
  const ids = (list: Array<Record<string, unknown>>) => list.map((item) => item.id);
  const listIds = async (query: string) => {
    const answer = await api(`/projects/${project.id}/pipelines?${query}`);
    assert.equal(answer.status, 200, answer.text);
    return ids(answer.list);
  };

  before(async () => {
    fixture = await startPipelinesFixture();
    project = await fixture.project('listed');
    other = await fixture.project('other');
    const { stores } = fixture.gantry.coordinator.context;
    const twoJobs = [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }];
    seeded.mainPending = (await fixture.seed(project, { ref: 'main', jobs: twoJobs, userId: fixture.developer.id })).pipeline;
    const running = await fixture.seed(project, { ref: 'main', jobs: twoJobs, userId: fixture.maintainer.id });
    seeded.mainRunning = (await moveJob(fixture.gantry.coordinator, running.jobs.build, 'running')).pipeline;
    const succeeded = await fixture.seed(project, { ref: 'feature', jobs: [{ name: 'build', stage: 'build' }], userId: fixture.developer.id });
    await moveJob(fixture.gantry.coordinator, succeeded.jobs.build, 'running');
    seeded.featureSuccess = (await moveJob(fixture.gantry.coordinator, succeeded.jobs.build, 'success')).pipeline;
    const tagged = await fixture.seed(project, { ref: 'v1.0', tag: true, source: 'web', jobs: [{ name: 'build', stage: 'build' }] });
    await moveJob(fixture.gantry.coordinator, tagged.jobs.build, 'running');
    seeded.tagFailed = (await moveJob(fixture.gantry.coordinator, tagged.jobs.build, 'failed', 'script_failure')).pipeline;
    seeded.featureCreated = (await fixture.seed(project, { ref: 'feature', sha: 'c'.repeat(40), source: 'api', jobs: [{ name: 'build', stage: 'build' }], process: false })).pipeline;
    const broken = (await fixture.seed(project, { ref: 'main', source: 'push', jobs: [{ name: 'build', stage: 'build' }], process: false })).pipeline;
    seeded.broken = (await stores.pipelines.update(broken.id, { status: 'failed', yaml_errors: 'jobs config should contain at least one visible job' })) ?? broken;
    // Distinct update times, oldest first in seeding order.
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (const [index, key] of ['mainPending', 'mainRunning', 'featureSuccess', 'tagFailed', 'featureCreated', 'broken'].entries()) {
      seeded[key] = (await stores.pipelines.update(seeded[key].id, { updated_at: new Date(base + index * 60_000).toISOString() })) ?? seeded[key];
    }
    otherPipeline = (await fixture.seed(other, { jobs: [{ name: 'build', stage: 'build' }] })).pipeline;
  });
  after(() => fixture.close());

  const all = () => Object.values(seeded);
  const idsWhere = (keep: (pipeline: PipelineRecord) => boolean, order: 'asc' | 'desc' = 'desc') => {
    const chosen = all().filter(keep).map((pipeline) => pipeline.id).sort((a, b) => a - b);
    return order === 'asc' ? chosen : chosen.reverse();
  };

  it('lists the basic shape, newest first, with pagination headers', async () => {
    const answer = await api(`/projects/${project.id}/pipelines?per_page=2`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-total'], '6');
    assert.equal(answer.headers['x-total-pages'], '3');
    assert.equal(answer.headers['x-per-page'], '2');
    assert.equal(answer.headers['x-next-page'], '2');
    assert.match(String(answer.headers.link), /rel="next"/);
    const [first] = answer.list;
    const newest = seeded.broken;
    assert.deepEqual(first, {
      id: newest.id, iid: newest.iid, project_id: project.id, sha: newest.sha, ref: 'main', status: 'failed', source: 'push',
      created_at: newest.created_at, updated_at: newest.updated_at, web_url: `http://gantry.test/ci1/listed/-/pipelines/${newest.id}`,
    });
    assert.deepEqual(ids(answer.list), idsWhere(() => true).slice(0, 2));
    assert.ok(!ids((await api(`/projects/${project.id}/pipelines?per_page=100`)).list).includes(otherPipeline.id), 'only the project\'s own pipelines');
  });

  it('filters by scope', async () => {
    assert.deepEqual(await listIds('scope=running'), [seeded.mainRunning.id]);
    assert.deepEqual(await listIds('scope=pending'), [seeded.mainPending.id]);
    assert.deepEqual(await listIds('scope=finished'), idsWhere((p) => ['success', 'failed', 'canceled', 'skipped'].includes(p.status)));
    // The latest pipeline of each branch, and of each tag.
    assert.deepEqual(await listIds('scope=branches'), [seeded.broken.id, seeded.featureCreated.id]);
    assert.deepEqual(await listIds('scope=tags'), [seeded.tagFailed.id]);
  });

  it('filters by status, ref, sha, yaml_errors and source', async () => {
    assert.deepEqual(await listIds('status=failed'), [seeded.broken.id, seeded.tagFailed.id]);
    assert.deepEqual(await listIds('status=created'), [seeded.featureCreated.id]);
    assert.deepEqual(await listIds('status=waiting_for_resource'), [], 'a GitLab status Gantry never stores matches nothing');
    assert.deepEqual(await listIds('ref=feature'), [seeded.featureCreated.id, seeded.featureSuccess.id]);
    assert.deepEqual(await listIds('ref=nope'), []);
    assert.deepEqual(await listIds(`sha=${'c'.repeat(40)}`), [seeded.featureCreated.id]);
    assert.deepEqual(await listIds('yaml_errors=true'), [seeded.broken.id]);
    assert.deepEqual(await listIds('yaml_errors=false'), idsWhere((p) => p.id !== seeded.broken.id));
    assert.deepEqual(await listIds('source=web'), [seeded.tagFailed.id]);
    assert.deepEqual(await listIds('source=api'), [seeded.featureCreated.id]);
  });

  it('filters by the user who ran the pipeline: username (any case) and name', async () => {
    const byDeveloper = [seeded.featureSuccess.id, seeded.mainPending.id];
    assert.deepEqual(await listIds(`username=${fixture.developer.username}`), byDeveloper);
    assert.deepEqual(await listIds(`username=${fixture.developer.username.toUpperCase()}`), byDeveloper);
    assert.deepEqual(await listIds(`name=${encodeURIComponent('maintainer person')}`), [seeded.mainRunning.id]);
    assert.deepEqual(await listIds('username=nobody'), []);
  });

  it('filters by creation time, bounds excluded', async () => {
    const all = (await api(`/projects/${project.id}/pipelines`)).list.map((pipeline) => ({ id: pipeline.id, created: String(pipeline.created_at) }));
    const middle = [...all].sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0))[Math.floor(all.length / 2)]!.created;
    const after = all.filter((pipeline) => pipeline.created > middle).map((pipeline) => pipeline.id);
    const before = all.filter((pipeline) => pipeline.created < middle).map((pipeline) => pipeline.id);
    assert.ok(after.length > 0 && before.length > 0, 'pipelines on both sides');
    assert.deepEqual(await listIds(`created_after=${middle}`), after);
    assert.deepEqual(await listIds(`created_before=${middle}`), before);
    assert.deepEqual(await listIds('created_after=2999-01-01T00:00:00Z'), []);
  });

  it('filters by update time, bounds excluded', async () => {
    const third = seeded.featureSuccess.updated_at;
    assert.deepEqual(await listIds(`updated_before=${third}`), [seeded.mainRunning.id, seeded.mainPending.id]);
    assert.deepEqual(await listIds(`updated_after=${third}`), [seeded.broken.id, seeded.featureCreated.id, seeded.tagFailed.id]);
    assert.deepEqual(await listIds(`updated_after=${seeded.mainPending.updated_at}&updated_before=${seeded.tagFailed.updated_at}`), [seeded.featureSuccess.id, seeded.mainRunning.id]);
  });

  it('orders by id, status, ref, updated_at and user_id, both ways', async () => {
    assert.deepEqual(await listIds('order_by=id&sort=asc'), idsWhere(() => true, 'asc'));
    assert.deepEqual(await listIds('sort=asc'), idsWhere(() => true, 'asc'));
    const sortedBy = (key: (p: PipelineRecord) => string | number, order: 'asc' | 'desc') => {
      const sign = order === 'asc' ? 1 : -1;
      return [...all()].sort((a, b) => sign * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id)).map((p) => p.id);
    };
    for (const order of ['asc', 'desc'] as const) {
      assert.deepEqual(await listIds(`order_by=status&sort=${order}`), sortedBy((p) => p.status, order), `status ${order}`);
      assert.deepEqual(await listIds(`order_by=ref&sort=${order}`), sortedBy((p) => p.ref, order), `ref ${order}`);
      assert.deepEqual(await listIds(`order_by=updated_at&sort=${order}`), sortedBy((p) => p.updated_at, order), `updated_at ${order}`);
    }
    // user_id: pipelines without a user, then by user id (SQL orders NULLs differently, so compare the users only).
    const withUsers = (await listIds('order_by=user_id&sort=asc')).filter((id) => all().find((p) => p.id === id)?.user_id !== null);
    assert.deepEqual(withUsers, sortedBy((p) => p.user_id ?? 0, 'asc').filter((id) => all().find((p) => p.id === id)?.user_id !== null));
  });

  it('answers bad list parameters with 400 and GitLab\'s message', async () => {
    const cases: Array<[string, string]> = [
      ['scope=everything', 'scope does not have a valid value'],
      ['status=green', 'status does not have a valid value'],
      ['order_by=name', 'order_by does not have a valid value'],
      ['sort=up', 'sort does not have a valid value'],
      ['source=carrier-pigeon', 'source does not have a valid value'],
      ['yaml_errors=perhaps', 'yaml_errors is invalid'],
      ['updated_before=yesterday', 'updated_before is invalid'],
      ['updated_after=2026-13-45T99:00:00Z', 'updated_after is invalid'],
      ['page=two', 'page is invalid'],
    ];
    for (const [query, error] of cases) {
      const answer = await api(`/projects/${project.id}/pipelines?${query}`);
      assert.equal(answer.status, 400, query);
      assert.deepEqual(answer.json, { error }, query);
    }
  });

  it('gets a pipeline with the detailed fields', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const pipeline = (await stores.pipelines.update(seeded.featureSuccess.id, { coverage: '87.5' })) ?? seeded.featureSuccess;
    const answer = await api(`/projects/${project.id}/pipelines/${pipeline.id}`);
    assert.equal(answer.status, 200);
    const developer = (await stores.users.findById(fixture.developer.id))!;
    assert.deepEqual(answer.json, {
      id: pipeline.id, iid: pipeline.iid, project_id: project.id, sha: project.headSha, ref: 'feature', status: 'success', source: 'push',
      created_at: pipeline.created_at, updated_at: pipeline.updated_at, web_url: `http://gantry.test/ci1/listed/-/pipelines/${pipeline.id}`,
      name: null, before_sha: '0'.repeat(40), tag: false, yaml_errors: null,
      user: { id: developer.id, name: developer.name, username: developer.username, state: 'active', avatar_url: developer.avatar_url, web_url: `http://gantry.test/${developer.username}` },
      started_at: pipeline.started_at, finished_at: pipeline.finished_at, committed_at: null, duration: pipeline.duration,
      queued_duration: answer.json.queued_duration, coverage: '87.50',
      detailed_status: {
        icon: 'status_success', text: 'passed', label: 'passed', group: 'success', tooltip: 'passed', has_details: true,
        details_path: `/ci1/listed/-/pipelines/${pipeline.id}`, illustration: null, favicon: '/assets/ci_favicons/favicon_status_success.png',
      },
    });
    assert.ok(pipeline.started_at && pipeline.finished_at && typeof pipeline.duration === 'number');
    const queued = answer.json.queued_duration;
    assert.ok(queued === null || (typeof queued === 'number' && queued > 0), 'queued_duration: seconds before the start, null when none');
  });

  it('gets yaml_errors, the tag flag and a null user', async () => {
    const broken = (await api(`/projects/${project.id}/pipelines/${seeded.broken.id}`)).json;
    assert.equal(broken.yaml_errors, 'jobs config should contain at least one visible job');
    assert.equal(broken.status, 'failed');
    const tagged = (await api(`/projects/${project.id}/pipelines/${seeded.tagFailed.id}`)).json;
    assert.equal(tagged.tag, true);
    assert.equal(tagged.user, null);
    assert.equal(tagged.yaml_errors, null);
  });

  it('computes detailed_status from the status, passed with warnings included', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const expected: Record<string, [string, string, string, string]> = {
      created: ['status_created', 'created', 'created', 'created'],
      pending: ['status_pending', 'pending', 'pending', 'pending'],
      running: ['status_running', 'running', 'running', 'running'],
      success: ['status_success', 'passed', 'passed', 'success'],
      failed: ['status_failed', 'failed', 'failed', 'failed'],
      canceled: ['status_canceled', 'canceled', 'canceled', 'canceled'],
      skipped: ['status_skipped', 'skipped', 'skipped', 'skipped'],
      manual: ['status_manual', 'blocked', 'waiting for manual action', 'manual'],
      scheduled: ['status_scheduled', 'delayed', 'waiting for delayed job', 'scheduled'],
    };
    const target = seeded.featureCreated;
    for (const [status, [icon, text, label, group]] of Object.entries(expected)) {
      await stores.pipelines.update(target.id, { status: status as PipelineRecord['status'], has_warnings: false });
      const detailed = (await api(`/projects/${project.id}/pipelines/${target.id}`)).json.detailed_status as Record<string, unknown>;
      assert.deepEqual([detailed.icon, detailed.text, detailed.label, detailed.group, detailed.tooltip], [icon, text, label, group, label], status);
      assert.equal(detailed.favicon, `/assets/ci_favicons/favicon_status_${status}.png`);
    }
    await stores.pipelines.update(target.id, { status: 'created' });
  });

  it('shows passed with warnings for a success with an allowed failure', async () => {
    const seededWarn = await fixture.seed(project, { jobs: [{ name: 'lint', stage: 'test', allowFailure: true }, { name: 'unit', stage: 'test' }] });
    const { coordinator } = fixture.gantry;
    for (const name of ['lint', 'unit']) await moveJob(coordinator, seededWarn.jobs[name], 'running');
    await moveJob(coordinator, seededWarn.jobs.lint, 'failed', 'script_failure');
    await moveJob(coordinator, seededWarn.jobs.unit, 'success');
    const answer = (await api(`/projects/${project.id}/pipelines/${seededWarn.pipeline.id}`)).json;
    assert.equal(answer.status, 'success');
    assert.deepEqual(answer.detailed_status, {
      icon: 'status_warning', text: 'passed', label: 'passed with warnings', group: 'success_with_warnings', tooltip: 'passed with warnings',
      has_details: true, details_path: `/ci1/listed/-/pipelines/${seededWarn.pipeline.id}`, illustration: null, favicon: '/assets/ci_favicons/favicon_status_success.png',
    });
    await fixture.gantry.coordinator.context.stores.pipelines.delete(seededWarn.pipeline.id);
  });

  it('answers unknown, foreign and malformed pipeline ids as GitLab does', async () => {
    for (const suffix of ['', '/jobs', '/variables', '/bridges']) {
      const unknown = await api(`/projects/${project.id}/pipelines/999999${suffix}`);
      assert.equal(unknown.status, 404, suffix);
      assert.deepEqual(unknown.json, { message: '404 Not found' }, suffix);
      const foreign = await api(`/projects/${project.id}/pipelines/${otherPipeline.id}${suffix}`);
      assert.equal(foreign.status, 404, `a pipeline of another project${suffix}`);
      assert.deepEqual(foreign.json, { message: '404 Not found' });
      const malformed = await api(`/projects/${project.id}/pipelines/abc${suffix}`);
      assert.equal(malformed.status, 400, suffix);
      assert.deepEqual(malformed.json, { error: 'pipeline_id is invalid' });
    }
    for (const [method, path] of [['POST', 'retry'], ['POST', 'cancel']] as const) {
      const unknown = await fixture.gantry.api(method, `/projects/${project.id}/pipelines/999999/${path}`);
      assert.equal(unknown.status, 404, path);
      assert.deepEqual(unknown.json, { message: '404 Not found' });
    }
    const deleted = await fixture.gantry.api('DELETE', `/projects/${project.id}/pipelines/${otherPipeline.id}`);
    assert.equal(deleted.status, 404);
    assert.ok(await fixture.gantry.coordinator.context.stores.pipelines.findById(otherPipeline.id), 'the other project\'s pipeline stays');
    const noProject = await api('/projects/999999/pipelines');
    assert.equal(noProject.status, 404);
    assert.deepEqual(noProject.json, { message: '404 Project Not Found' });
  });

  it('answers the newest pipeline of a ref\'s current commit at /pipelines/latest', async () => {
    const latest = await api(`/projects/${project.id}/pipelines/latest`);
    assert.equal(latest.status, 200, latest.text);
    const newestOfMain = idsWhere((p) => p.ref === 'main' && p.sha === project.headSha)[0];
    assert.equal(latest.json.id, newestOfMain, 'the default branch without ref');
    assert.equal(typeof latest.json.detailed_status, 'object', 'the single pipeline shape');
    assert.equal((await api(`/projects/${project.id}/pipelines/latest?ref=main`)).json.id, newestOfMain);
    // `feature` has no commit of its own in the repository: GitLab finds no pipeline, and answers 403.
    assert.equal((await api(`/projects/${project.id}/pipelines/latest?ref=feature`)).status, 403);
    assert.equal((await api(`/projects/${project.id}/pipelines/latest?ref=nope`)).status, 403);
    assert.equal((await api(`/projects/${project.id}/pipelines/latest`, fixture.stranger.token)).json.id, newestOfMain, 'a public project\'s pipelines are public');
    const hidden = await fixture.project('hidden-latest', { visibility: 'private' });
    await fixture.seed(hidden, { ref: 'main', jobs: [{ name: 'build', stage: 'build' }] });
    assert.equal((await api(`/projects/${hidden.id}/pipelines/latest`)).status, 200);
    assert.equal((await api(`/projects/${hidden.id}/pipelines/latest`, fixture.stranger.token)).status, 404, 'a private project stays hidden');
  });

  it('reads a project by its URL-encoded path', async () => {
    const answer = await api(`/projects/${encodeURIComponent('ci1/listed')}/pipelines/${seeded.mainPending.id}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.json.id, seeded.mainPending.id);
  });
});
