import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { addMember, makeGroup, makeProject, makeUser } from './groups-fixtures.ts';
import { storeMergeRequest } from './merge-request-fixtures.ts';

type Json = Record<string, unknown>;

describe('notes on merge requests', () => {
  let fx: CiSettingsFixture;
  const notes = (iid: number, suffix = '') => `/projects/${fx.project.id}/merge_requests/${iid}/notes${suffix}`;
  const open = async (title = 'Change') => storeMergeRequest(fx.gantry, fx.project.id, fx.developer.id, { title });
  const comment = async (iid: number, body: Json, token?: string) => {
    const created = await fx.gantry.api('POST', notes(iid), { body, token });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('writes, reads, edits and deletes a note, with noteable_type MergeRequest and the request iid', async () => {
    const request = await open('Notes');
    const note = await comment(request.iid, { body: 'Looks good' }, fx.guest.token);
    const { id, created_at, updated_at, author, ...rest } = note;
    assert.equal(created_at, updated_at);
    assert.equal((author as Json).username, 'ci-guest');
    assert.deepEqual(rest, {
      type: null, body: 'Looks good', attachment: null, system: false, noteable_id: request.id, noteable_type: 'MergeRequest', project_id: fx.project.id,
      resolvable: false, confidential: false, internal: false, noteable_iid: request.iid, commands_changes: {},
    });
    assert.deepEqual((await fx.gantry.api('GET', notes(request.iid, `/${id}`), { token: fx.reporter.token })).json, note);
    const edited = await fx.gantry.api('PUT', notes(request.iid, `/${id}`), { body: { body: 'Looks good, edited' }, token: fx.guest.token });
    assert.deepEqual([edited.status, edited.json.body], [200, 'Looks good, edited']);
    const byOther = await fx.gantry.api('PUT', notes(request.iid, `/${id}`), { body: { body: 'mine now' }, token: fx.developer.token });
    assert.deepEqual([byOther.status, byOther.json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('DELETE', notes(request.iid, `/${id}`), { token: fx.maintainer.token })).status, 204);
    assert.deepEqual((await fx.gantry.api('GET', notes(request.iid))).list, []);
  });

  it('lists with sort and order_by, and keeps an issue\'s notes and a request\'s apart', async () => {
    const request = await open('Sorted');
    for (const body of ['one', 'two', 'three']) await comment(request.iid, { body });
    const bodies = async (query: string) => (await fx.gantry.api('GET', notes(request.iid, query))).list.map((listed) => listed.body);
    assert.deepEqual(await bodies(''), ['three', 'two', 'one']);
    assert.deepEqual(await bodies('?sort=asc&per_page=2'), ['one', 'two']);
    const issue = await fx.gantry.api('POST', `/projects/${fx.project.id}/issues`, { body: { title: `Same iid as ${request.iid}?` } });
    const issueNote = await fx.gantry.api('POST', `/projects/${fx.project.id}/issues/${issue.json.iid}/notes`, { body: { body: 'on the issue' } });
    const crossed = await fx.gantry.api('GET', notes(request.iid, `/${issueNote.json.id}`));
    assert.deepEqual([crossed.status, crossed.json], [404, { message: '404 Note Not Found' }]);
    assert.deepEqual(await bodies('?sort=asc'), ['one', 'two', 'three']);
  });

  it('answers 404 Merge Request Not Found for an unknown iid and for a project whose merge requests are off, 404 Project Not Found to outsiders', async () => {
    const request = await open('Guarded');
    assert.deepEqual((await fx.gantry.api('GET', notes(9999))).json, { message: '404 Merge Request Not Found' });
    const outsider = await fx.gantry.api('GET', notes(request.iid), { token: fx.stranger.token });
    assert.deepEqual([outsider.status, outsider.json], [404, { message: '404 Project Not Found' }]);
    const anonymous = await fx.gantry.api('POST', notes(request.iid), { body: { body: 'hi' }, token: null });
    assert.equal(anonymous.status, 401);
    await fx.gantry.api('PUT', `/projects/${fx.project.id}`, { body: { merge_requests_enabled: false } });
    try {
      const disabled = await fx.gantry.api('GET', notes(request.iid));
      assert.deepEqual([disabled.status, disabled.json], [404, { message: '404 Merge Request Not Found' }]);
    } finally {
      await fx.gantry.api('PUT', `/projects/${fx.project.id}`, { body: { merge_requests_enabled: true } });
    }
  });

  it('shows internal notes to Reporters and up only, and takes notes on a locked discussion from members only', async () => {
    const request = await open('Internal');
    const refused = await fx.gantry.api('POST', notes(request.iid), { body: { body: 'psst', internal: true }, token: fx.guest.token });
    assert.equal(refused.status, 403);
    const internal = await comment(request.iid, { body: 'psst', internal: true }, fx.reporter.token);
    assert.equal(internal.internal, true);
    assert.deepEqual((await fx.gantry.api('GET', notes(request.iid), { token: fx.guest.token })).list, []);
    assert.equal((await fx.gantry.api('GET', notes(request.iid, `/${internal.id}`), { token: fx.guest.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', notes(request.iid), { token: fx.reporter.token })).list.length, 1);


    const group = await makeGroup(fx.gantry, 'open', { visibility: 'public' });
    const project = await makeProject(fx.gantry, group.id, 'town-square', { visibility: 'public' });
    const passerby = await makeUser(fx.gantry, 'passerby');
    const member = await makeUser(fx.gantry, 'square-guest');
    await addMember(fx.gantry, { type: 'project', id: project.id }, member.id, 10);
    const heated = await storeMergeRequest(fx.gantry, project.id, member.id, { title: 'Heated' });
    await fx.gantry.coordinator.context.stores.mergeRequests.update(heated.id, { discussion_locked: true }, {});
    const url = `/projects/${project.id}/merge_requests/${heated.iid}/notes`;
    const outsider = await fx.gantry.api('POST', url, { body: { body: 'let me in' }, token: passerby.token });
    assert.deepEqual([outsider.status, outsider.json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('POST', url, { body: { body: 'member' }, token: member.token })).status, 201);
    assert.equal((await fx.gantry.api('GET', url, { token: passerby.token })).list.length, 1);
  });

  it('counts the notes people wrote on a page of requests in one call (user_notes_count)', async () => {
    const [first, second] = [await open('Counted'), await open('Counted too')];
    await comment(first.iid, { body: 'a' });
    await comment(first.iid, { body: 'b' });
    await comment(first.iid, { body: 'internal', internal: true });
    await comment(second.iid, { body: 'c' });
    const counts = await fx.gantry.coordinator.context.stores.notes.userNoteCounts('MergeRequest', [first.id, second.id]);
    assert.deepEqual([counts.get(first.id), counts.get(second.id)], [2, 1]);
  });
});
