import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeUser, type TestUser } from './groups-fixtures.ts';
import { download, PNG, sendMultipart } from './uploads-fixtures.ts';

describe('POST /projects/:id/uploads', () => {
  let gantry: TestCoordinator;
  let owner: TestUser;
  let outsider: TestUser;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    owner = await makeUser(gantry, 'owner');
    outsider = await makeUser(gantry, 'outsider');
    const created = await gantry.api('POST', '/projects', { token: owner.token, body: { name: 'Attach', visibility: 'private' } });
    projectId = created.json.id as number;
  });
  after(() => gantry.close());

  it('answers 201 with GitLab\'s alt, url, full_path and markdown, and serves the bytes there to project readers only', async () => {
    const uploaded = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: owner.token, files: [{ field: 'file', name: 'screen shot.png', content: PNG }] });
    assert.equal(uploaded.status, 201);
    const { alt, url, full_path: fullPath, markdown } = uploaded.json as Record<string, string>;
    assert.equal(alt, 'screen_shot');
    assert.match(url, /^\/uploads\/[0-9a-f]{32}\/screen_shot\.png$/);
    assert.equal(fullPath, `/owner/attach${url}`);
    assert.equal(markdown, `![screen_shot](${url})`);
    const served = await download(gantry, fullPath, owner.token);
    assert.deepEqual([served.status, served.type, served.disposition], [200, 'image/png', null]);
    assert.deepEqual(served.body, PNG);
    assert.equal((await download(gantry, fullPath)).status, 404);
    assert.equal((await download(gantry, fullPath, outsider.token)).status, 404);
    assert.equal((await download(gantry, fullPath.replace(/[0-9a-f]{32}/, 'f'.repeat(32)), owner.token)).status, 404);
    assert.equal((await download(gantry, fullPath.replace('screen_shot.png', 'other.png'), owner.token)).status, 404);
  });

  it('serves a file that is not an image as an attachment, linked by its whole name', async () => {
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const uploaded = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: owner.token, files: [{ field: 'file', name: 'page.html', content: html, type: 'text/html' }] });
    assert.equal(uploaded.status, 201);
    assert.equal(uploaded.json.alt, 'page.html');
    assert.equal(uploaded.json.markdown, `[page.html](${uploaded.json.url as string})`);
    const served = await download(gantry, uploaded.json.full_path as string, owner.token);
    assert.equal(served.type, 'application/octet-stream');
    assert.equal(served.disposition, 'attachment; filename="page.html"');
    assert.deepEqual(served.body, html);
  });

  it('bounds files by max_attachment_size (MB)', async () => {
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { max_attachment_size: 1 } })).status, 200);
    const exactly = Buffer.alloc(1024 * 1024, 7);
    const fits = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: owner.token, files: [{ field: 'file', name: 'one.bin', content: exactly }] });
    assert.equal(fits.status, 201);
    const over = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: owner.token, files: [{ field: 'file', name: 'two.bin', content: Buffer.alloc(2 * 1024 * 1024, 7) }] });
    assert.deepEqual([over.status, over.json], [413, { message: '413 Request Entity Too Large' }]);
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { max_attachment_size: 10 } })).status, 200);
  });

  it('answers 400 without a file, 401 anonymous, 404 for a project the caller cannot read', async () => {
    const missing = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: owner.token, fields: { file: 'not a file' } });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'file is missing' }]);
    const files = [{ field: 'file', name: 'a.png', content: PNG }];
    assert.equal((await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: null, files })).status, 401);
    const hidden = await sendMultipart(gantry, 'POST', `/projects/${projectId}/uploads`, { token: outsider.token, files });
    assert.deepEqual([hidden.status, hidden.json], [404, { message: '404 Project Not Found' }]);
    assert.equal((await sendMultipart(gantry, 'POST', '/projects/999999/uploads', { files })).status, 404);
  });
});
