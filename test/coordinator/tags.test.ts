import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const ZERO = '0000000000000000000000000000000000000000';

describe('tags and releases API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord & { full_path: string };
  let firstSha: string;
  let secondSha: string;
  const url = (suffix = '') => `/projects/${project.id}/repository/tags${suffix}`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('tagged', { withReadme: true });
    firstSha = ((await fx.gantry.api('GET', `/projects/${project.id}/repository/branches/main`)).json.commit as { id: string }).id;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    secondSha = String((await fx.commit(project, { branch: 'main', commit_message: 'Second', actions: [{ action: 'create', file_path: 's.txt', content: 's' }] })).id);
  });
  after(() => fx.close());

  it('creates lightweight and annotated tags, with a release, publishing pushes', async () => {
    const light = await fx.gantry.api('POST', url(), { form: { tag_name: 'v1.0', ref: firstSha }, token: fx.developer.token });
    assert.equal(light.status, 201);
    assert.equal(light.json.message, null);
    assert.equal(light.json.target, firstSha);
    assert.equal(light.json.release, null);
    assert.equal(light.json.protected, false);
    assert.equal((light.json.commit as { id: string }).id, firstSha);
    assert.deepEqual(fx.pushEvents.at(-1), { project_id: project.id, ref: 'refs/tags/v1.0', before: ZERO, after: firstSha, user_id: fx.developer.id });
    const annotated = await fx.gantry.api('POST', url(), { body: { tag_name: 'release/2.0', ref: 'main', message: 'Big release', release_description: '## Notes' } });
    assert.equal(annotated.status, 201);
    assert.equal(String(annotated.json.message).trim(), 'Big release');
    assert.notEqual(annotated.json.target, secondSha);
    assert.equal((annotated.json.commit as { id: string }).id, secondSha);
    assert.deepEqual(annotated.json.release, { tag_name: 'release/2.0', description: '## Notes' });
  });

  it('answers 405 with a message when creation fails', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ tag_name: 'v1.0', ref: 'main' }, 'Tag v1.0 already exists'],
      [{ tag_name: 'v9', ref: 'nowhere' }, 'Target nowhere is invalid'],
      [{ tag_name: 'bad name', ref: 'main' }, 'Tag name invalid'],
    ];
    for (const [form, message] of cases) {
      const response = await fx.gantry.api('POST', url(), { form });
      assert.deepEqual([response.status, response.json], [405, { message }], JSON.stringify(form));
    }
    assert.deepEqual((await fx.gantry.api('POST', url(), { form: { ref: 'main' } })).json, { error: 'tag_name is missing' });
  });

  it('lists by updated desc by default, by name on request, with search and pagination', async () => {
    const byUpdated = await fx.gantry.api('GET', url());
    assert.equal(byUpdated.status, 200);
    assert.deepEqual(byUpdated.list.map((tag) => tag.name), ['release/2.0', 'v1.0']);
    assert.equal(byUpdated.headers['x-total'], '2');
    const byName = await fx.gantry.api('GET', `${url()}?order_by=name&sort=asc`);
    assert.deepEqual(byName.list.map((tag) => tag.name), ['release/2.0', 'v1.0']);
    const byNameDesc = await fx.gantry.api('GET', `${url()}?order_by=name`);
    assert.deepEqual(byNameDesc.list.map((tag) => tag.name), ['v1.0', 'release/2.0']);
    assert.deepEqual((await fx.gantry.api('GET', `${url()}?search=v1`)).list.map((tag) => tag.name), ['v1.0']);
    assert.equal((await fx.gantry.api('GET', `${url()}?per_page=1&page=2`)).list.length, 1);
    assert.equal((await fx.gantry.api('GET', `${url()}?order_by=size`)).status, 400);
    assert.equal((await fx.gantry.api('GET', `${url()}?sort=up`)).status, 400);
  });

  it('gets one tag by URL-encoded name; 404 for unknown', async () => {
    const tag = await fx.gantry.api('GET', url(`/${enc('release/2.0')}`), { token: fx.reporter.token });
    assert.equal(tag.status, 200);
    assert.equal(tag.json.name, 'release/2.0');
    const missing = await fx.gantry.api('GET', url('/v404'));
    assert.deepEqual([missing.status, missing.json], [404, { message: '404 Tag Not Found' }]);
  });

  it('adds and updates release notes', async () => {
    const created = await fx.gantry.api('POST', url('/v1.0/release'), { form: { description: 'First' }, token: fx.developer.token });
    assert.deepEqual([created.status, created.json], [201, { tag_name: 'v1.0', description: 'First' }]);
    const again = await fx.gantry.api('POST', url('/v1.0/release'), { form: { description: 'Again' } });
    assert.deepEqual([again.status, again.json], [409, { message: 'Release already exists' }]);
    const updated = await fx.gantry.api('PUT', url('/v1.0/release'), { form: { description: 'Changed' } });
    assert.deepEqual([updated.status, updated.json], [200, { tag_name: 'v1.0', description: 'Changed' }]);
    assert.deepEqual((await fx.gantry.api('GET', url('/v1.0'))).json.release, { tag_name: 'v1.0', description: 'Changed' });
    assert.equal((await fx.gantry.api('POST', url('/v404/release'), { form: { description: 'x' } })).status, 404);
    assert.equal((await fx.gantry.api('PUT', url('/v404/release'), { form: { description: 'x' } })).status, 404);
    assert.deepEqual((await fx.gantry.api('POST', url('/v1.0/release'), { form: {} })).json, { error: 'description is missing' });
    assert.equal((await fx.gantry.api('PUT', url('/v1.0/release'), { form: { description: 'r' }, token: fx.reporter.token })).status, 403);
  });

  it('answers 404 on PUT release when the tag has none', async () => {
    await fx.gantry.api('POST', url(), { form: { tag_name: 'bare', ref: 'main' } });
    const response = await fx.gantry.api('PUT', url('/bare/release'), { form: { description: 'x' } });
    assert.deepEqual([response.status, response.json], [404, { message: 'Release does not exist' }]);
  });

  it('enforces access', async () => {
    assert.equal((await fx.gantry.api('POST', url(), { form: { tag_name: 'r', ref: 'main' }, token: fx.reporter.token })).status, 403);
    assert.equal((await fx.gantry.api('POST', url(), { form: { tag_name: 'r', ref: 'main' }, token: null })).status, 401);
    assert.equal((await fx.gantry.api('GET', url(), { token: 'bogus' })).status, 401);
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).status, 404);
    assert.equal((await fx.gantry.api('DELETE', url('/v1.0'), { token: fx.reporter.token })).status, 403);
  });

  it('deletes a tag and its release', async () => {
    const deleted = await fx.gantry.api('DELETE', url('/v1.0'), { token: fx.developer.token });
    assert.equal(deleted.status, 204);
    assert.deepEqual(fx.pushEvents.at(-1), { project_id: project.id, ref: 'refs/tags/v1.0', before: firstSha, after: ZERO, user_id: fx.developer.id });
    assert.equal((await fx.gantry.api('DELETE', url('/v1.0'))).status, 404);
    const recreated = await fx.gantry.api('POST', url(), { form: { tag_name: 'v1.0', ref: 'main' } });
    assert.equal(recreated.json.release, null);
  });

  it('answers empty lists and 404s for an empty repository', async () => {
    const empty = await fx.project('bare-repo');
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${empty.id}/repository/tags`)).list, []);
    assert.equal((await fx.gantry.api('GET', `/projects/${empty.id}/repository/tags/v1`)).status, 404);
    assert.equal((await fx.gantry.api('POST', `/projects/${empty.id}/repository/tags`, { form: { tag_name: 'v1', ref: 'main' } })).status, 405);
  });
});
