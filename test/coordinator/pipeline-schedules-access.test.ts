import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';

const CI = 'build:\n  script: make\n';

/**
 * Current GitLab's Ci::PipelineSchedulePolicy: playing, creating and editing a schedule take
 * the right to update its ref; a played run is the player's; only the owner edits; only those
 * who administer a schedule read its variables' values.
 */
describe('pipeline schedules: access rules', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let developer: TestUser;
  let otherDeveloper: TestUser;
  let maintainer: TestUser;
  let reporter: TestUser;
  const url = (suffix = '') => `/projects/${projectId}/pipeline_schedules${suffix}`;

  async function createSchedule(user: TestUser, ref: string, variables: Record<string, string> = {}): Promise<number> {
    const created = await gantry.api('POST', url(), { body: { description: `on ${ref}`, ref, cron: '0 3 * * *' }, token: user.token });
    assert.equal(created.status, 201, created.text);
    const id = Number(created.json.id);
    for (const [key, value] of Object.entries(variables)) {
      const variable = await gantry.api('POST', url(`/${id}/variables`), { body: { key, value }, token: user.token });
      assert.equal(variable.status, 201, variable.text);
    }
    return id;
  }

  async function scheduledPipeline(scheduleId: number, seen: ReadonlySet<number>): Promise<PipelineRecord> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const { items } = await gantry.coordinator.context.stores.pipelines.list({ projectId, source: 'schedule' }, { offset: 0, limit: 100 });
      const found = items.find((pipeline) => pipeline.schedule_id === scheduleId && !seen.has(pipeline.id));
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no pipeline of schedule ${scheduleId} within 20 s`);
  }

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, scheduleIntervalMs: 60_000 } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'scheduled', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = Number(created.json.id);
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] },
    });
    assert.equal(commit.status, 201, commit.text);
    for (const branch of ['feature', 'release']) {
      assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/branches`, { body: { branch, ref: 'main' } })).status, 201);
    }
    assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } })).status, 201);
    // `main` came protected (Maintainers), as a project made with a README through the API gets it.
    const protectedMain = await gantry.api('GET', `/projects/${projectId}/protected_branches/main`);
    assert.deepEqual([protectedMain.status, protectedMain.json.push_access_levels], [200, [{ access_level: 40, access_level_description: 'Maintainers' }]], protectedMain.text);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/protected_tags`, { body: { name: 'v*', create_access_level: 40 } })).status, 201);
    developer = await makeUser(gantry, 'schedule-developer');
    otherDeveloper = await makeUser(gantry, 'schedule-other-developer');
    maintainer = await makeUser(gantry, 'schedule-maintainer');
    reporter = await makeUser(gantry, 'schedule-reporter');
    for (const [user, level] of [[developer, 30], [otherDeveloper, 30], [maintainer, 40], [reporter, 20]] as const) {
      await addMember(gantry, { type: 'project', id: projectId }, user.id, level);
    }
  });
  after(() => gantry.close());

  it("refuses a Developer playing a Maintainer's schedule on a protected branch or tag (403), and lets the Maintainer", async () => {
    const onMain = await createSchedule(maintainer, 'main', { DEPLOY_TOKEN: 'secret' });
    const onTag = await createSchedule(maintainer, 'v1');
    for (const scheduleId of [onMain, onTag]) {
      const refused = await gantry.api('POST', url(`/${scheduleId}/play`), { token: developer.token });
      assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }], `schedule ${scheduleId}`);
    }
    const played = await gantry.api('POST', url(`/${onMain}/play`), { token: maintainer.token });
    assert.equal(played.status, 201, played.text);
    const pipeline = await scheduledPipeline(onMain, new Set());
    assert.equal(pipeline.user_id, maintainer.id);
  });

  it("runs a played schedule as its player, not as its owner (as GitLab's RunPipelineScheduleWorker)", async () => {
    const onFeature = await createSchedule(maintainer, 'feature');
    const played = await gantry.api('POST', url(`/${onFeature}/play`), { token: developer.token });
    assert.equal(played.status, 201, played.text);
    const pipeline = await scheduledPipeline(onFeature, new Set());
    assert.equal(pipeline.user_id, developer.id);
    assert.equal(pipeline.ref, 'feature');
  });

  it('refuses creating a schedule for a ref the caller may not update: 400 with GitLab\'s base message', async () => {
    const expected = { message: { base: ['The current user is not authorized to create the pipeline schedule'] } };
    for (const ref of ['main', 'refs/heads/main', 'v1', 'refs/tags/v1']) {
      const refused = await gantry.api('POST', url(), { body: { description: 'mine', ref, cron: '0 3 * * *' }, token: developer.token });
      assert.deepEqual([refused.status, refused.json], [400, expected], ref);
    }
    assert.equal((await gantry.api('POST', url(), { body: { description: 'reporter', ref: 'feature', cron: '0 3 * * *' }, token: reporter.token })).status, 403);
  });

  it('lets only the owner edit (a Maintainer takes it over first), never onto a ref they may not update', async () => {
    const scheduleId = await createSchedule(developer, 'feature', { MODE: 'quick' });
    const moved = await gantry.api('PUT', url(`/${scheduleId}`), { body: { ref: 'main' }, token: developer.token });
    assert.deepEqual([moved.status, moved.json], [400, { message: { base: ['The current user is not authorized to update the pipeline schedule'] } }]);
    const edited = await gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'renamed' }, token: developer.token });
    assert.deepEqual([edited.status, edited.json.description, edited.json.ref], [200, 'renamed', 'feature']);

    // A Maintainer administers it (deletes, takes over) but edits only what they own.
    assert.equal((await gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'theirs' }, token: maintainer.token })).status, 403);
    assert.equal((await gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'EXTRA', value: 'x' }, token: maintainer.token })).status, 403);
    const taken = await gantry.api('POST', url(`/${scheduleId}/take_ownership`), { token: maintainer.token });
    assert.deepEqual([taken.status, (taken.json.owner as Record<string, unknown>).id], [201, maintainer.id]);
    const again = await gantry.api('POST', url(`/${scheduleId}/take_ownership`), { token: maintainer.token });
    assert.deepEqual([again.status, (again.json.owner as Record<string, unknown>).id], [200, maintainer.id]);
    const mine = await gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'theirs', ref: 'main' }, token: maintainer.token });
    assert.deepEqual([mine.status, mine.json.ref], [200, 'main']);
    assert.equal((await gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'back' }, token: developer.token })).status, 403);
  });

  it('stops the owner editing once the ref becomes protected against them (edits and variables 403)', async () => {
    const scheduleId = await createSchedule(developer, 'release');
    const protect = await gantry.api('POST', `/projects/${projectId}/protected_branches`, { body: { name: 'release', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(protect.status, 201, protect.text);
    assert.equal((await gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'still mine?' }, token: developer.token })).status, 403);
    assert.equal((await gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'LATE', value: 'x' }, token: developer.token })).status, 403);
    assert.equal((await gantry.api('POST', url(`/${scheduleId}/play`), { token: developer.token })).status, 403);
  });

  it("shows a schedule's variables only to Maintainers and its owner (reporters and other developers see none)", async () => {
    const scheduleId = await createSchedule(developer, 'feature', { API_KEY: 'hunter2' });
    for (const user of [reporter, otherDeveloper]) {
      const shown = await gantry.api('GET', url(`/${scheduleId}`), { token: user.token });
      assert.equal(shown.status, 200, user.username);
      assert.equal('variables' in shown.json, false, user.username);
      assert.doesNotMatch(shown.text, /hunter2/, user.username);
    }
    for (const user of [developer, maintainer]) {
      const shown = await gantry.api('GET', url(`/${scheduleId}`), { token: user.token });
      assert.deepEqual(shown.json.variables, [{ variable_type: 'env_var', key: 'API_KEY', value: 'hunter2' }], user.username);
    }
  });
});
