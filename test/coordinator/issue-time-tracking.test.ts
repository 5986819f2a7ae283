import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

const EMPTY = { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null };

describe('time tracking on issues', () => {
  let fx: CiSettingsFixture;
  let issueId: number;
  const issue = (suffix = '', iid = 1) => `/projects/${fx.project.id}/issues/${iid}${suffix}`;
  const post = (suffix: string, body: Record<string, unknown> = {}, token = fx.reporter.token) => fx.gantry.api('POST', issue(suffix), { body, token });

  /** The issue's system notes, oldest first (read from the table: the notes API is another area's). */
  const systemNotes = async (): Promise<string[]> => {
    const rows = await fx.gantry.coordinator.context.db
      .selectFrom('notes').select('body').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issueId).where('system', '=', 1).orderBy('id').execute();
    return rows.map((row) => row.body);
  };
  const timelogs = async () =>
    (await fx.gantry.coordinator.context.db.selectFrom('timelogs').select(['time_spent', 'summary', 'user_id']).where('issuable_id', '=', issueId).orderBy('id').execute());

  before(async () => {
    fx = await startCiSettingsFixture();
    issueId = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'timed' } })).json.id);
  });
  after(() => fx.close());

  it('starts with empty time stats, read by whoever sees the issue', async () => {
    const stats = await fx.gantry.api('GET', issue('/time_stats'), { token: fx.guest.token });
    assert.deepEqual([stats.status, stats.json], [200, EMPTY]);
  });

  it('sets, changes and removes the estimate (200), with GitLab system notes and the issue answer following', async () => {
    const set = await post('/time_estimate', { duration: '3h30m' });
    assert.deepEqual([set.status, set.json], [200, { time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null }]);
    assert.equal((await post('/time_estimate', { duration: '1w 1d' })).json.human_time_estimate, '1w 1d');
    // The same estimate again changes nothing and writes no note.
    assert.equal((await post('/time_estimate', { duration: '48h' })).json.time_estimate, 172800);
    const shown = (await fx.gantry.api('GET', issue())).json.time_stats;
    assert.deepEqual(shown, { time_estimate: 172800, total_time_spent: 0, human_time_estimate: '1w 1d', human_total_time_spent: null });
    const reset = await post('/reset_time_estimate');
    assert.deepEqual([reset.status, reset.json], [200, EMPTY]);
    assert.equal((await post('/time_estimate', { duration: '2h' })).status, 200);
    assert.equal((await post('/time_estimate', { duration: '0' })).json.time_estimate, 0);
    assert.deepEqual(await systemNotes(), ['changed time estimate to 3h 30m', 'changed time estimate to 1w 1d', 'removed time estimate', 'changed time estimate to 2h', 'removed time estimate']);
  });

  it('adds and subtracts time spent (201) with a time log each, never below zero, and resets it', async () => {
    const before = (await systemNotes()).length;
    const added = await post('/add_spent_time', { duration: '1h30m', summary: 'reading' });
    assert.deepEqual([added.status, added.json], [201, { time_estimate: 0, total_time_spent: 5400, human_time_estimate: null, human_total_time_spent: '1h 30m' }]);
    assert.equal((await post('/add_spent_time', { duration: '-30m' }, fx.developer.token)).json.human_total_time_spent, '1h');
    const tooMuch = await post('/add_spent_time', { duration: '-2h' });
    assert.deepEqual([tooMuch.status, tooMuch.json], [400, { message: { base: ['Time to subtract exceeds the total time spent'] } }]);
    assert.equal((await fx.gantry.api('GET', issue('/time_stats'))).json.total_time_spent, 3600);
    const reset = await post('/reset_spent_time');
    assert.deepEqual([reset.status, reset.json], [200, EMPTY]);
    assert.deepEqual((await systemNotes()).slice(before), ['added 1h 30m of time spent', 'subtracted 30m of time spent', 'removed time spent']);
    assert.deepEqual(await timelogs(), [
      { time_spent: 5400, summary: 'reading', user_id: fx.reporter.id },
      { time_spent: -1800, summary: null, user_id: fx.developer.id },
      { time_spent: -3600, summary: null, user_id: fx.reporter.id },
    ]);
    assert.deepEqual((await fx.gantry.api('GET', issue())).json.time_stats, EMPTY);
  });

  it('refuses invalid durations, long summaries and missing parameters with 400', async () => {
    for (const duration of ['foo', '1x', '-1h', '', '99999999999h']) {
      const bad = await post('/time_estimate', { duration });
      assert.equal(bad.status, 400, duration);
    }
    assert.deepEqual((await post('/time_estimate', { duration: 'foo' })).json, { message: { time_estimate: ['must have a valid format and be greater than or equal to zero.'] } });
    assert.deepEqual((await post('/add_spent_time', { duration: 'soon' })).json, { message: { time_spent: ['has an invalid format'] } });
    assert.deepEqual((await post('/add_spent_time', { duration: '0h' })).json, { message: { time_spent: ['has an invalid format'] } });
    assert.deepEqual((await post('/add_spent_time', { duration: '1h', summary: 'x'.repeat(256) })).json, { message: { summary: ['is too long (maximum is 255 characters)'] } });
    assert.deepEqual((await post('/add_spent_time', {})).json, { error: 'duration is missing' });
    assert.deepEqual((await post('/time_estimate', {})).json, { error: 'duration is missing' });
    assert.deepEqual((await fx.gantry.api('GET', issue('/time_stats'))).json, EMPTY);
  });

  it('keeps the total within the 32-bit columns', async () => {
    assert.equal((await post('/add_spent_time', { duration: '2147483647s' })).status, 201);
    const over = await post('/add_spent_time', { duration: '1s' });
    assert.equal(over.status, 400);
    assert.match(String((over.json.message as Record<string, string[]>).base?.[0]), /^Total time spent cannot exceed /);
    assert.equal((await post('/reset_spent_time')).status, 200);
  });

  it('lets Reporters and up change time (403 for Guests and authors below Reporter), 401 anonymous, 404 unseen issues', async () => {
    for (const suffix of ['/time_estimate', '/reset_time_estimate', '/add_spent_time', '/reset_spent_time']) {
      const guest = await post(suffix, { duration: '1h' }, fx.guest.token);
      assert.deepEqual([guest.status, guest.json], [403, { message: '403 Forbidden' }], suffix);
      const anonymous = await fx.gantry.api('POST', issue(suffix), { body: { duration: '1h' }, token: null });
      assert.equal(anonymous.status, 401, suffix);
      assert.equal((await post(suffix, { duration: '1h' }, fx.stranger.token)).status, 404, suffix);
    }
    const own = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'mine' }, token: fx.guest.token })).json.iid);
    assert.equal((await fx.gantry.api('POST', issue('/add_spent_time', own), { body: { duration: '1h' }, token: fx.guest.token })).status, 403);
    assert.equal((await fx.gantry.api('GET', issue('/time_stats', own), { token: fx.guest.token })).status, 200);
    assert.deepEqual((await fx.gantry.api('GET', issue('/time_stats', 99))).json, { message: '404 Issue Not Found' });
    const secret = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: 'secret', confidential: true } })).json.iid);
    assert.deepEqual((await fx.gantry.api('GET', issue('/time_stats', secret), { token: fx.guest.token })).json, { message: '404 Issue Not Found' });
    assert.equal((await fx.gantry.api('GET', issue('/time_stats'), { token: null })).status, 401);
  });
});
