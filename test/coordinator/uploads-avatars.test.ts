import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';
import { download, GIF, PNG, sendMultipart } from './uploads-fixtures.ts';

const TOO_BIG = { message: { avatar: ['is too big (should be at most 200 KB)'] } };
const NOT_IMAGE = { message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] } };

describe('avatars of users, projects and groups', () => {
  let gantry: TestCoordinator;
  let bob: TestUser;

  before(async () => {
    gantry = await startTestCoordinator();
    bob = await makeUser(gantry, 'bob');
  });
  after(() => gantry.close());

  it('POST /users keeps a multipart avatar and serves the same bytes at avatar_url, to anyone', async () => {
    const fields = { username: 'pic', name: 'Pic', email: 'pic@example.com', password: 'secret-password-1' };
    const created = await sendMultipart(gantry, 'POST', '/users', { fields, files: [{ field: 'avatar', name: 'me.png', content: PNG, type: 'image/png' }] });
    assert.equal(created.status, 201);
    const id = created.json.id as number;
    assert.equal(created.json.avatar_url, `http://gantry.test/uploads/-/system/user/avatar/${id}/me.png`);
    const served = await download(gantry, created.json.avatar_url as string);
    assert.equal(served.status, 200);
    assert.equal(served.type, 'image/png');
    assert.deepEqual(served.body, PNG);
    assert.equal((await gantry.api('GET', `/users/${id}`, { token: null })).json.avatar_url, created.json.avatar_url);
  });

  it('PUT /users/:id replaces the avatar: the new one is served, the old address is gone; the type comes from the content', async () => {
    const user = await makeUser(gantry, 'swap');
    const first = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { files: [{ field: 'avatar', name: 'a.png', content: PNG }] });
    assert.equal(first.status, 200);
    // A GIF named .png is kept as a GIF: the name's extension follows the content.
    const second = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { fields: { bio: 'b' }, files: [{ field: 'avatar', name: 'b.png', content: GIF }] });
    assert.equal(second.status, 200);
    assert.equal(second.json.bio, 'b');
    assert.equal(second.json.avatar_url, `http://gantry.test/uploads/-/system/user/avatar/${user.id}/b.gif`);
    const served = await download(gantry, second.json.avatar_url as string);
    assert.deepEqual([served.status, served.type], [200, 'image/gif']);
    assert.deepEqual(served.body, GIF);
    assert.equal((await download(gantry, first.json.avatar_url as string)).status, 404);
  });

  it('refuses a file over 200 KB and one that is not an image, whatever its name, and keeps nothing', async () => {
    const user = await makeUser(gantry, 'bounds');
    const atLimit = Buffer.concat([PNG, Buffer.alloc(200 * 1024 - PNG.length)]);
    const fits = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { files: [{ field: 'avatar', name: 'fits.png', content: atLimit }] });
    assert.equal(fits.status, 200);
    const over = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { files: [{ field: 'avatar', name: 'big.png', content: Buffer.concat([atLimit, Buffer.from([0])]) }] });
    assert.deepEqual([over.status, over.json], [400, TOO_BIG]);
    const text = await sendMultipart(gantry, 'PUT', `/users/${user.id}`, { files: [{ field: 'avatar', name: 'page.png', content: Buffer.from('<html><script>alert(1)</script>'), type: 'image/png' }] });
    assert.deepEqual([text.status, text.json], [400, NOT_IMAGE]);
    const created = await sendMultipart(gantry, 'POST', '/users', {
      fields: { username: 'never', name: 'N', email: 'never@example.com', password: 'secret-password-1' },
      files: [{ field: 'avatar', name: 'x.svg', content: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }],
    });
    assert.deepEqual([created.status, created.json], [400, NOT_IMAGE]);
    assert.equal((await gantry.api('GET', '/users?username=never')).list.length, 0);
    assert.equal((await gantry.api('GET', `/users/${user.id}`)).json.avatar_url, fits.json.avatar_url);
  });

  it('is for administrators (403), of users that exist (404), and signed in (401)', async () => {
    const files = [{ field: 'avatar', name: 'a.png', content: PNG }];
    assert.equal((await sendMultipart(gantry, 'PUT', `/users/${bob.id}`, { files, token: bob.token })).status, 403);
    assert.equal((await sendMultipart(gantry, 'PUT', '/users/999999', { files })).status, 404);
    assert.equal((await sendMultipart(gantry, 'PUT', `/users/${bob.id}`, { files, token: null })).status, 401);
    const fields = { username: 'sneaky', name: 'S', email: 'sneaky@example.com', password: 'secret-password-1' };
    assert.equal((await sendMultipart(gantry, 'POST', '/users', { fields, files, token: bob.token })).status, 403);
    assert.equal((await download(gantry, `/uploads/-/system/user/avatar/${bob.id}/a.png`)).status, 404);
    assert.equal((await download(gantry, '/uploads/-/system/user/avatar/abc/a.png')).status, 404);
  });

  it('a private project\'s avatar is served only to those who can read the project; an avatar alone is an edit', async () => {
    const created = await sendMultipart(gantry, 'POST', '/projects', { fields: { name: 'Pictured', visibility: 'private' }, token: bob.token, files: [{ field: 'avatar', name: 'logo.png', content: PNG }] });
    assert.equal(created.status, 201);
    const id = created.json.id as number;
    assert.equal(created.json.avatar_url, `http://gantry.test/uploads/-/system/project/avatar/${id}/logo.png`);
    assert.equal((await download(gantry, created.json.avatar_url as string)).status, 404);
    const mallory = await makeUser(gantry, 'mallory');
    assert.equal((await download(gantry, created.json.avatar_url as string, mallory.token)).status, 404);
    const owner = await download(gantry, created.json.avatar_url as string, bob.token);
    assert.deepEqual([owner.status, owner.body], [200, PNG]);
    const edited = await sendMultipart(gantry, 'PUT', `/projects/${id}`, { token: bob.token, files: [{ field: 'avatar', name: 'logo2.gif', content: GIF }] });
    assert.equal(edited.status, 200);
    assert.equal(edited.json.avatar_url, `http://gantry.test/uploads/-/system/project/avatar/${id}/logo2.gif`);
    assert.equal((await sendMultipart(gantry, 'PUT', `/projects/${id}`, { token: mallory.token, files: [{ field: 'avatar', name: 'x.png', content: PNG }] })).status, 404);
    const bad = await sendMultipart(gantry, 'PUT', `/projects/${id}`, { token: bob.token, files: [{ field: 'avatar', name: 'x.png', content: Buffer.from('plain text') }] });
    assert.deepEqual([bad.status, bad.json], [400, NOT_IMAGE]);
  });

  it('group avatars: POST and PUT /groups; a public group\'s avatar needs no sign-in', async () => {
    const created = await sendMultipart(gantry, 'POST', '/groups', { fields: { name: 'Painters', path: 'painters', visibility: 'public' }, files: [{ field: 'avatar', name: 'g.png', content: PNG }] });
    assert.equal(created.status, 201);
    const id = created.json.id as number;
    assert.equal(created.json.avatar_url, `http://gantry.test/uploads/-/system/group/avatar/${id}/g.png`);
    assert.deepEqual((await download(gantry, created.json.avatar_url as string)).body, PNG);
    const edited = await sendMultipart(gantry, 'PUT', `/groups/${id}`, { fields: { description: 'd' }, files: [{ field: 'avatar', name: 'h.gif', content: GIF }] });
    assert.equal(edited.status, 200);
    assert.equal(edited.json.avatar_url, `http://gantry.test/uploads/-/system/group/avatar/${id}/h.gif`);
    assert.equal((await gantry.api('GET', `/groups/${id}`, { token: null })).json.avatar_url, edited.json.avatar_url);
    const hidden = await sendMultipart(gantry, 'POST', '/groups', { fields: { name: 'Hidden', path: 'hidden', visibility: 'private' }, files: [{ field: 'avatar', name: 'g.png', content: PNG }] });
    assert.equal((await download(gantry, hidden.json.avatar_url as string)).status, 404);
  });
});

describe('avatars and uploads through python-gitlab', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('uploads avatars of a user, a project and a group and reads the same bytes back; uploads a file to a project', async () => {
    const seen = await drivePythonGitlab(gantry, 'drive_uploads.py');
    assert.deepEqual(seen, {
      user_avatar: [true, 'image/png'],
      user_avatar_saved: true,
      project_avatar: [true, 'image/png'],
      group_avatar: true,
      upload: ['notes.txt', true],
      upload_bytes: 'some notes',
    });
  });
});
