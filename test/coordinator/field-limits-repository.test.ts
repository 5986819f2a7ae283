import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type ApiResponse, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

const MILLION = 1_000_000;

function assertTooLong(response: ApiResponse, field: string, maximum: number): void {
  assert.equal(response.status, 400, response.text.slice(0, 300));
  assert.deepEqual(response.json, { message: { [field]: [`is too long (maximum is ${maximum} characters)`] } });
}

function assertAccepted(response: ApiResponse, status: number): void {
  assert.equal(response.status, status, response.text.slice(0, 300));
}

/** Releases, asset links, tags, commits, commit comments and protected refs. */
describe('text field limits: repository resources', () => {
  let gantry: TestCoordinator;
  let base: string;

  before(async () => {
    // Values at the 1,000,000-character limits travel in bodies of about 1 MB: room for them
    // whatever the default body limit is.
    gantry = await startTestCoordinator({ extra: { bodyLimit: 8 * 1024 * 1024 } });
    const group = await makeGroup(gantry, 'repo-limits');
    base = `/projects/${(await makeProjectWithRepository(gantry, group.id, 'code', { withReadme: true })).id}`;
  });
  after(() => gantry.close());

  const send = (method: 'POST' | 'PUT', path: string, body: Record<string, unknown>) => gantry.api(method, `${base}${path}`, { body });

  it('commits (commits and files APIs): message 1,000,000, author name and email 255', async () => {
    const commit = (extra: Record<string, unknown>) =>
      send('POST', '/repository/commits', { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: `f${Math.random()}.txt`, content: 'x' }], ...extra });
    assertTooLong(await commit({ commit_message: 'm'.repeat(MILLION + 1) }), 'commit_message', MILLION);
    assertAccepted(await commit({ commit_message: 'm'.repeat(MILLION) }), 201);
    assertTooLong(await commit({ author_name: 'a'.repeat(256), author_email: 'a@example.com' }), 'author_name', 255);
    assertAccepted(await commit({ author_name: 'a'.repeat(255), author_email: 'a@example.com' }), 201);
    const file = (message: string) => send('POST', '/repository/files/limits.txt', { branch: 'main', content: 'x', commit_message: message });
    assertTooLong(await file('m'.repeat(MILLION + 1)), 'commit_message', MILLION);
    assertAccepted(await file('m'.repeat(MILLION)), 201);
  });

  it('commit comments: note 1,000,000', async () => {
    assertTooLong(await send('POST', '/repository/commits/main/comments', { note: 'n'.repeat(MILLION + 1) }), 'note', MILLION);
    assertAccepted(await send('POST', '/repository/commits/main/comments', { note: 'n'.repeat(MILLION) }), 201);
  });

  it('tags: message and release description 1,000,000', async () => {
    assertTooLong(await send('POST', '/repository/tags', { tag_name: 'v0', ref: 'main', message: 'm'.repeat(MILLION + 1) }), 'message', MILLION);
    assertAccepted(await send('POST', '/repository/tags', { tag_name: 'v0', ref: 'main', message: 'm'.repeat(MILLION) }), 201);
    assertTooLong(await send('POST', '/repository/tags/v0/release', { description: 'd'.repeat(MILLION + 1) }), 'description', MILLION);
    assertAccepted(await send('POST', '/repository/tags/v0/release', { description: 'd'.repeat(MILLION) }), 201);
    assertTooLong(await send('PUT', '/repository/tags/v0/release', { description: 'd'.repeat(MILLION + 1) }), 'description', MILLION);
  });

  it('releases: description 1,000,000, name 255', async () => {
    assertTooLong(await send('POST', '/releases', { tag_name: 'v1', ref: 'main', description: 'd'.repeat(MILLION + 1) }), 'description', MILLION);
    assertTooLong(await send('POST', '/releases', { tag_name: 'v1', ref: 'main', name: 'n'.repeat(256) }), 'name', 255);
    assertAccepted(await send('POST', '/releases', { tag_name: 'v1', ref: 'main', name: 'n'.repeat(255), description: 'd'.repeat(MILLION) }), 201);
    assertTooLong(await send('PUT', '/releases/v1', { name: 'n'.repeat(256) }), 'name', 255);
    assertTooLong(await send('PUT', '/releases/v1', { description: 'd'.repeat(MILLION + 1) }), 'description', MILLION);
  });

  it('release links: name 255, url 2,048, filepath 128', async () => {
    const links = '/releases/v1/assets/links';
    const url = (length: number) => `https://example.com/${'u'.repeat(length - 'https://example.com/'.length)}`;
    assertTooLong(await send('POST', links, { name: 'n'.repeat(256), url: url(100) }), 'name', 255);
    assertTooLong(await send('POST', links, { name: 'long url', url: url(2049) }), 'url', 2048);
    assertTooLong(await send('POST', links, { name: 'long path', url: url(100), filepath: `/${'f'.repeat(128)}` }), 'filepath', 128);
    const created = await send('POST', links, { name: 'n'.repeat(255), url: url(2048), filepath: `/${'f'.repeat(127)}` });
    assertAccepted(created, 201);
    assertTooLong(await send('PUT', `${links}/${created.json.id}`, { name: 'n'.repeat(256) }), 'name', 255);
    const release = await send('POST', '/releases', { tag_name: 'v2', ref: 'main', assets: { links: [{ name: 'n'.repeat(256), url: url(100) }] } });
    assertTooLong(release, 'name', 255);
  });

  it('protected branches and tags: name 255', async () => {
    assertTooLong(await send('POST', '/protected_branches', { name: 'b'.repeat(256) }), 'name', 255);
    assertAccepted(await send('POST', '/protected_branches', { name: 'b'.repeat(255) }), 201);
    assertTooLong(await send('POST', '/protected_tags', { name: 't'.repeat(256) }), 'name', 255);
    assertAccepted(await send('POST', '/protected_tags', { name: 't'.repeat(255) }), 201);
  });
});
