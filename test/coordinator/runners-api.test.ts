import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { moveJob, seedPipeline } from '../helpers/ci-pipelines.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * The runners API (spec 02 "Runners") as administrators, project maintainers, developers and
 * strangers see it. Runners are registered through the protocol, as a runner would.
 */
describe('runners API', () => {
  let gantry: TestCoordinator;
  let owner: TestUser; // owns group "team"
  let maint: TestUser; // maintainer of projects app and lib
  let dev: TestUser; // developer of app
  let stranger: TestUser;
  const projects = { app: 0, lib: 0, other: 0 };
  const runners = { shared: 0, sharedPaused: 0, app: 0, appLocked: 0, lib: 0, other: 0, group: 0 };
  let appToken = '';

  const ids = (list: Array<Record<string, unknown>>) => list.map((runner) => runner.id as number).sort((a, b) => a - b);
  const sorted = (...values: number[]) => [...values].sort((a, b) => a - b);

  async function register(token: string, extra: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
    const response = await gantry.api('POST', '/runners', { token: null, body: { token, run_untagged: true, locked: false, active: true, ...extra } });
    assert.equal(response.status, 201, response.text);
    return { id: response.json.id as number, token: response.json.token as string };
  }

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    maint = await makeUser(gantry, 'maint');
    dev = await makeUser(gantry, 'dev');
    stranger = await makeUser(gantry, 'stranger');
    const team = await makeGroup(gantry, 'team', { token: owner.token });
    const elsewhere = await makeGroup(gantry, 'elsewhere');
    const app = await makeProject(gantry, team.id, 'app');
    const lib = await makeProject(gantry, elsewhere.id, 'lib');
    const other = await makeProject(gantry, elsewhere.id, 'other');
    Object.assign(projects, { app: app.id, lib: lib.id, other: other.id });
    await addMember(gantry, { type: 'project', id: app.id }, maint.id, 40);
    await addMember(gantry, { type: 'project', id: lib.id }, maint.id, 40);
    await addMember(gantry, { type: 'project', id: app.id }, dev.id, 30);

    const instance = String((await gantry.api('GET', '/application/settings')).json.runners_registration_token);
    const groupToken = String((await gantry.api('POST', `/groups/${team.id}/runners/reset_registration_token`, { token: owner.token })).json.token);
    runners.shared = (await register(instance, { tag_list: 'docker' })).id;
    runners.sharedPaused = (await register(instance, { active: false })).id;
    const appRunner = await register(app.runners_token, { tag_list: ['ruby', 'docker'], description: 'app runner' });
    runners.app = appRunner.id;
    appToken = appRunner.token;
    runners.appLocked = (await register(app.runners_token, { locked: true })).id;
    runners.lib = (await register(lib.runners_token)).id;
    runners.other = (await register(other.runners_token)).id;
    runners.group = (await register(groupToken)).id;
    // app runner online now; lib runner last heard from three hours ago; the others never.
    assert.equal((await gantry.api('POST', '/runners/verify', { token: null, body: { token: appToken } })).status, 200);
    const threeHoursAgo = new Date(Date.now() - 3 * 3600_000).toISOString();
    await gantry.coordinator.context.stores.runners.update(runners.lib, { contacted_at: threeHoursAgo });
  });
  after(() => gantry.close());

  describe('GET /runners', () => {
    it("lists the caller's runners: projects they maintain, groups they own; never shared ones", async () => {
      const asMaint = await gantry.api('GET', '/runners', { token: maint.token });
      assert.equal(asMaint.status, 200);
      assert.deepEqual(ids(asMaint.list), sorted(runners.app, runners.appLocked, runners.lib));
      assert.equal(asMaint.headers['x-total'], '3');
      const asOwner = await gantry.api('GET', '/runners', { token: owner.token });
      assert.deepEqual(ids(asOwner.list), sorted(runners.app, runners.appLocked, runners.group), 'the group runner and the runners of its projects');
      assert.deepEqual((await gantry.api('GET', '/runners', { token: dev.token })).list, []);
      assert.deepEqual((await gantry.api('GET', '/runners', { token: stranger.token })).list, []);
      assert.equal((await gantry.api('GET', '/runners', { token: null })).status, 401);
    });

    it('answers the summary shape', async () => {
      const entry = (await gantry.api('GET', '/runners?status=online', { token: maint.token })).list[0];
      assert.deepEqual(entry, {
        id: runners.app, description: 'app runner', ip_address: '127.0.0.1', active: true, paused: false, is_shared: false,
        runner_type: 'project_type', name: null, online: true, status: 'online',
      });
    });

    it('filters by status (or its older name scope), type and tags', async () => {
      const list = async (query: string) => ids((await gantry.api('GET', `/runners?${query}`, { token: maint.token })).list);
      assert.deepEqual(await list('status=online'), [runners.app]);
      assert.deepEqual(await list('scope=online'), [runners.app]);
      assert.deepEqual(await list('status=offline'), [runners.lib]);
      assert.deepEqual(await list('status=not_connected'), [runners.appLocked]);
      assert.deepEqual(await list('status=active'), sorted(runners.app, runners.appLocked, runners.lib));
      assert.deepEqual(await list('status=paused'), []);
      assert.deepEqual(await list('scope=active&status=paused'), []);
      assert.deepEqual(await list('type=project_type'), sorted(runners.app, runners.appLocked, runners.lib));
      assert.deepEqual(await list('type=group_type'), []);
      assert.deepEqual(await list('tag_list=ruby'), [runners.app]);
      assert.deepEqual(await list('tag_list[]=ruby&tag_list[]=docker'), [runners.app]);
      assert.deepEqual(await list('tag_list=ruby,go'), []);
    });

    it('refuses values outside the vocabularies with 400', async () => {
      const bad = async (query: string, message: string) => {
        const response = await gantry.api('GET', `/runners?${query}`, { token: maint.token });
        assert.deepEqual([response.status, response.json], [400, { error: message }], query);
      };
      await bad('scope=shared', 'scope does not have a valid value');
      await bad('status=sleeping', 'status does not have a valid value');
      await bad('type=project', 'type does not have a valid value');
      await bad('per_page=x', 'per_page is invalid');
    });
  });

  describe('GET /runners/all', () => {
    it('lists every runner to administrators, by type, legacy scope and status', async () => {
      const list = async (query: string) => ids((await gantry.api('GET', `/runners/all?${query}`)).list);
      assert.deepEqual(await list('per_page=100'), sorted(...Object.values(runners)));
      assert.deepEqual(await list('scope=shared'), sorted(runners.shared, runners.sharedPaused));
      assert.deepEqual(await list('scope=specific'), sorted(runners.app, runners.appLocked, runners.lib, runners.other, runners.group));
      assert.deepEqual(await list('type=group_type'), [runners.group]);
      assert.deepEqual(await list('scope=paused'), [runners.sharedPaused]);
      assert.deepEqual(await list('scope=shared&status=active'), [runners.shared]);
      assert.deepEqual(await list('tag_list=docker'), sorted(runners.shared, runners.app));
      const paused = (await gantry.api('GET', '/runners/all?scope=paused')).list[0];
      assert.deepEqual([paused?.status, paused?.paused, paused?.is_shared], ['not_connected', true, true]);
    });

    it('is for administrators only', async () => {
      assert.deepEqual((await gantry.api('GET', '/runners/all', { token: maint.token })).json, { message: '403 Forbidden' });
      assert.equal((await gantry.api('GET', '/runners/all?scope=everything')).status, 400);
    });
  });

  describe('GET /runners/:id', () => {
    it('shows the details to owners, with the projects they are members of', async () => {
      const response = await gantry.api('GET', `/runners/${runners.app}`, { token: maint.token });
      assert.equal(response.status, 200);
      const detail = response.json;
      for (const key of ['tag_list', 'run_untagged', 'locked', 'maximum_timeout', 'access_level', 'version', 'revision', 'platform', 'architecture', 'contacted_at', 'projects', 'groups']) {
        assert.ok(key in detail, key);
      }
      assert.deepEqual(detail.tag_list, ['docker', 'ruby']);
      assert.deepEqual(detail.projects, [{ id: projects.app, description: '', name: 'app', name_with_namespace: 'team / app', path: 'app', path_with_namespace: 'team/app' }]);
    });

    it('shows shared runners to anyone signed in, others to their owners and administrators only', async () => {
      assert.equal((await gantry.api('GET', `/runners/${runners.shared}`, { token: stranger.token })).status, 200);
      assert.equal((await gantry.api('GET', `/runners/${runners.app}`)).status, 200);
      for (const who of [dev, stranger]) {
        const refused = await gantry.api('GET', `/runners/${runners.app}`, { token: who.token });
        assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden - No access granted' }], who.username);
      }
      assert.equal((await gantry.api('GET', `/runners/${runners.group}`, { token: owner.token })).status, 200);
      assert.equal((await gantry.api('GET', `/runners/${runners.group}`, { token: maint.token })).status, 403);
      assert.equal((await gantry.api('GET', `/runners/${runners.shared}`, { token: null })).status, 401);
    });

    it('answers 404 for unknown runners and 400 for ids that are not integers', async () => {
      assert.deepEqual((await gantry.api('GET', '/runners/999999')).json, { message: '404 Runner Not Found' });
      for (const id of ['abc', '1.5', '99999999999']) {
        const response = await gantry.api('GET', `/runners/${id}`);
        assert.deepEqual([response.status, response.json], [400, { error: 'id is invalid' }], id);
      }
    });
  });

  describe('PUT /runners/:id', () => {
    it('changes a runner for its owner', async () => {
      const response = await gantry.api('PUT', `/runners/${runners.lib}`, {
        token: maint.token,
        body: { description: 'lib runner', tag_list: 'go, rust', run_untagged: false, access_level: 'ref_protected', maximum_timeout: 900, active: false, locked: true },
      });
      assert.equal(response.status, 200);
      const json = response.json;
      assert.deepEqual(
        [json.description, json.tag_list, json.run_untagged, json.access_level, json.maximum_timeout, json.active, json.status, json.locked],
        ['lib runner', ['go', 'rust'], false, 'ref_protected', 900, false, 'paused', true],
      );
      assert.equal((await gantry.api('PUT', `/runners/${runners.lib}`, { token: maint.token, body: { active: true } })).json.status, 'offline');
    });

    it('keeps GitLab model rules and parameter types', async () => {
      const put = (body: unknown) => gantry.api('PUT', `/runners/${runners.lib}`, { token: maint.token, body });
      assert.deepEqual((await put({ tag_list: [] })).json, { message: { tags_list: ['can not be empty when runner is not allowed to pick untagged jobs'] } });
      assert.deepEqual((await put({ maximum_timeout: 60 })).json, { message: { maximum_timeout: ['needs to be at least 10 minutes'] } });
      assert.deepEqual((await put({ access_level: 'all' })).json, { error: 'access_level does not have a valid value' });
      assert.deepEqual((await put({ tag_list: { x: 'y' } })).json, { error: 'tag_list is invalid' });
      assert.deepEqual((await put({ active: 'maybe' })).json, { error: 'active is invalid' });
      const none = await put({});
      assert.equal(none.status, 400);
      assert.match(String(none.json.error), /^description, active, paused, tag_list, run_untagged, locked, access_level, maximum_timeout, maintenance_note are missing/);
      assert.deepEqual((await gantry.api('GET', `/runners/${runners.lib}`)).json.tag_list, ['go', 'rust'], 'nothing was stored');
    });

    it('leaves shared runners to administrators and others to their owners', async () => {
      const shared = await gantry.api('PUT', `/runners/${runners.shared}`, { token: maint.token, body: { description: 'mine' } });
      assert.deepEqual([shared.status, shared.json], [403, { message: '403 Forbidden - Runner is shared' }]);
      assert.equal((await gantry.api('PUT', `/runners/${runners.shared}`, { body: { description: 'shared one' } })).json.description, 'shared one');
      assert.equal((await gantry.api('PUT', `/runners/${runners.app}`, { token: dev.token, body: { description: 'x' } })).status, 403);
      assert.equal((await gantry.api('PUT', '/runners/999999', { body: { description: 'x' } })).status, 404);
    });
  });

  describe('GET /runners/:id/jobs', () => {
    it('lists the jobs the runner took, newest first, by status', async () => {
      const { stores } = gantry.coordinator.context;
      const seeded = await seedPipeline(gantry.coordinator, { projectId: projects.app, userId: maint.id, jobs: [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'build' }, { name: 'idle', stage: 'build' }] });
      for (const name of ['build', 'test']) {
        const job = seeded.jobs[name]!;
        await stores.jobs.update(job.id, { runner_id: runners.app });
        await moveJob(gantry.coordinator, job, 'running');
      }
      await moveJob(gantry.coordinator, seeded.jobs.build!, 'success');

      const all = await gantry.api('GET', `/runners/${runners.app}/jobs`, { token: maint.token });
      assert.equal(all.status, 200);
      assert.deepEqual(all.list.map((job) => [job.name, job.status]), [['test', 'running'], ['build', 'success']]);
      const build = all.list[1]!;
      assert.equal((build.project as Record<string, unknown>).path_with_namespace, 'team/app');
      assert.equal((build.pipeline as Record<string, unknown>).id, seeded.pipeline.id);
      assert.equal((build.user as Record<string, unknown>).username, 'maint');
      assert.equal(typeof build.duration, 'number');
      assert.equal(build.web_url, `http://gantry.test/team/app/-/jobs/${seeded.jobs.build!.id}`);
      const succeeded = await gantry.api('GET', `/runners/${runners.app}/jobs?status=success`, { token: maint.token });
      assert.deepEqual(succeeded.list.map((job) => job.name), ['build']);
      assert.deepEqual((await gantry.api('GET', `/runners/${runners.app}/jobs?status=done`, { token: maint.token })).json, { error: 'status does not have a valid value' });
    });

    it('is for owners; shared runners for administrators', async () => {
      assert.equal((await gantry.api('GET', `/runners/${runners.app}/jobs`, { token: dev.token })).status, 403);
      assert.deepEqual((await gantry.api('GET', `/runners/${runners.shared}/jobs`, { token: maint.token })).json, { message: '403 Forbidden - Runner is shared' });
      assert.deepEqual((await gantry.api('GET', `/runners/${runners.shared}/jobs`)).list, []);
    });
  });

  describe('/projects/:id/runners', () => {
    it("lists the project's runners, its groups' and the shared ones while the project uses them", async () => {
      const list = await gantry.api('GET', `/projects/${projects.app}/runners?per_page=100`, { token: maint.token });
      assert.equal(list.status, 200);
      assert.deepEqual(ids(list.list), sorted(runners.app, runners.appLocked, runners.group, runners.shared, runners.sharedPaused));
      assert.deepEqual(ids((await gantry.api('GET', `/projects/${projects.app}/runners?type=instance_type`, { token: maint.token })).list), sorted(runners.shared, runners.sharedPaused));
      assert.deepEqual(ids((await gantry.api('GET', `/projects/${projects.app}/runners?status=paused`, { token: maint.token })).list), [runners.sharedPaused]);
      await gantry.coordinator.context.stores.projects.update(projects.app, { shared_runners_enabled: false });
      assert.deepEqual(ids((await gantry.api('GET', `/projects/${projects.app}/runners`, { token: maint.token })).list), sorted(runners.app, runners.appLocked, runners.group));
      await gantry.coordinator.context.stores.projects.update(projects.app, { shared_runners_enabled: true });
    });

    it('is for maintainers: developers get 403, strangers 404', async () => {
      assert.equal((await gantry.api('GET', `/projects/${projects.app}/runners`, { token: dev.token })).status, 403);
      assert.deepEqual((await gantry.api('GET', `/projects/${projects.app}/runners`, { token: stranger.token })).json, { message: '404 Project Not Found' });
      assert.equal((await gantry.api('POST', `/projects/${projects.app}/runners/reset_registration_token`, { token: dev.token })).status, 403);
    });

    it('enables a runner the caller owns in another project they maintain', async () => {
      const enabled = await gantry.api('POST', `/projects/${projects.lib}/runners`, { token: maint.token, body: { runner_id: runners.app } });
      assert.equal(enabled.status, 201);
      assert.equal(enabled.json.id, runners.app);
      assert.equal(enabled.json.runner_type, 'project_type');
      const detail = (await gantry.api('GET', `/runners/${runners.app}`)).json;
      assert.deepEqual((detail.projects as Array<{ id: number }>).map((project) => project.id), [projects.app, projects.lib]);
      const again = await gantry.api('POST', `/projects/${projects.lib}/runners`, { token: maint.token, body: { runner_id: runners.app } });
      assert.deepEqual([again.status, again.json], [400, { message: { runner_id: ['has already been taken'] } }]);
    });

    it('refuses shared, group, locked and foreign runners, and bad runner ids', async () => {
      const enable = (runnerId: unknown, token = maint.token) => gantry.api('POST', `/projects/${projects.lib}/runners`, { token, body: { runner_id: runnerId } });
      assert.deepEqual((await enable(runners.shared)).json, { message: '403 Forbidden - Runner is shared' });
      assert.deepEqual((await enable(runners.group)).json, { message: '403 Forbidden - Runner is a group runner' });
      assert.deepEqual((await enable(runners.appLocked)).json, { message: '403 Forbidden - Runner is locked' });
      assert.deepEqual((await enable(runners.other)).json, { message: '403 Forbidden - No access granted' });
      assert.deepEqual((await enable(999999)).json, { message: '404 Runner Not Found' });
      assert.deepEqual((await enable('abc')).json, { error: 'runner_id is invalid' });
      assert.deepEqual((await enable(undefined)).json, { error: 'runner_id is missing' });
      assert.equal((await enable(runners.app, dev.token)).status, 404, 'dev cannot see lib');
      assert.equal((await gantry.api('POST', `/projects/${projects.app}/runners`, { token: dev.token, body: { runner_id: runners.lib } })).status, 403);
      // Administrators may enable a locked runner elsewhere (as in GitLab).
      assert.equal((await gantry.api('POST', `/projects/${projects.other}/runners`, { body: { runner_id: runners.appLocked } })).status, 201);
    });

    it("disables a runner in a project, never in its only one", async () => {
      const only = await gantry.api('DELETE', `/projects/${projects.lib}/runners/${runners.lib}`, { token: maint.token });
      assert.deepEqual([only.status, only.json], [403, { message: '403 Forbidden - Only one project associated with the runner. Please remove the runner instead' }]);
      assert.deepEqual((await gantry.api('DELETE', `/projects/${projects.lib}/runners/${runners.shared}`, { token: maint.token })).json, { message: '404 Runner Not Found' });
      assert.equal((await gantry.api('DELETE', `/projects/${projects.lib}/runners/abc`, { token: maint.token })).status, 400);
      assert.equal((await gantry.api('DELETE', `/projects/${projects.app}/runners/${runners.app}`, { token: dev.token })).status, 403);
      const disabled = await gantry.api('DELETE', `/projects/${projects.lib}/runners/${runners.app}`, { token: maint.token });
      assert.equal(disabled.status, 204);
      const detail = (await gantry.api('GET', `/runners/${runners.app}`)).json;
      assert.deepEqual((detail.projects as Array<{ id: number }>).map((project) => project.id), [projects.app]);
    });
  });

  describe('DELETE /runners/:id', () => {
    it('removes owned runners; shared ones and those of several projects only by administrators', async () => {
      assert.deepEqual((await gantry.api('DELETE', `/runners/${runners.shared}`, { token: maint.token })).json, { message: '403 Forbidden - Runner is shared' });
      // appLocked serves app and other now.
      assert.deepEqual((await gantry.api('DELETE', `/runners/${runners.appLocked}`, { token: maint.token })).json, { message: '403 Forbidden - Runner associated with more than one project' });
      assert.equal((await gantry.api('DELETE', `/runners/${runners.app}`, { token: dev.token })).status, 403);
      assert.equal((await gantry.api('DELETE', `/runners/${runners.app}`, { token: maint.token })).status, 204);
      assert.equal((await gantry.api('GET', `/runners/${runners.app}`)).status, 404);
      assert.equal((await gantry.api('POST', '/runners/verify', { token: null, body: { token: appToken } })).status, 403, 'its token is gone with it');
      assert.equal((await gantry.api('DELETE', `/runners/${runners.appLocked}`)).status, 204);
      assert.equal((await gantry.api('DELETE', `/runners/${runners.shared}`)).status, 204);
      assert.equal((await gantry.api('DELETE', `/runners/${runners.shared}`)).status, 404);
    });
  });
});
