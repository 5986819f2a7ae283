import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NoteRecord } from '../../src/storage/types-notes.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { makeGroup, makeProject, makeUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

describe('award emoji on issues and their notes', () => {
  let fx: CiSettingsFixture;
  let issueId: number;
  const issues = (suffix = '') => `/projects/${fx.project.id}/issues${suffix}`;
  const awards = (iid = 1, suffix = '') => issues(`/${iid}/award_emoji${suffix}`);

  /** A note written straight into the store: the notes API is another area's. */
  const note = async (noteableId: number, fields: Partial<NoteRecord> = {}): Promise<NoteRecord> => {
    const now = new Date().toISOString();
    return fx.gantry.coordinator.context.stores.notes.create({
      project_id: fx.project.id, noteable_type: 'Issue', noteable_id: noteableId, author_id: fx.developer.id, body: 'a note',
      system: false, internal: false, created_at: now, updated_at: now, ...fields,
    });
  };

  before(async () => {
    fx = await startCiSettingsFixture();
    issueId = Number((await fx.gantry.api('POST', issues(), { body: { title: 'first' } })).json.id);
    await fx.gantry.api('POST', issues(), { body: { title: 'second' } });
    await fx.gantry.api('POST', issues(), { body: { title: 'third' } });
  });
  after(() => fx.close());

  it('awards an emoji (201, GitLab-shaped), lists it and gets it by id', async () => {
    const created = await fx.gantry.api('POST', awards(), { body: { name: 'tada' }, token: fx.guest.token });
    assert.equal(created.status, 201, created.text);
    const award = created.json;
    assert.deepEqual([award.name, award.awardable_id, award.awardable_type, (award.user as Json).username], ['tada', issueId, 'Issue', fx.guest.username]);
    assert.equal(typeof award.created_at, 'string');
    assert.equal(award.updated_at, award.created_at);
    const listed = await fx.gantry.api('GET', awards());
    assert.deepEqual([listed.status, listed.list.map((item) => item.id), listed.headers['x-total']], [200, [award.id], '1']);
    const one = await fx.gantry.api('GET', awards(1, `/${String(award.id)}`), { token: fx.reporter.token });
    assert.deepEqual(one.json, award);
  });

  it('refuses an unknown name, the same award twice and a missing name, as GitLab does', async () => {
    const unknown = await fx.gantry.api('POST', awards(), { body: { name: 'not_an_emoji' } });
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 Award Emoji Name is not a valid emoji name Not Found' }]);
    const twice = await fx.gantry.api('POST', awards(), { body: { name: 'tada' }, token: fx.guest.token });
    assert.deepEqual([twice.status, twice.json], [404, { message: '404 Award Emoji Name has already been taken Not Found' }]);
    const missing = await fx.gantry.api('POST', awards(), { body: {} });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'name is missing' }]);
    // Someone else may award the same name.
    assert.equal((await fx.gantry.api('POST', awards(), { body: { name: 'tada' }, token: fx.reporter.token })).status, 201);
  });

  it('stores +1 and -1 as thumbsup and thumbsdown, and counts them as upvotes and downvotes in every issue answer', async () => {
    const up = await fx.gantry.api('POST', awards(2), { body: { name: '+1' }, token: fx.developer.token });
    assert.deepEqual([up.status, up.json.name], [201, 'thumbsup']);
    assert.equal((await fx.gantry.api('POST', awards(2), { body: { name: 'thumbsup' }, token: fx.reporter.token })).status, 201);
    assert.equal((await fx.gantry.api('POST', awards(2), { body: { name: '-1' }, token: fx.guest.token })).status, 201);
    const again = await fx.gantry.api('POST', awards(2), { body: { name: 'thumbsup' }, token: fx.developer.token });
    assert.equal(again.status, 404);
    const single = (await fx.gantry.api('GET', issues('/2'))).json;
    assert.deepEqual([single.upvotes, single.downvotes], [2, 1]);
    const listed = (await fx.gantry.api('GET', issues('?sort=asc'))).list;
    assert.deepEqual(listed.map((issue) => [issue.iid, issue.upvotes, issue.downvotes]), [[1, 0, 0], [2, 2, 1], [3, 0, 0]]);
  });

  it("filters a list by the caller's own reactions: a name (or its alias), Any and None", async () => {
    const mine = async (value: string, token = fx.developer.token) =>
      (await fx.gantry.api('GET', issues(`?sort=asc&my_reaction_emoji=${encodeURIComponent(value)}`), { token })).list.map((issue) => issue.iid);
    assert.deepEqual(await mine('thumbsup'), [2]);
    assert.deepEqual(await mine('+1'), [2]);
    assert.deepEqual(await mine('tada'), []);
    assert.deepEqual(await mine('Any'), [2]);
    assert.deepEqual(await mine('None'), [1, 3]);
    assert.deepEqual(await mine('tada', fx.guest.token), [1]);
    assert.deepEqual(await mine('any', fx.guest.token), [1, 2]);
    assert.deepEqual(await mine('none', fx.maintainer.token), [1, 2, 3]);
    assert.deepEqual(await mine('not_an_emoji', fx.guest.token), []);
  });

  it('lets only the awarder, or an administrator, take an award back', async () => {
    const award = (await fx.gantry.api('POST', awards(3), { body: { name: 'rocket' }, token: fx.developer.token })).json;
    const path = awards(3, `/${String(award.id)}`);
    const other = await fx.gantry.api('DELETE', path, { token: fx.maintainer.token });
    assert.deepEqual([other.status, other.json], [401, { message: '401 Unauthorized' }]);
    assert.equal((await fx.gantry.api('DELETE', path, { token: fx.developer.token })).status, 204);
    assert.deepEqual((await fx.gantry.api('GET', path)).json, { message: '404 Award Emoji Not Found' });
    const theirs = (await fx.gantry.api('POST', awards(3), { body: { name: 'eyes' }, token: fx.guest.token })).json;
    assert.equal((await fx.gantry.api('DELETE', awards(3, `/${String(theirs.id)}`))).status, 204);
    // An award id of another issue is not found under this one.
    const elsewhere = (await fx.gantry.api('GET', awards(1))).list[0]!;
    assert.deepEqual((await fx.gantry.api('DELETE', awards(3, `/${String(elsewhere.id)}`))).json, { message: '404 Award Emoji Not Found' });
  });

  it('awards notes of the issue, never system notes, notes of another issue or internal notes a Guest may not read', async () => {
    const written = await note(issueId);
    const base = issues(`/1/notes/${written.id}/award_emoji`);
    const created = await fx.gantry.api('POST', base, { body: { name: 'heart' }, token: fx.guest.token });
    assert.deepEqual([created.status, created.json.awardable_type, created.json.awardable_id], [201, 'Note', written.id]);
    assert.deepEqual((await fx.gantry.api('GET', base)).list.map((item) => item.name), ['heart']);
    assert.equal((await fx.gantry.api('GET', `${base}/${String(created.json.id)}`)).json.name, 'heart');
    // The note's award is not the issue's.
    assert.deepEqual((await fx.gantry.api('GET', awards(1, `/${String(created.json.id)}`))).json, { message: '404 Award Emoji Not Found' });

    const system = await note(issueId, { system: true, body: 'changed the description' });
    const refused = await fx.gantry.api('POST', issues(`/1/notes/${system.id}/award_emoji`), { body: { name: 'heart' } });
    assert.deepEqual([refused.status, refused.json], [404, { message: '404 Award Emoji Awardable cannot be awarded emoji Not Found' }]);
    assert.deepEqual((await fx.gantry.api('GET', issues(`/2/notes/${written.id}/award_emoji`))).json, { message: '404 Note Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', issues('/1/notes/999999/award_emoji'))).json, { message: '404 Note Not Found' });

    const internal = await note(issueId, { internal: true });
    const internalBase = issues(`/1/notes/${internal.id}/award_emoji`);
    assert.deepEqual((await fx.gantry.api('GET', internalBase, { token: fx.guest.token })).json, { message: '404 Note Not Found' });
    assert.equal((await fx.gantry.api('POST', internalBase, { body: { name: 'heart' }, token: fx.reporter.token })).status, 201);
  });

  it('needs a signed-in caller who sees the issue: 401 anonymous, 404 strangers and confidential issues', async () => {
    for (const [method, path] of [['GET', awards()], ['POST', awards()], ['GET', awards(1, '/1')], ['DELETE', awards(1, '/1')]] as const) {
      const anonymous = await fx.gantry.api(method, path, { token: null, body: method === 'POST' ? { name: 'tada' } : undefined });
      assert.deepEqual([anonymous.status, anonymous.json], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
    }
    assert.deepEqual((await fx.gantry.api('GET', awards(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', awards(99))).json, { message: '404 Issue Not Found' });
    const secret = (await fx.gantry.api('POST', issues(), { body: { title: 'secret', confidential: true }, token: fx.reporter.token })).json;
    const probe = await fx.gantry.api('POST', awards(Number(secret.iid)), { body: { name: 'tada' }, token: fx.guest.token });
    assert.deepEqual(probe.json, { message: '404 Issue Not Found' });
    assert.equal((await fx.gantry.api('POST', awards(Number(secret.iid)), { body: { name: 'tada' }, token: fx.developer.token })).status, 201);
  });

  it('refuses awards from non-members on a locked discussion of a public project, and deletes awards with their issue', async () => {
    const group = await makeGroup(fx.gantry, 'open', { visibility: 'public' });
    const project = await makeProject(fx.gantry, group.id, 'public-app', { visibility: 'public' });
    const outsider = await makeUser(fx.gantry, 'outsider');
    const url = `/projects/${project.id}/issues`;
    await fx.gantry.api('POST', url, { body: { title: 'locked', discussion_locked: true } });
    await fx.gantry.api('POST', url, { body: { title: 'open' } });
    const locked = await fx.gantry.api('POST', `${url}/1/award_emoji`, { body: { name: 'tada' }, token: outsider.token });
    assert.deepEqual([locked.status, locked.json], [404, { message: '404 Award Emoji User cannot award emoji to awardable Not Found' }]);
    assert.equal((await fx.gantry.api('POST', `${url}/1/award_emoji`, { body: { name: 'tada' } })).status, 201);
    assert.equal((await fx.gantry.api('POST', `${url}/2/award_emoji`, { body: { name: 'tada' }, token: outsider.token })).status, 201);

    const deleted = (await fx.gantry.api('GET', `${url}/1`)).json;
    assert.equal((await fx.gantry.api('DELETE', `${url}/1`)).status, 204);
    const left = await fx.gantry.coordinator.context.stores.awardEmoji.list({ type: 'Issue', id: Number(deleted.id) }, { offset: 0, limit: 10 });
    assert.equal(left.total, 0);
  });
});
