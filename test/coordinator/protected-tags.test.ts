import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

/** Protected tags through the API and through real git pushes. */
describe('protected tags', () => {
  let fixture: GitHttpFixture;
  let developer: TestUser;
  let maintainer: TestUser;
  let project: ProjectRecord;
  const rules = () => `/projects/${project.id}/protected_tags`;
  const tags = () => `/projects/${project.id}/repository/tags`;
  const as = (user: TestUser) => ({ user: user.username, secret: user.token });

  before(async () => {
    fixture = await startGitHttpFixture();
    developer = await makeUser(fixture.gantry, 'dev');
    maintainer = await makeUser(fixture.gantry, 'lead');
    const group = await makeGroup(fixture.gantry, 'team');
    project = await fixture.project(group.id, 'tagged', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
    await addMember(fixture.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
  });
  after(() => fixture?.close());

  it('manages rules for maintainers: create, list, get, delete, with GitLab\'s answers', async () => {
    const api = fixture.gantry.api;
    assert.equal((await api('POST', rules(), { token: developer.token, body: { name: 'v*' } })).status, 403);
    const created = await api('POST', rules(), { token: maintainer.token, body: { name: 'v*' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, { name: 'v*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] });
    assert.deepEqual((await api('POST', rules(), { token: maintainer.token, body: { name: 'v*' } })).body, { message: "Protected tag 'v*' already exists" });
    assert.equal((await api('POST', rules(), { token: maintainer.token, body: { name: 'x', create_access_level: 20 } })).status, 400);
    assert.deepEqual((await api('POST', rules(), { token: maintainer.token, body: {} })).body, { error: 'name is missing' });
    assert.equal((await api('POST', rules(), { token: maintainer.token, body: { name: 'release/*', create_access_level: 30 } })).status, 201);
    assert.deepEqual((await api('GET', rules(), { token: maintainer.token })).list.map((rule) => rule.name), ['release/*', 'v*']);
    assert.equal((await api('GET', `${rules()}/${encodeURIComponent('release/*')}`, { token: maintainer.token })).json.name, 'release/*');
    assert.equal((await api('GET', `${rules()}/nope`, { token: maintainer.token })).status, 404);
    assert.equal((await api('DELETE', `${rules()}/${encodeURIComponent('release/*')}`, { token: maintainer.token })).status, 204);
    assert.equal((await api('DELETE', `${rules()}/${encodeURIComponent('release/*')}`, { token: maintainer.token })).status, 404);
  });

  it('lets only the allowed level create or delete a protected tag through the API', async () => {
    const api = fixture.gantry.api;
    const refused = await api('POST', tags(), { token: developer.token, body: { tag_name: 'v1.0', ref: 'main' } });
    assert.deepEqual([refused.status, refused.body], [405, { message: 'You are not allowed to create this tag as it is protected.' }]);
    assert.equal((await api('POST', tags(), { token: developer.token, body: { tag_name: 'nightly', ref: 'main' } })).status, 201);
    const created = await api('POST', tags(), { token: maintainer.token, body: { tag_name: 'v1.0', ref: 'main' } });
    assert.deepEqual([created.status, created.json.protected], [201, true]);
    assert.equal((await api('GET', `${tags()}/v1.0`, { token: developer.token })).json.protected, true);
    assert.equal((await api('GET', `${tags()}/nightly`, { token: developer.token })).json.protected, false);
    const listed = (await api('GET', tags(), { token: developer.token })).list.map((tag) => [tag.name, tag.protected]);
    assert.deepEqual(listed.sort(), [['nightly', false], ['v1.0', true]]);
    const deletion = await api('DELETE', `${tags()}/v1.0`, { token: developer.token });
    assert.equal(deletion.status, 403);
    assert.match(String((deletion.body as { message: string }).message), /Only a project maintainer or owner can delete a protected tag/);
    assert.equal((await api('DELETE', `${tags()}/nightly`, { token: developer.token })).status, 204);
  });

  it('enforces the rules on git pushes: creation by level, no moves, deletion by maintainers', async () => {
    const clone = await fixture.git(['clone', fixture.url('team/tagged', as(developer)), 'tagged']);
    assert.equal(clone.code, 0, clone.stderr);
    const cwd = path.join(fixture.workDir, 'tagged');
    const push = (user: TestUser, ...refspecs: string[]) => fixture.git(['push', fixture.url('team/tagged', as(user)), ...refspecs], { cwd });

    await fixture.git(['tag', 'v2.0'], { cwd });
    const byDeveloper = await push(developer, 'refs/tags/v2.0');
    assert.notEqual(byDeveloper.code, 0);
    assert.match(byDeveloper.stderr, /remote: You are not allowed to create this tag as it is protected\./);
    assert.equal((await push(maintainer, 'refs/tags/v2.0')).code, 0);

    await fixture.git(['commit', '--allow-empty', '-m', 'later'], { cwd });
    await fixture.git(['tag', '-f', 'v2.0'], { cwd });
    const moved = await push(maintainer, '--force', 'refs/tags/v2.0');
    assert.notEqual(moved.code, 0);
    assert.match(moved.stderr, /remote: Protected tags cannot be updated\./);

    const deletedByDeveloper = await push(developer, ':refs/tags/v2.0');
    assert.notEqual(deletedByDeveloper.code, 0);
    assert.match(deletedByDeveloper.stderr, /remote: You are not allowed to delete protected tags/);
    assert.equal((await push(maintainer, ':refs/tags/v2.0')).code, 0);

    await fixture.git(['tag', 'plain'], { cwd });
    assert.equal((await push(developer, 'refs/tags/plain')).code, 0, 'unprotected tags are free');
  });
});
