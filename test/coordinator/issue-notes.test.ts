import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { addMember, makeGroup, makeProject, makeUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

describe('notes on issues', () => {
  let fx: CiSettingsFixture;
  const issues = (suffix = '') => `/projects/${fx.project.id}/issues${suffix}`;
  const notes = (iid: number, suffix = '') => issues(`/${iid}/notes${suffix}`);
  const openIssue = async (body: Json, token?: string) => {
    const created = await fx.gantry.api('POST', issues(), { body, token });
    assert.equal(created.status, 201, created.text);
    return Number(created.json.iid);
  };
  const comment = async (iid: number, body: Json, token?: string) => {
    const created = await fx.gantry.api('POST', notes(iid), { body, token });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('writes, reads, edits and deletes a note, answering GitLab\'s Note entity', async () => {
    const iid = await openIssue({ title: 'Notes' });
    const note = await comment(iid, { body: 'First!' }, fx.developer.token);
    const { id, created_at, updated_at, author, ...rest } = note;
    assert.equal(typeof id, 'number');
    assert.equal(created_at, updated_at);
    assert.deepEqual(author, { id: fx.developer.id, name: 'User ci-developer', username: 'ci-developer', state: 'active', avatar_url: null, web_url: 'http://gantry.test/ci-developer' });
    const issue = (await fx.gantry.api('GET', issues(`/${iid}`))).json;
    assert.deepEqual(rest, {
      type: null, body: 'First!', attachment: null, system: false, noteable_id: issue.id, noteable_type: 'Issue', project_id: fx.project.id,
      resolvable: false, confidential: false, internal: false, noteable_iid: iid, commands_changes: {},
    });
    assert.deepEqual((await fx.gantry.api('GET', notes(iid, `/${id}`), { token: fx.guest.token })).json, note);
    assert.deepEqual((await fx.gantry.api('GET', notes(iid), { token: fx.guest.token })).list, [note]);

    const edited = await fx.gantry.api('PUT', notes(iid, `/${id}`), { body: { body: 'First, edited' }, token: fx.developer.token });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual([edited.json.body, edited.json.created_at, String(edited.json.updated_at) >= String(created_at)], ['First, edited', created_at, true]);
    assert.equal((await fx.gantry.api('DELETE', notes(iid, `/${id}`), { token: fx.developer.token })).status, 204);
    assert.deepEqual((await fx.gantry.api('GET', notes(iid, `/${id}`))).json, { message: '404 Note Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', notes(iid))).list, []);
  });

  it('lists newest first by default, sorts and orders as asked, and paginates with GitLab headers', async () => {
    const iid = await openIssue({ title: 'Many notes' });
    const ids: number[] = [];
    for (const body of ['one', 'two', 'three']) ids.push(Number((await comment(iid, { body })).id));
    const bodies = async (query: string) => (await fx.gantry.api('GET', notes(iid, query))).list.map((note) => note.body);
    assert.deepEqual(await bodies(''), ['three', 'two', 'one']);
    assert.deepEqual(await bodies('?sort=asc'), ['one', 'two', 'three']);
    await fx.gantry.api('PUT', notes(iid, `/${ids[0]}`), { body: { body: 'one again' } });
    assert.deepEqual(await bodies('?order_by=updated_at&sort=desc'), ['one again', 'three', 'two']);
    const page = await fx.gantry.api('GET', notes(iid, '?sort=asc&per_page=2&page=2'));
    assert.deepEqual(page.list.map((note) => note.body), ['three']);
    assert.deepEqual([page.headers['x-total'], page.headers['x-total-pages'], page.headers['x-page'], page.headers['x-per-page'], page.headers['x-prev-page']], ['3', '2', '2', '2', '1']);
    const bad = await fx.gantry.api('GET', notes(iid, '?sort=sideways'));
    assert.deepEqual([bad.status, bad.json], [400, { error: 'sort does not have a valid value' }]);
  });

  it('counts the notes people wrote in user_notes_count, on the issue and in lists', async () => {
    const iid = await openIssue({ title: 'Counted' });
    await comment(iid, { body: 'a' });
    await comment(iid, { body: 'b' });
    await comment(iid, { body: 'only for reporters', internal: true });
    await fx.gantry.api('PUT', issues(`/${iid}`), { body: { state_event: 'close' } });
    assert.equal((await fx.gantry.api('GET', issues(`/${iid}`))).json.user_notes_count, 2);
    const listed = (await fx.gantry.api('GET', issues(`?iids[]=${iid}`))).list;
    assert.deepEqual(listed.map((issue) => issue.user_notes_count), [2]);
  });

  it('needs a signed-in caller who sees the issue, and answers 404 for unknown notes and notes of another issue', async () => {
    const iid = await openIssue({ title: 'Guarded' });
    const other = await openIssue({ title: 'Other' });
    const note = await comment(iid, { body: 'here' });
    for (const [method, path] of [['GET', notes(iid)], ['GET', notes(iid, `/${note.id}`)], ['POST', notes(iid)], ['PUT', notes(iid, `/${note.id}`)], ['DELETE', notes(iid, `/${note.id}`)]] as const) {
      const anonymous = await fx.gantry.api(method, path, { token: null, body: method === 'POST' || method === 'PUT' ? { body: 'x' } : undefined });
      assert.deepEqual([anonymous.status, anonymous.json], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
      const stranger = await fx.gantry.api(method, path, { token: fx.stranger.token, body: method === 'POST' || method === 'PUT' ? { body: 'x' } : undefined });
      assert.deepEqual([stranger.status, stranger.json], [404, { message: '404 Project Not Found' }], `${method} ${path}`);
    }
    assert.deepEqual((await fx.gantry.api('GET', notes(iid, '/999999'))).json, { message: '404 Note Not Found' });
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const elsewhere = await fx.gantry.api(method, notes(other, `/${note.id}`), { body: method === 'PUT' ? { body: 'moved?' } : undefined });
      assert.deepEqual([elsewhere.status, elsewhere.json], [404, { message: '404 Note Not Found' }], method);
    }
    assert.deepEqual((await fx.gantry.api('GET', notes(999))).json, { message: '404 Issue Not Found' });
    assert.equal((await fx.gantry.api('GET', notes(iid, `/${note.id}`))).json.body, 'here');
  });

  it('refuses empty, missing and over-long bodies', async () => {
    const iid = await openIssue({ title: 'Bad input' });
    assert.deepEqual((await fx.gantry.api('POST', notes(iid), { body: {} })).json, { error: 'body is missing' });
    const blank = await fx.gantry.api('POST', notes(iid), { body: { body: '  ' } });
    assert.deepEqual([blank.status, blank.json], [400, { error: 'body is empty' }]);
    const long = await fx.gantry.api('POST', notes(iid), { body: { body: 'a'.repeat(1_000_001) } });
    assert.deepEqual([long.status, long.json], [400, { error: 'body is too long (maximum is 1000000 characters)' }]);
    const longest = await fx.gantry.api('POST', notes(iid), { body: { body: 'a'.repeat(1_000_000) } });
    assert.equal(longest.status, 201);
    const note = longest.json;
    assert.deepEqual((await fx.gantry.api('PUT', notes(iid, `/${note.id}`), { body: { body: '' } })).json, { error: 'body is empty' });
    assert.deepEqual((await fx.gantry.api('PUT', notes(iid, `/${note.id}`), { body: {} })).json, { error: 'body is missing' });
    assert.deepEqual((await fx.gantry.api('GET', notes(iid))).list.map((listed) => (listed.body as string).length), [1_000_000]);
  });

  it('lets the author and Maintainers edit or delete a note, nobody else, and never a system note', async () => {
    const iid = await openIssue({ title: 'Whose note' });
    const note = await comment(iid, { body: 'mine' }, fx.guest.token);
    const put = (token: string, body = 'changed') => fx.gantry.api('PUT', notes(iid, `/${note.id}`), { body: { body }, token });
    assert.deepEqual([(await put(fx.developer.token)).status, (await put(fx.developer.token)).json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('DELETE', notes(iid, `/${note.id}`), { token: fx.reporter.token })).status, 403);
    assert.equal((await put(fx.guest.token, 'mine, edited')).json.body, 'mine, edited');
    assert.equal((await put(fx.maintainer.token, 'moderated')).json.body, 'moderated');
    assert.equal((await fx.gantry.api('DELETE', notes(iid, `/${note.id}`), { token: fx.maintainer.token })).status, 204);

    await fx.gantry.api('PUT', issues(`/${iid}`), { body: { state_event: 'close' } });
    const [system] = (await fx.gantry.api('GET', notes(iid))).list;
    assert.deepEqual([system?.system, system?.body], [true, 'closed']);
    const editSystem = await fx.gantry.api('PUT', notes(iid, `/${system?.id}`), { body: { body: 'rewritten history' } });
    assert.deepEqual([editSystem.status, editSystem.json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('DELETE', notes(iid, `/${system?.id}`))).status, 403);
  });

  it('hides a confidential issue\'s notes from a Guest who is neither its author nor an assignee', async () => {
    const iid = await openIssue({ title: 'Secret', confidential: true });
    const note = await comment(iid, { body: 'secret detail' }, fx.reporter.token);
    for (const path of [notes(iid), notes(iid, `/${note.id}`)]) {
      const guest = await fx.gantry.api('GET', path, { token: fx.guest.token });
      assert.deepEqual([guest.status, guest.json], [404, { message: '404 Issue Not Found' }]);
    }
    assert.equal((await fx.gantry.api('POST', notes(iid), { body: { body: 'let me in' }, token: fx.guest.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', notes(iid), { token: fx.reporter.token })).list.length, 1);
  });

  it('shows internal notes to Reporters and up only, and lets only them write one', async () => {
    const iid = await openIssue({ title: 'Internal' });
    const internal = await comment(iid, { body: 'between us', internal: true }, fx.reporter.token);
    assert.deepEqual([internal.internal, internal.confidential], [true, true]);
    const legacy = await comment(iid, { body: 'old name', confidential: true }, fx.reporter.token);
    assert.equal(legacy.internal, true);
    await comment(iid, { body: 'for everyone' }, fx.guest.token);
    assert.deepEqual((await fx.gantry.api('GET', notes(iid), { token: fx.guest.token })).list.map((note) => note.body), ['for everyone']);
    assert.deepEqual((await fx.gantry.api('GET', notes(iid), { token: fx.reporter.token })).list.map((note) => note.body), ['for everyone', 'old name', 'between us']);
    const hidden = await fx.gantry.api('GET', notes(iid, `/${internal.id}`), { token: fx.guest.token });
    assert.deepEqual([hidden.status, hidden.json], [404, { message: '404 Note Not Found' }]);
    const refused = await fx.gantry.api('POST', notes(iid), { body: { body: 'psst', internal: true }, token: fx.guest.token });
    assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }]);
  });

  it('takes created_at from administrators and Owners only', async () => {
    const iid = await openIssue({ title: 'Backdated' });
    const owned = await comment(iid, { body: 'old', created_at: '2020-01-02T03:04:05.000Z' });
    assert.deepEqual([owned.created_at, owned.updated_at], ['2020-01-02T03:04:05.000Z', '2020-01-02T03:04:05.000Z']);
    const ignored = await comment(iid, { body: 'now', created_at: '2020-01-02T03:04:05.000Z' }, fx.maintainer.token);
    assert.notEqual(ignored.created_at, '2020-01-02T03:04:05.000Z');
  });

  it('takes notes on a locked discussion from members only, and none on an archived project', async () => {
    const group = await makeGroup(fx.gantry, 'open', { visibility: 'public' });
    const project = await makeProject(fx.gantry, group.id, 'town-square', { visibility: 'public' });
    const passerby = await makeUser(fx.gantry, 'passerby');
    const member = await makeUser(fx.gantry, 'square-guest');
    await addMember(fx.gantry, { type: 'project', id: project.id }, member.id, 10);
    const url = `/projects/${project.id}/issues`;
    const created = await fx.gantry.api('POST', url, { body: { title: 'Heated', discussion_locked: true } });
    const iid = Number(created.json.iid);
    assert.equal(created.json.discussion_locked, true);
    const note = await fx.gantry.api('POST', `${url}/${iid}/notes`, { body: { body: 'me too' }, token: member.token });
    assert.equal(note.status, 201);
    const outsider = await fx.gantry.api('POST', `${url}/${iid}/notes`, { body: { body: 'me too' }, token: passerby.token });
    assert.deepEqual([outsider.status, outsider.json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('GET', `${url}/${iid}/notes`, { token: passerby.token })).list.length, 1);
    await fx.gantry.api('PUT', `${url}/${iid}`, { body: { discussion_locked: false } });
    const mine = await fx.gantry.api('POST', `${url}/${iid}/notes`, { body: { body: 'now me' }, token: passerby.token });
    assert.equal(mine.status, 201);

    await fx.gantry.coordinator.context.stores.projects.update(project.id, { archived: true });
    const archived = await fx.gantry.api('POST', `${url}/${iid}/notes`, { body: { body: 'still here?' }, token: member.token });
    assert.deepEqual([archived.status, archived.json], [403, { message: '403 Forbidden' }]);
    assert.equal((await fx.gantry.api('PUT', `${url}/${iid}/notes/${mine.json.id}`, { body: { body: 'edit' }, token: passerby.token })).status, 403);
    const bodies = (await fx.gantry.api('GET', `${url}/${iid}/notes`, { token: passerby.token })).list.map((listed) => listed.body);
    assert.deepEqual(bodies, ['now me', 'unlocked the discussion in this issue', 'me too']);
  });
});
