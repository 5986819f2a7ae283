import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import type { TestUser } from './groups-fixtures.ts';

describe('subscriptions', () => {
  let fx: CiSettingsFixture;
  const project = (suffix: string) => `/projects/${fx.project.id}${suffix}`;
  const post = (path: string, user: TestUser) => fx.gantry.api('POST', project(path), { token: user.token });
  const subscribed = async (iid: number, user: TestUser) => (await fx.gantry.api('GET', project(`/issues/${iid}`), { token: user.token })).json.subscribed;

  before(async () => {
    fx = await startCiSettingsFixture();
    await fx.gantry.api('POST', project('/issues'), { body: { title: 'Open', assignee_ids: [fx.developer.id] }, token: fx.reporter.token });
    await fx.gantry.api('POST', project('/issues'), { body: { title: 'Secret', confidential: true }, token: fx.reporter.token });
  });
  after(() => fx.close());

  it('counts participants as subscribed: the author, the assignees and whoever wrote a note', async () => {
    assert.deepEqual([await subscribed(1, fx.reporter), await subscribed(1, fx.developer), await subscribed(1, fx.guest), await subscribed(1, fx.maintainer)], [true, true, false, false]);
    const { stores } = fx.gantry.coordinator.context;
    const issue = (await stores.issues.findByIid(fx.project.id, 1))!;
    const at = new Date().toISOString();
    const note = { project_id: fx.project.id, noteable_type: 'Issue' as const, noteable_id: issue.id, body: 'hi', internal: false, created_at: at, updated_at: at };
    await stores.notes.create({ ...note, author_id: fx.maintainer.id, system: true });
    assert.equal(await subscribed(1, fx.maintainer), false, 'a system note makes nobody a participant');
    await stores.notes.create({ ...note, author_id: fx.maintainer.id, system: false });
    assert.equal(await subscribed(1, fx.maintainer), true);
    const list = await fx.gantry.api('GET', project('/issues'), { token: fx.reporter.token });
    assert.equal('subscribed' in list.list[0]!, false, 'lists do not show it');
  });

  it('lists the participants of an issue (author, assignees, note writers; user basic shape), to those who see it', async () => {
    const participants = await fx.gantry.api('GET', project('/issues/1/participants'), { token: fx.guest.token });
    assert.equal(participants.status, 200, participants.text);
    assert.deepEqual(participants.list.map((user) => user.username), [fx.reporter.username, fx.developer.username, fx.maintainer.username]);
    assert.deepEqual(Object.keys(participants.list[0]!).sort(), ['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
    assert.deepEqual((await fx.gantry.api('GET', project('/issues/2/participants'), { token: fx.guest.token })).json, { message: '404 Issue Not Found' }, 'confidential');
    assert.deepEqual((await fx.gantry.api('GET', project('/issues/1/participants'), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
  });

  it('answers 304 with no body when nothing changes, else 201 with the issue; an explicit unsubscribe outranks taking part', async () => {
    const again = await post('/issues/1/subscribe', fx.reporter);
    assert.deepEqual([again.status, again.text], [304, '']);
    const out = await post('/issues/1/unsubscribe', fx.reporter);
    assert.deepEqual([out.status, out.json.iid, out.json.subscribed, typeof out.json._links], [201, 1, false, 'object']);
    assert.equal(await subscribed(1, fx.reporter), false);
    assert.equal((await post('/issues/1/unsubscribe', fx.reporter)).status, 304);
    const back = await post('/issues/1/subscribe', fx.reporter);
    assert.deepEqual([back.status, back.json.subscribed], [201, true]);
    assert.equal((await post('/issues/1/unsubscribe', fx.guest)).status, 304);
    const guest = await post('/issues/1/subscribe', fx.guest);
    assert.deepEqual([guest.status, guest.json.subscribed], [201, true]);
    assert.equal(await subscribed(1, fx.guest), true);
  });

  it('subscribes to project labels and the group labels the project sees, by id or name', async () => {
    const bug = await fx.gantry.api('POST', project('/labels'), { body: { name: 'bug', color: 'red' } });
    const area = await fx.gantry.api('POST', `/groups/${fx.group.id}/labels`, { body: { name: 'area/ci', color: 'navy' } });
    const byId = await post(`/labels/${String(bug.json.id)}/subscribe`, fx.guest);
    assert.deepEqual([byId.status, byId.json.name, byId.json.subscribed, byId.json.is_project_label], [201, 'bug', true, true]);
    assert.equal((await post('/labels/bug/subscribe', fx.guest)).status, 304);
    const group = await post(`/labels/${encodeURIComponent('area/ci')}/subscribe`, fx.guest);
    assert.deepEqual([group.status, group.json.id, group.json.subscribed, group.json.is_project_label], [201, area.json.id, true, false]);
    const listed = await fx.gantry.api('GET', project('/labels'), { token: fx.guest.token });
    assert.deepEqual(listed.list.map((label) => [label.name, label.subscribed]), [['area/ci', true], ['bug', true]]);
    const others = await fx.gantry.api('GET', project('/labels'), { token: fx.reporter.token });
    assert.deepEqual(others.list.map((label) => label.subscribed), [false, false]);
    assert.equal((await fx.gantry.api('GET', `/groups/${fx.group.id}/labels/${String(area.json.id)}`, { token: fx.guest.token })).json.subscribed, true);
    const out = await post('/labels/bug/unsubscribe', fx.guest);
    assert.deepEqual([out.status, out.json.subscribed], [201, false]);
    assert.equal((await post('/labels/bug/unsubscribe', fx.guest)).status, 304);
    assert.equal((await post('/labels/bug/unsubscribe', fx.reporter)).status, 304);
  });

  it('subscribes to a group label through the group too, by id or name (group label shape, 304 when nothing changes)', async () => {
    const team = await fx.gantry.api('POST', `/groups/${fx.group.id}/labels`, { body: { name: 'team', color: 'green' } });
    const groupPost = (path: string, user: TestUser) => fx.gantry.api('POST', `/groups/${fx.group.id}${path}`, { token: user.token });
    const byName = await groupPost('/labels/team/subscribe', fx.reporter);
    assert.deepEqual([byName.status, byName.json.id, byName.json.name, byName.json.subscribed, 'is_project_label' in byName.json], [201, team.json.id, 'team', true, false]);
    assert.equal((await groupPost(`/labels/${String(team.json.id)}/subscribe`, fx.reporter)).status, 304);
    assert.equal((await fx.gantry.api('GET', project('/labels/team'), { token: fx.reporter.token })).json.subscribed, true, 'one choice for every project that sees it');
    const out = await groupPost(`/labels/${String(team.json.id)}/unsubscribe`, fx.reporter);
    assert.deepEqual([out.status, out.json.subscribed], [201, false]);
    assert.deepEqual((await groupPost('/labels/nothing/subscribe', fx.reporter)).json, { message: '404 Label Not Found' });
    assert.deepEqual((await groupPost('/labels/team/subscribe', fx.stranger)).json, { message: '404 Group Not Found' });
  });

  it('refuses what the caller may not see or that does not exist, and anonymous callers', async () => {
    assert.deepEqual((await post('/issues/2/subscribe', fx.guest)).json, { message: '404 Issue Not Found' });
    assert.deepEqual((await post('/issues/99/subscribe', fx.guest)).json, { message: '404 Issue Not Found' });
    assert.deepEqual((await post('/labels/nothing/subscribe', fx.guest)).json, { message: '404 Label Not Found' });
    assert.deepEqual((await post('/merge_requests/1/subscribe', fx.guest)).json, { message: '404 Merge Request Not Found' });
    assert.deepEqual((await post('/merge_requests/1/unsubscribe', fx.stranger)).json, { message: '404 Project Not Found' });
    assert.deepEqual((await post('/issues/1/subscribe', fx.stranger)).json, { message: '404 Project Not Found' });
    const anonymous = await fx.gantry.api('POST', project('/issues/1/subscribe'), { token: null });
    assert.deepEqual([anonymous.status, anonymous.json], [401, { message: '401 Unauthorized' }]);
    assert.equal((await post('/issues/x/subscribe', fx.guest)).status, 400);
    const subscribedSecret = await post('/issues/2/subscribe', fx.maintainer);
    assert.deepEqual([subscribedSecret.status, subscribedSecret.json.subscribed], [201, true]);
  });
});
