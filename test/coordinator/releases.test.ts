import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

describe('Releases API', () => {
  let gantry: TestCoordinator;
  let developer: TestUser;
  let reporter: TestUser;
  let outsider: TestUser;
  let base: string;
  let repository: string;
  let head: string;

  before(async () => {
    gantry = await startTestCoordinator();
    developer = await makeUser(gantry, 'dev');
    reporter = await makeUser(gantry, 'rep');
    outsider = await makeUser(gantry, 'outsider');
    const group = await makeGroup(gantry, 'acme');
    const project = await makeProjectWithRepository(gantry, group.id, 'tool', { withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(gantry, { type: 'project', id: project.id }, reporter.id, 20);
    base = `/projects/${project.id}/releases`;
    repository = `/projects/${project.id}/repository`;
    head = (await gantry.api('GET', `${repository}/commits/main`)).json.id as string;
    assert.equal((await gantry.api('POST', `${repository}/tags`, { body: { tag_name: 'v1.0', ref: 'main' } })).status, 201);
  });
  after(() => gantry.close());

  it('creates a release for an existing tag with every field', async () => {
    const created = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v1.0', name: 'First', description: 'Notes', released_at: '2026-01-02T03:04:05Z' } });
    assert.equal(created.status, 201, created.text);
    const release = created.json;
    assert.equal(release.tag_name, 'v1.0');
    assert.equal(release.name, 'First');
    assert.equal(release.description, 'Notes');
    assert.equal(release.released_at, '2026-01-02T03:04:05.000Z');
    assert.equal(release.upcoming_release, false);
    assert.equal((release.author as Json).username, 'dev');
    assert.equal((release.commit as Json).id, head);
    assert.equal(release.commit_path, `/acme/tool/-/commit/${head}`);
    assert.equal(release.tag_path, '/acme/tool/-/tags/v1.0');
    assert.deepEqual((release.assets as Json).sources, [
      { format: 'zip', url: 'http://gantry.test/acme/tool/-/archive/v1.0/tool-v1.0.zip' },
      { format: 'tar.gz', url: 'http://gantry.test/acme/tool/-/archive/v1.0/tool-v1.0.tar.gz' },
      { format: 'tar.bz2', url: 'http://gantry.test/acme/tool/-/archive/v1.0/tool-v1.0.tar.bz2' },
      { format: 'tar', url: 'http://gantry.test/acme/tool/-/archive/v1.0/tool-v1.0.tar' },
    ]);
    assert.deepEqual(release._links, { self: 'http://gantry.test/acme/tool/-/releases/v1.0', edit_url: 'http://gantry.test/acme/tool/-/releases/v1.0/edit' });
    const tag = await gantry.api('GET', `${repository}/tags/v1.0`);
    assert.deepEqual(tag.json.release, { tag_name: 'v1.0', description: 'Notes' });
  });

  it('creates the tag from ref when it is missing; 422 without ref; 409 when the release exists', async () => {
    const created = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'release/2.0', ref: 'main', released_at: '2999-01-01T00:00:00Z' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.name, 'release/2.0');
    assert.equal(created.json.upcoming_release, true);
    assert.equal((await gantry.api('GET', `${repository}/tags/${encodeURIComponent('release/2.0')}`)).status, 200);
    const noRef = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v3.0' } });
    assert.deepEqual([noRef.status, noRef.json], [422, { message: 'Ref is not specified' }]);
    const again = await gantry.api('POST', base, { token: developer.token, body: { tag_name: 'v1.0' } });
    assert.deepEqual([again.status, again.json], [409, { message: 'Release already exists' }]);
  });

  it('lists by released_at (newest first by default) or created_at, paginated', async () => {
    const list = await gantry.api('GET', base, { token: reporter.token });
    assert.deepEqual(list.list.map((release) => release.tag_name), ['release/2.0', 'v1.0']);
    assert.equal(list.headers['x-total'], '2');
    const ascending = await gantry.api('GET', `${base}?sort=asc&per_page=1`, { token: reporter.token });
    assert.deepEqual(ascending.list.map((release) => release.tag_name), ['v1.0']);
    const byCreation = await gantry.api('GET', `${base}?order_by=created_at&sort=asc`);
    assert.deepEqual(byCreation.list.map((release) => release.tag_name), ['v1.0', 'release/2.0']);
    assert.equal((await gantry.api('GET', `${base}?order_by=title`)).status, 400);
  });

  it('gets one release (tag names with slashes encoded) or 404', async () => {
    const one = await gantry.api('GET', `${base}/${encodeURIComponent('release/2.0')}`, { token: reporter.token });
    assert.equal(one.status, 200);
    assert.equal(one.json.tag_path, '/acme/tool/-/tags/release/2.0');
    const missing = await gantry.api('GET', `${base}/v9`);
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Not Found' }]);
  });

  it('updates name, description and released_at', async () => {
    const updated = await gantry.api('PUT', `${base}/v1.0`, { token: developer.token, body: { name: 'Renamed', description: 'New notes' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.json.name, 'Renamed');
    assert.equal(updated.json.description, 'New notes');
    assert.equal(updated.json.released_at, '2026-01-02T03:04:05.000Z');
    assert.equal((await gantry.api('PUT', `${base}/v9`, { body: { name: 'x' } })).status, 404);
    assert.equal((await gantry.api('PUT', `${base}/v1.0`, { body: { released_at: 'yesterday' } })).status, 400);
  });

  it('refuses milestones that do not exist and bad asset links, writing nothing', async () => {
    const milestone = await gantry.api('PUT', `${base}/v1.0`, { body: { milestones: ['v1'] } });
    assert.deepEqual([milestone.status, milestone.json], [400, { message: 'Milestone(s) not found: v1' }]);
    const links = await gantry.api('POST', base, { body: { tag_name: 'v1.1', ref: 'main', assets: { links: [{ name: 'bin', url: 'javascript:alert(1)' }] } } });
    assert.deepEqual([links.status, links.json], [400, { message: { url: ['is blocked: Only allowed schemes are http, https, ftp'] } }]);
    const twice = { name: 'bin', url: 'https://example.com/bin' };
    const duplicate = await gantry.api('POST', base, { body: { tag_name: 'v1.1', ref: 'main', assets: { links: [twice, twice] } } });
    assert.equal(duplicate.status, 400);
    assert.equal((await gantry.api('GET', `${repository}/tags/v1.1`)).status, 404, 'no tag was created either');
  });

  it('applies permissions: reporters read, developers write, maintainers delete, strangers see nothing', async () => {
    assert.equal((await gantry.api('GET', base, { token: outsider.token })).status, 404);
    assert.equal((await gantry.api('POST', base, { token: reporter.token, body: { tag_name: 'v1.0' } })).status, 403);
    assert.equal((await gantry.api('DELETE', `${base}/v1.0`, { token: developer.token })).status, 403);
    const deleted = await gantry.api('DELETE', `${base}/v1.0`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.json.name, 'Renamed');
    assert.equal((await gantry.api('GET', `${base}/v1.0`)).status, 404);
    assert.equal((await gantry.api('GET', `${repository}/tags/v1.0`)).status, 200, 'the tag stays');
  });
});
