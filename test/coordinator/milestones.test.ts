import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { makeProject } from './groups-fixtures.ts';

describe('milestones API', () => {
  let fx: CiSettingsFixture;
  let firstId: number;
  const url = (suffix = '') => `/projects/${fx.project.id}/milestones${suffix}`;
  const titles = (list: Array<Record<string, unknown>>) => list.map((milestone) => milestone.title);

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('lets a Reporter create milestones with iids per project (201), GitLab-shaped', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { title: 'v1', description: 'First', start_date: '2024-01-01', due_date: '2024-02-01' }, token: fx.reporter.token });
    assert.equal(created.status, 201, created.text);
    firstId = Number(created.json.id);
    const { created_at: createdAt, updated_at: updatedAt, ...rest } = created.json;
    assert.deepEqual(rest, {
      id: firstId, iid: 1, project_id: fx.project.id, title: 'v1', description: 'First', state: 'active', due_date: '2024-02-01', start_date: '2024-01-01', expired: true,
      web_url: 'http://gantry.test/ci/app/-/milestones/1',
    });
    assert.equal(createdAt, updatedAt);
    const second = await fx.gantry.api('POST', url(), { form: { title: 'v2', due_date: '2024-06-01' } });
    assert.deepEqual([second.status, second.json.iid, second.json.description, second.json.start_date], [201, 2, null, null]);
    const third = await fx.gantry.api('POST', url(), { body: { title: 'someday' } });
    assert.deepEqual([third.json.iid, third.json.expired], [3, false]);
    const other = await makeProject(fx.gantry, fx.group.id, 'other');
    const elsewhere = await fx.gantry.api('POST', `/projects/${other.id}/milestones`, { body: { title: 'v1' } });
    assert.deepEqual([elsewhere.status, elsewhere.json.iid], [201, 1]);
  });

  it('refuses a taken title, a due date before the start, bad dates and Guests', async () => {
    const taken = await fx.gantry.api('POST', url(), { body: { title: 'v1' } });
    assert.deepEqual([taken.status, taken.json], [400, { message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' }]);
    const backwards = await fx.gantry.api('POST', url(), { body: { title: 'x', start_date: '2024-03-01', due_date: '2024-02-01' } });
    assert.deepEqual([backwards.status, backwards.json], [400, { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' }]);
    const sameDay = await fx.gantry.api('POST', url(), { body: { title: 'x', start_date: '2024-03-01', due_date: '2024-03-01' } });
    assert.deepEqual([sameDay.status, sameDay.json], [400, { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' }]);
    const badDate = await fx.gantry.api('POST', url(), { body: { title: 'x', due_date: 'tomorrow' } });
    assert.deepEqual([badDate.status, badDate.json], [400, { error: 'due_date is invalid' }]);
    const missing = await fx.gantry.api('POST', url(), { body: {} });
    assert.deepEqual(missing.json, { error: 'title is missing' });
    const guest = await fx.gantry.api('POST', url(), { body: { title: 'x' }, token: fx.guest.token });
    assert.deepEqual([guest.status, guest.json], [403, { message: '403 Forbidden' }]);
    const stranger = await fx.gantry.api('GET', url(), { token: fx.stranger.token });
    assert.deepEqual([stranger.status, stranger.json], [404, { message: '404 Project Not Found' }]);
  });

  it('lists soonest due first, no due date last (iids[], state, title, search, pagination) and gets one', async () => {
    const list = await fx.gantry.api('GET', url(), { token: fx.guest.token });
    assert.deepEqual([list.status, list.headers['x-total'], titles(list.list)], [200, '3', ['v1', 'v2', 'someday']]);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?iids[]=1&iids[]=3'))).list), ['v1', 'someday']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?title=v2'))).list), ['v2']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?search=FIRST'))).list), ['v1']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?per_page=1&page=2'))).list), ['v2']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?state=all'))).list), ['v1', 'v2', 'someday']);
    assert.deepEqual((await fx.gantry.api('GET', url('?state=gone'))).json, { error: 'state does not have a valid value' });
    const one = await fx.gantry.api('GET', url(`/${firstId}`), { token: fx.guest.token });
    assert.deepEqual([one.status, one.json.title], [200, 'v1']);
    const missing = await fx.gantry.api('GET', url('/999999'));
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Milestone Not Found' }]);
    const mergeRequests = await fx.gantry.api('GET', url(`/${firstId}/merge_requests`));
    assert.deepEqual([mergeRequests.status, mergeRequests.list, mergeRequests.headers['x-total']], [200, [], '0']);
  });

  it('closes and reopens with state_event, edits fields, and filters by state', async () => {
    const closed = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { state_event: 'close', description: null }, token: fx.reporter.token });
    assert.deepEqual([closed.status, closed.json.state, closed.json.description], [200, 'closed', null]);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?state=closed'))).list), ['v1']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?state=active'))).list), ['v2', 'someday']);
    const nothing = await fx.gantry.api('PUT', url(`/${firstId}`), { body: {} });
    assert.deepEqual([nothing.status, nothing.json], [400, { error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' }]);
    const reopened = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { state_event: 'activate', title: 'v1.0' } });
    assert.deepEqual([reopened.json.state, reopened.json.title], ['active', 'v1.0']);
    const invalid = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { state_event: 'reopen' } });
    assert.deepEqual([invalid.status, invalid.json], [400, { error: 'state_event does not have a valid value' }]);
    const taken = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { title: 'v2' } });
    assert.deepEqual(taken.json, { message: 'Failed to update milestone {:title=>["already being used for another group or project milestone."]}' });
    const backwards = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { due_date: '2023-01-01' } });
    assert.deepEqual(backwards.json, { message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' });
    // python-gitlab's own tests send a timestamp; GitLab keeps its day.
    const stamped = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { due_date: '2024-02-01T23:00:00-05:00' } });
    assert.deepEqual([stamped.status, stamped.json.due_date], [200, '2024-02-01']);
  });

  it('numbers group milestones per group, lists them in projects when asked, and keeps them apart from project routes', async () => {
    const groupUrl = `/groups/${fx.group.id}/milestones`;
    const created = await fx.gantry.api('POST', groupUrl, { body: { title: 'Q1', due_date: '2030-01-01' } });
    assert.deepEqual([created.status, created.json.iid, created.json.group_id, 'project_id' in created.json], [201, 1, fx.group.id, false]);
    assert.equal(created.json.web_url, 'http://gantry.test/groups/ci/-/milestones/1');
    const inProject = await fx.gantry.api('GET', url('?include_parent_milestones=true'), { token: fx.guest.token });
    assert.deepEqual(titles(inProject.list), ['v1.0', 'v2', 'Q1', 'someday']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url('?include_ancestors=true&iids[]=1'))).list), ['v1.0', 'v2', 'Q1', 'someday']);
    const both = await fx.gantry.api('GET', url('?include_ancestors=true&include_parent_milestones=true'));
    assert.deepEqual([both.status, both.json], [400, { error: 'include_ancestors, include_parent_milestones are mutually exclusive' }]);
    assert.equal(inProject.list[2]!.web_url, 'http://gantry.test/groups/ci/-/milestones/1');
    assert.deepEqual(titles((await fx.gantry.api('GET', url())).list), ['v1.0', 'v2', 'someday']);
    assert.equal((await fx.gantry.api('GET', url(`/${String(created.json.id)}`))).status, 404);
    assert.equal((await fx.gantry.api('GET', `${groupUrl}/${firstId}`)).status, 404);
    const byReporter = await fx.gantry.api('POST', groupUrl, { body: { title: 'Q2' }, token: fx.reporter.token });
    assert.equal(byReporter.status, 403);
    const readable = await fx.gantry.api('GET', `${groupUrl}/${String(created.json.id)}`, { token: fx.guest.token });
    assert.equal(readable.json.title, 'Q1');
  });

  it("keeps a title unique across the hierarchy: a group's titles and its projects' refuse each other", async () => {
    const groupUrl = `/groups/${fx.group.id}/milestones`;
    const taken = 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}';
    const groupOwned = await fx.gantry.api('POST', url(), { body: { title: 'Q1' } });
    assert.deepEqual([groupOwned.status, groupOwned.json], [400, { message: taken }]);
    const projectOwned = await fx.gantry.api('POST', groupUrl, { body: { title: 'v2' } });
    assert.deepEqual([projectOwned.status, projectOwned.json], [400, { message: taken }]);
    const sub = await fx.gantry.api('POST', '/groups', { body: { name: 'sub', path: 'sub', parent_id: fx.group.id } });
    assert.equal(sub.status, 201, sub.text);
    const inSub = await fx.gantry.api('POST', `/groups/${String(sub.json.id)}/milestones`, { body: { title: 'Q1' } });
    assert.deepEqual([inSub.status, inSub.json], [400, { message: taken }]);
    const subProject = await makeProject(fx.gantry, Number(sub.json.id), 'deep');
    assert.equal((await fx.gantry.api('POST', `/projects/${subProject.id}/milestones`, { body: { title: 'deep-only' } })).status, 201);
    const fromBelow = await fx.gantry.api('POST', groupUrl, { body: { title: 'deep-only' } });
    assert.deepEqual([fromBelow.status, fromBelow.json], [400, { message: taken }]);
    const renamed = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { title: 'Q1' } });
    assert.deepEqual([renamed.status, renamed.json], [400, { message: taken.replace('create', 'update') }]);
    const kept = await fx.gantry.api('PUT', url(`/${firstId}`), { body: { title: 'v1.0', description: 'same title' } });
    assert.equal(kept.status, 200, kept.text);
  });

  it("searches GitLab's way: every word of two characters or more, in the title or in the description; updated_before and updated_after", async () => {
    const made = await fx.gantry.api('POST', url(), { body: { title: 'Release 50% done_x', description: 'alpha beta' } });
    assert.equal(made.status, 201, made.text);
    const search = async (query: string) => titles((await fx.gantry.api('GET', url(`?search=${encodeURIComponent(query)}`))).list);
    assert.deepEqual(await search('beta ALPHA'), ['Release 50% done_x']);
    assert.deepEqual(await search('alpha release'), [], 'the words must match in one column');
    assert.deepEqual(await search('50% x'), ['Release 50% done_x'], 'a one-character word is left out');
    assert.deepEqual(await search('"alpha beta"'), ['Release 50% done_x']);
    assert.deepEqual(await search('"beta alpha"'), []);
    assert.deepEqual(await search('0%d'), [], 'a wildcard is a plain character');
    assert.deepEqual(await search('se_50'), []);
    assert.deepEqual(await search('V'), [], 'a short query matches a whole title only');
    const stamp = String(made.json.updated_at);
    assert.deepEqual(titles((await fx.gantry.api('GET', url(`?updated_after=${encodeURIComponent(stamp)}`))).list), ['Release 50% done_x']);
    assert.deepEqual(titles((await fx.gantry.api('GET', url(`?updated_before=${encodeURIComponent(stamp)}&search=done_x`))).list), ['Release 50% done_x']);
    const before = titles((await fx.gantry.api('GET', url('?updated_before=2000-01-01T00:00:00Z'))).list);
    assert.deepEqual(before, []);
    assert.equal((await fx.gantry.api('DELETE', url(`/${String(made.json.id)}`))).status, 204);
  });

  it('deletes (204), then answers 404', async () => {
    assert.equal((await fx.gantry.api('DELETE', url(`/${firstId}`), { token: fx.guest.token })).status, 403);
    assert.equal((await fx.gantry.api('DELETE', url(`/${firstId}`), { token: fx.reporter.token })).status, 204);
    assert.equal((await fx.gantry.api('GET', url(`/${firstId}`))).status, 404);
    assert.deepEqual(titles((await fx.gantry.api('GET', url())).list), ['v2', 'someday']);
  });
});
