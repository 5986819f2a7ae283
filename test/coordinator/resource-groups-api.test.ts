import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * GitLab's resource groups API: the groups a project's jobs name are made with the jobs, listed,
 * read by key (URL-encoded when it holds `/`), their process mode changed; the upcoming jobs
 * follow the mode. Developers only; a project one cannot see is 404. No task worker runs here,
 * so every job of a group stays waiting for the resource.
 */
const CI = [
  'workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "push"\n      when: never\n    - when: always',
  'stages: [build, deploy]',
  'compile:\n  stage: build\n  script: [make]\n  resource_group: production',
  'ship:\n  stage: deploy\n  script: [make]\n  resource_group: production',
  // A key naming a variable that names another: expanded nested, as GitLab does (`review/main`).
  'review:\n  stage: build\n  script: [make]\n  variables:\n    REVIEW_KEY: review/$CI_COMMIT_REF_SLUG\n  resource_group: $REVIEW_KEY',
  // Expands to a key GitLab's validations refuse: no group, the job runs outside any.
  'loose:\n  stage: build\n  script: [make]\n  variables:\n    LOOSE_KEY: "not:a:key"\n  resource_group: $LOOSE_KEY',
  '',
].join('\n');

type Group = { id: number; key: string; process_mode: string; created_at: string; updated_at: string };

describe('resource groups API', () => {
  let fixture: RunnerJobsFixture;
  let projectId: number;
  let developer: TestUser;
  let reporter: TestUser;
  let stranger: TestUser;
  const url = (suffix = '') => `/projects/${projectId}/resource_groups${suffix}`;
  const as = (method: string, path: string, user: TestUser | null, body?: unknown) =>
    fixture.gantry.api(method as 'GET', path, { token: user === null ? null : user.token, ...(body === undefined ? {} : { body }) });

  before(async () => {
    fixture = await startRunnerJobsFixture();
    const project = await fixture.ciProject('groups-api', CI, { visibility: 'private' });
    projectId = project.id;
    developer = await makeUser(fixture.gantry, 'rg-developer');
    reporter = await makeUser(fixture.gantry, 'rg-reporter');
    stranger = await makeUser(fixture.gantry, 'rg-stranger');
    await addMember(fixture.gantry, { type: 'project', id: projectId }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: projectId }, reporter.id, 20);
  });
  after(() => fixture.close());

  it('makes the groups when the jobs naming them are created, and lists them paginated', async () => {
    assert.deepEqual((await as('GET', url(), developer)).list, []);
    const first = await fixture.runPipeline(projectId);
    await fixture.runPipeline(projectId);
    const listed = await as('GET', url(), developer);
    assert.equal(listed.status, 200, listed.text);
    const groups = listed.list as unknown as Group[];
    assert.deepEqual(groups.map((group) => [group.key, group.process_mode]), [['production', 'unordered'], ['review/main', 'unordered']]);
    assert.deepEqual(Object.keys(groups[0]!).sort(), ['created_at', 'id', 'key', 'process_mode', 'updated_at']);
    const jobs = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${first}/jobs`);
    assert.equal(jobs.list.find((job) => job.name === 'loose')?.status, 'pending', 'a refused key makes no group');
    const pipeline = await fixture.gantry.api('GET', `/projects/${projectId}/pipelines/${first}`);
    assert.equal(groups[0]!.created_at, pipeline.json.created_at, 'made with the first pipeline');

    const page = await as('GET', `${url()}?per_page=1&page=2`, developer);
    assert.deepEqual(page.list.map((group) => group.key), ['review/main']);
    assert.equal(page.headers['x-total'], '2');
  });

  it('reads a group by its key, URL-encoded when it holds a slash; an unknown key is 404 Not found', async () => {
    const one = await as('GET', url('/review%2Fmain'), developer);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.key, 'review/main');
    assert.equal((await as('GET', url('/production'), developer)).json.key, 'production');
    const missing = await as('GET', url('/staging'), developer);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json, { message: '404 Not found' });
  });

  it('lists the upcoming jobs in the order of the process mode, and changes the mode', async () => {
    const upcoming = async () => (await as('GET', url('/production/upcoming_jobs'), developer)).list.map((job) => `${job.name}@${(job.pipeline as { id: number }).id}`);
    const pipelines = (await fixture.gantry.api('GET', `/projects/${projectId}/pipelines`)).list.map((pipeline) => pipeline.id as number).sort((a, b) => a - b);
    const [older, newer] = pipelines;
    // unordered: the jobs waiting, oldest first (`ship` is still `created`).
    assert.deepEqual(await upcoming(), [`compile@${older}`, `compile@${newer}`]);
    const jobs = await as('GET', url('/production/upcoming_jobs?per_page=1'), developer);
    assert.equal(jobs.headers['x-total'], '2');
    assert.equal(jobs.list[0]?.status, 'waiting_for_resource');
    assert.ok(typeof jobs.list[0]?.web_url === 'string' && typeof jobs.list[0]?.user === 'object', 'the job entity');

    const current = await as('GET', url('/production/current_job'), developer);
    assert.deepEqual([current.status, current.body], [200, null], 'no job holds the resource');

    const before = (await as('GET', url('/production'), developer)).json as Group;
    const changed = await as('PUT', url('/production'), developer, { process_mode: 'newest_first' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.process_mode, 'newest_first');
    assert.equal(changed.json.created_at, before.created_at);
    assert.notEqual(changed.json.updated_at, before.updated_at);
    assert.equal((await as('GET', url('/production'), developer)).json.process_mode, 'newest_first');
    // newest_first: the created jobs too, newest pipeline first, its waiting job before the others.
    assert.deepEqual(await upcoming(), [`compile@${newer}`, `ship@${newer}`, `compile@${older}`, `ship@${older}`]);
    await as('PUT', url('/production'), developer, { process_mode: 'oldest_first' });
    assert.deepEqual(await upcoming(), [`compile@${older}`, `ship@${older}`, `compile@${newer}`, `ship@${newer}`]);
    await as('PUT', url('/production'), developer, { process_mode: 'newest_ready_first' });
    assert.deepEqual(await upcoming(), [`compile@${newer}`, `compile@${older}`]);

    const unchanged = await as('PUT', url('/production'), developer, {});
    assert.equal(unchanged.json.process_mode, 'newest_ready_first');
    const refused = await as('PUT', url('/production'), developer, { process_mode: 'fastest_first' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, { error: 'process_mode does not have a valid value' });
    assert.equal((await as('PUT', url('/staging'), developer, { process_mode: 'oldest_first' })).status, 404);
  });

  it('lets Developers in, refuses Reporters, hides the project from strangers and asks for sign-in', async () => {
    const routes = [['GET', url()], ['GET', url('/production')], ['GET', url('/production/upcoming_jobs')], ['GET', url('/production/current_job')], ['PUT', url('/production')]] as const;
    for (const [method, path] of routes) {
      const body = method === 'PUT' ? { process_mode: 'unordered' } : undefined;
      assert.equal((await as(method, path, reporter, body)).status, 403, `${method} ${path} as a reporter`);
      assert.deepEqual((await as(method, path, stranger, body)).json, { message: '404 Project Not Found' }, `${method} ${path} as a stranger`);
      assert.equal((await as(method, path, null, body)).status, 401, `${method} ${path} signed out`);
    }
    // Access is checked before the key is looked up: a Reporter cannot tell a missing key from an existing one.
    assert.equal((await as('GET', url('/no-such-key'), reporter)).status, 403);
    await fixture.gantry.coordinator.context.stores.projects.update(projectId, { jobs_enabled: false });
    assert.equal((await as('GET', url(), developer)).status, 403, 'nobody while CI is disabled');
    await fixture.gantry.coordinator.context.stores.projects.update(projectId, { jobs_enabled: true });
    assert.equal((await as('GET', url(), developer)).status, 200);
  });
});
