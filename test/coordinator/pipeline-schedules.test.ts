import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nextRunAt } from '../../src/shared/cron-schedule.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

describe('pipeline schedules API', () => {
  let fx: CiSettingsFixture;
  let otherDeveloper: TestUser;
  let scheduleId: number;
  const url = (suffix = '') => `/projects/${fx.project.id}/pipeline_schedules${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
    otherDeveloper = await makeUser(fx.gantry, 'other-developer');
    await addMember(fx.gantry, { type: 'project', id: fx.project.id }, otherDeveloper.id, 30);
  });
  after(() => fx.close());

  it('lets a Developer create a schedule they own, with next_run_at in its time zone', async () => {
    const before = new Date();
    const body = { description: 'Nightly build', ref: 'main', cron: '30 2 * * *', cron_timezone: 'Asia/Tokyo', active: true };
    const created = await fx.gantry.api('POST', url(), { body, token: fx.developer.token });
    assert.equal(created.status, 201, created.text);
    scheduleId = Number(created.json.id);
    const { owner, next_run_at: nextRun, created_at: createdAt, updated_at: updatedAt, ...rest } = created.json;
    assert.deepEqual(rest, { id: scheduleId, ...body, last_pipeline: null, variables: [] });
    assert.equal((owner as Record<string, unknown>).id, fx.developer.id);
    assert.equal(updatedAt, createdAt);
    // 02:30 in Tokyo is 17:30 UTC; the next one after the request.
    const expected = nextRunAt('30 2 * * *', 'Asia/Tokyo', before)!;
    assert.match(String(nextRun), /T17:30:00\.000Z$/);
    assert.ok(Math.abs(Date.parse(String(nextRun)) - expected.getTime()) <= 24 * 3600 * 1000);
    assert.ok(Date.parse(String(nextRun)) > before.getTime());
  });

  it('defaults cron_timezone to UTC and active to true', async () => {
    const created = await fx.gantry.api('POST', url(), { form: { description: 'Hourly', ref: 'main', cron: '0 * * * *' }, token: fx.maintainer.token });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.json.cron_timezone, created.json.active], ['UTC', true]);
    assert.match(String(created.json.next_run_at), /T\d\d:00:00\.000Z$/);
  });

  it('refuses missing parameters, bad cron expressions and unknown time zones', async () => {
    const base = { description: 'x', ref: 'main', cron: '0 1 * * *' };
    for (const name of ['description', 'ref', 'cron'] as const) {
      const { [name]: _dropped, ...body } = base;
      const refused = await fx.gantry.api('POST', url(), { body });
      assert.deepEqual([refused.status, refused.json], [400, { error: `${name} is missing` }]);
    }
    for (const cron of ['not a cron', '61 * * * *', '0 1 * * * *', '* * *']) {
      const refused = await fx.gantry.api('POST', url(), { body: { ...base, cron } });
      assert.deepEqual([refused.status, refused.json], [400, { message: { cron: [' is invalid syntax'] } }], cron);
    }
    for (const zone of ['Mars/Olympus_Mons', 'Europe/Nowhere', ' ']) {
      const refused = await fx.gantry.api('POST', url(), { body: { ...base, cron_timezone: zone } });
      assert.equal(refused.status, 400, zone);
      assert.deepEqual(refused.json.message, { cron_timezone: zone.trim() === '' ? ["can't be blank"] : [' is invalid syntax'] }, zone);
    }
    const badActive = await fx.gantry.api('POST', url(), { body: { ...base, active: 'maybe' } });
    assert.deepEqual([badActive.status, badActive.json], [400, { error: 'active is invalid' }]);
    const badEdit = await fx.gantry.api('PUT', url(`/${scheduleId}`), { body: { cron_timezone: 'Nowhere/City' }, token: fx.developer.token });
    assert.deepEqual([badEdit.status, badEdit.json], [400, { message: { cron_timezone: [' is invalid syntax'] } }]);
  });

  it('lists with scope active or inactive, paginated', async () => {
    const paused = await fx.gantry.api('POST', url(), { body: { description: 'Paused', ref: 'main', cron: '0 3 * * 1', active: false } });
    assert.equal(paused.json.active, false);
    const all = await fx.gantry.api('GET', url(), { token: fx.reporter.token });
    assert.deepEqual([all.status, all.headers['x-total'], all.list.map((schedule) => schedule.description)], [200, '3', ['Nightly build', 'Hourly', 'Paused']]);
    assert.equal('variables' in all.list[0]!, false);
    const active = await fx.gantry.api('GET', url('?scope=active'));
    assert.deepEqual(active.list.map((schedule) => schedule.description), ['Nightly build', 'Hourly']);
    const inactive = await fx.gantry.api('GET', url('?scope=inactive'));
    assert.deepEqual(inactive.list.map((schedule) => schedule.description), ['Paused']);
    const page = await fx.gantry.api('GET', url('?per_page=1&page=2'));
    assert.deepEqual([page.headers['x-total'], page.list.map((schedule) => schedule.description)], ['3', ['Hourly']]);
    const badScope = await fx.gantry.api('GET', url('?scope=running'));
    assert.deepEqual([badScope.status, badScope.json], [400, { error: 'scope does not have a valid value' }]);
  });

  it('edits a schedule (next_run_at follows the new cron) as its owner', async () => {
    const edited = await fx.gantry.api('PUT', url(`/${scheduleId}`), {
      body: { description: 'Weekly build', ref: 'release', cron: '0 6 * * 1', cron_timezone: 'UTC', active: false },
      token: fx.developer.token,
    });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual([edited.json.description, edited.json.ref, edited.json.cron, edited.json.cron_timezone, edited.json.active], ['Weekly build', 'release', '0 6 * * 1', 'UTC', false]);
    const next = new Date(String(edited.json.next_run_at));
    assert.deepEqual([next.getUTCDay(), next.getUTCHours(), next.getUTCMinutes()], [1, 6, 0]);
    const one = await fx.gantry.api('GET', url(`/${scheduleId}`), { token: fx.reporter.token });
    assert.deepEqual([one.status, one.json.description, one.json.last_pipeline], [200, 'Weekly build', null]);
  });

  it('manages schedule variables: create (201), edit, delete (202 with the variable)', async () => {
    const created = await fx.gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'DEPLOY_TO', value: 'staging' }, token: fx.developer.token });
    assert.deepEqual([created.status, created.json], [201, { variable_type: 'env_var', key: 'DEPLOY_TO', value: 'staging' }]);
    const file = await fx.gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'CONFIG', value: 'a=b', variable_type: 'file' } });
    assert.deepEqual(file.json, { variable_type: 'file', key: 'CONFIG', value: 'a=b' });
    const duplicate = await fx.gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'DEPLOY_TO', value: 'x' } });
    assert.deepEqual([duplicate.status, duplicate.json], [400, { message: { key: ['(DEPLOY_TO) has already been taken'] } }]);
    const badKey = await fx.gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'no-dash', value: 'x' } });
    assert.deepEqual([badKey.status, badKey.json], [400, { message: { key: ["can contain only letters, digits and '_'."] } }]);
    const edited = await fx.gantry.api('PUT', url(`/${scheduleId}/variables/DEPLOY_TO`), { body: { value: 'production' } });
    assert.deepEqual([edited.status, edited.json], [200, { variable_type: 'env_var', key: 'DEPLOY_TO', value: 'production' }]);
    const details = await fx.gantry.api('GET', url(`/${scheduleId}`));
    assert.deepEqual(details.json.variables, [{ variable_type: 'env_var', key: 'DEPLOY_TO', value: 'production' }, { variable_type: 'file', key: 'CONFIG', value: 'a=b' }]);
    const deleted = await fx.gantry.api('DELETE', url(`/${scheduleId}/variables/CONFIG`));
    assert.deepEqual([deleted.status, deleted.json], [202, { variable_type: 'file', key: 'CONFIG', value: 'a=b' }]);
    const missing = await fx.gantry.api('PUT', url(`/${scheduleId}/variables/CONFIG`), { body: { value: 'x' } });
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Pipeline Schedule Variable Not Found' }]);
    assert.equal((await fx.gantry.api('DELETE', url(`/${scheduleId}/variables/CONFIG`))).status, 404);
  });

  it('lets only the owner or a Maintainer change a schedule; a Maintainer can take it over', async () => {
    for (const user of [otherDeveloper, fx.reporter, fx.guest]) {
      assert.equal((await fx.gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'mine' }, token: user.token })).status, user === fx.guest ? 404 : 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(`/${scheduleId}/take_ownership`), { token: user.token })).status, user === fx.guest ? 404 : 403, user.username);
      assert.equal((await fx.gantry.api('POST', url(`/${scheduleId}/variables`), { body: { key: 'K', value: 'v' }, token: user.token })).status, user === fx.guest ? 404 : 403);
    }
    const taken = await fx.gantry.api('POST', url(`/${scheduleId}/take_ownership`), { token: fx.maintainer.token });
    assert.deepEqual([taken.status, (taken.json.owner as Record<string, unknown>).id], [201, fx.maintainer.id]);
    // The former owner is now just a Developer who does not own it.
    assert.equal((await fx.gantry.api('PUT', url(`/${scheduleId}`), { body: { description: 'back' }, token: fx.developer.token })).status, 403);
    assert.equal((await fx.gantry.api('DELETE', url(`/${scheduleId}`), { token: fx.developer.token })).status, 403);
  });

  it('reads for Reporters and up: guests and strangers are refused, unknown schedules 404', async () => {
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.guest.token })).status, 403);
    assert.deepEqual((await fx.gantry.api('GET', url(`/${scheduleId}`), { token: fx.guest.token })).json, { message: '404 Pipeline Schedule Not Found' });
    assert.equal((await fx.gantry.api('POST', url(), { body: { description: 'x', ref: 'main', cron: '0 1 * * *' }, token: fx.reporter.token })).status, 403);
    assert.deepEqual((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', url('/999999'))).json, { message: '404 Pipeline Schedule Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', url('/abc'))).json, { error: 'pipeline_schedule_id is invalid' });
  });

  it('deletes a schedule (204), then it is gone', async () => {
    assert.equal((await fx.gantry.api('DELETE', url(`/${scheduleId}`), { token: fx.maintainer.token })).status, 204);
    assert.equal((await fx.gantry.api('GET', url(`/${scheduleId}`))).status, 404);
    assert.equal((await fx.gantry.api('DELETE', url(`/${scheduleId}`))).status, 404);
  });
});
