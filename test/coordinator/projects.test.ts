import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

type Json = Record<string, unknown>;

describe('projects API: create, read, edit, delete', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let group: Json & { id: number };

  before(async () => {
    gantry = await startTestCoordinator();
    alice = await makeUser(gantry, 'alice');
    bob = await makeUser(gantry, 'bob');
    group = await makeGroup(gantry, 'acme', { visibility: 'public' });
    await addMember(gantry, { type: 'namespace', id: group.id }, alice.id, 30);
    await addMember(gantry, { type: 'namespace', id: group.id }, bob.id, 20);
  });
  after(() => gantry.close());

  const create = (body: Json, token?: string) => gantry.api('POST', '/projects', { body, token });

  it('creates a project in the caller namespace, deriving the path from the name', async () => {
    const response = await create({ name: 'My Tool', description: 'tools' }, alice.token);
    assert.equal(response.status, 201);
    const project = response.json as Json;
    assert.equal(project.path, 'my-tool');
    assert.equal(project.path_with_namespace, 'alice/my-tool');
    assert.equal(project.name_with_namespace, 'User alice / My Tool');
    assert.equal(project.http_url_to_repo, 'http://gantry.test/alice/my-tool.git');
    assert.equal(project.visibility, 'private');
    assert.equal(project.empty_repo, true);
    assert.equal(project.default_branch, null);
    assert.match(String(project.runners_token), /^GR1348941/);
    assert.deepEqual(project.namespace, { id: (project.namespace as Json).id, name: 'alice', path: 'alice', kind: 'user', full_path: 'alice', parent_id: null, avatar_url: null, web_url: 'http://gantry.test/alice' });
    assert.equal((project.owner as Json).username, 'alice');
    assert.deepEqual(project.permissions, { project_access: { access_level: 50, notification_level: 3 }, group_access: null }, 'a personal project is held as a project member, not through a group');
    assert.equal(existsSync(`${gantry.dataDir}/repositories/${project.id}.git/HEAD`), true);
  });

  it('derives a path from a name as Rails parameterize does: dashes squeezed, dots and accents folded', async () => {
    // gitbeaker's own tests name projects `... Test - NODEJS <id>`; GitLab answers one dash for ` - `.
    const paths = [];
    for (const name of ['Issues Test - NodeJS 17', 'Café v1.2 app', 'tool.js']) {
      const response = await create({ name }, bob.token);
      assert.equal(response.status, 201, response.text);
      paths.push((response.json as Json).path);
    }
    assert.deepEqual(paths, ['issues-test-nodejs-17', 'cafe-v1-2-app', 'tool.js']);
  });

  it('initializes the repository with a README when asked', async () => {
    const response = await create({ path: 'with-readme', namespace_id: group.id, initialize_with_readme: true, visibility: 'public' }, alice.token);
    assert.equal(response.status, 201);
    const project = response.json as Json;
    assert.equal(project.name, 'with-readme');
    assert.equal(project.default_branch, 'main');
    assert.equal(project.empty_repo, false);
    const file = await gantry.api('GET', `/projects/${project.id}/repository/files/README.md?ref=main`, { token: null });
    assert.equal(file.status, 200);
    assert.equal(Buffer.from(String((file.json as Json).content), 'base64').toString(), '# with-readme\n');
  });

  it('answers GitLab errors for bad creation requests', async () => {
    assert.deepEqual((await create({ description: 'x' }, alice.token)).json, { error: 'name, path are missing, at least one parameter must be provided' });
    assert.equal((await create({ name: 'x' }, 'wrong-token')).status, 401);
    assert.equal((await gantry.api('POST', '/projects', { body: { name: 'x' }, token: null })).status, 401);
    const taken = await create({ name: 'My Tool' }, alice.token);
    assert.equal(taken.status, 400);
    assert.deepEqual(taken.json, { message: { name: ['has already been taken'], path: ['has already been taken'] } });
    assert.equal((await create({ name: 'bad', path: '-bad' }, alice.token)).status, 400);
    assert.deepEqual((await create({ name: 'v', visibility: 'secret' }, alice.token)).json, { error: 'visibility does not have a valid value' });
    assert.equal((await create({ name: 'in-acme', namespace_id: group.id }, bob.token)).status, 403, 'a reporter cannot create in the group');
    assert.equal((await create({ name: 'nowhere', namespace_id: 999999 }, alice.token)).status, 404);
    const privateGroup = await makeGroup(gantry, 'secret-group', { visibility: 'private' });
    assert.equal((await create({ name: 'p', namespace_id: privateGroup.id }, alice.token)).status, 404, 'a group the caller cannot see');
    const tooOpen = await gantry.api('POST', '/projects', { body: { name: 'open', namespace_id: privateGroup.id, visibility: 'public' } });
    assert.deepEqual(tooOpen.json, { message: { visibility_level: ['public is not allowed in a private group.'] } });
  });

  it('enforces projects_limit and restricted visibility levels', async () => {
    const carol = await makeUser(gantry, 'carol');
    await gantry.coordinator.context.stores.users.update(carol.id, { projects_limit: 0 });
    const refused = await create({ name: 'first' }, carol.token);
    assert.equal(refused.status, 400);
    assert.ok((refused.json as { message: Json }).message.limit_reached);
    await gantry.api('PUT', '/application/settings', { body: { restricted_visibility_levels: ['public'] } });
    const restricted = await create({ name: 'public-one', visibility: 'public' }, alice.token);
    assert.deepEqual(restricted.json, { message: { visibility_level: ['public has been restricted by your GitLab administrator'] } });
    assert.equal((await create({ name: 'public-by-root', visibility: 'public' })).status, 201, 'administrators are not restricted');
    await gantry.api('PUT', '/application/settings', { body: { restricted_visibility_levels: [] } });
  });

  it('creates a project for another user (administrators only)', async () => {
    const response = await gantry.api('POST', `/projects/user/${bob.id}`, { body: { name: 'for-bob' } });
    assert.equal(response.status, 201);
    assert.equal((response.json as Json).path_with_namespace, 'bob/for-bob');
    assert.equal((await gantry.api('POST', `/projects/user/${bob.id}`, { body: { name: 'x' }, token: alice.token })).status, 403);
  });

  it('hides private projects from strangers with 404 and shows runners_token to maintainers only', async () => {
    const created = (await create({ name: 'hidden' }, alice.token)).json as Json;
    assert.equal((await gantry.api('GET', `/projects/${created.id}`, { token: bob.token })).status, 404);
    assert.deepEqual((await gantry.api('GET', '/projects/alice%2Fhidden', { token: null })).json, { message: '404 Project Not Found' });
    assert.equal((await gantry.api('GET', '/projects/alice%2Fhidden', { token: alice.token })).status, 200);
    const asReporter = (await gantry.api('GET', '/projects/acme%2Fwith-readme', { token: bob.token })).json as Json;
    assert.equal('runners_token' in asReporter, false);
    const anonymous = (await gantry.api('GET', '/projects/acme%2Fwith-readme', { token: null })).json as Json;
    assert.equal('permissions' in anonymous, false);
    assert.equal((await gantry.api('GET', '/projects/999999')).status, 404);
  });

  it('edits a project as a maintainer, refusing reporters and bad values', async () => {
    const project = (await create({ name: 'editable', namespace_id: group.id, initialize_with_readme: true, visibility: 'public' })).json as Json;
    await addMember(gantry, { type: 'project', id: project.id as number }, alice.id, 40);
    const edited = await gantry.api('PUT', `/projects/${project.id}`, { body: { description: 'new', issues_enabled: false, tag_list: ['a', 'b'] }, token: alice.token });
    assert.equal(edited.status, 200);
    assert.equal((edited.json as Json).description, 'new');
    assert.equal((edited.json as Json).issues_enabled, false);
    assert.equal((edited.json as Json).issues_access_level, 'disabled');
    assert.deepEqual((edited.json as Json).tag_list, ['a', 'b']);
    assert.equal((await gantry.api('PUT', `/projects/${project.id}`, { body: { description: 'x' }, token: bob.token })).status, 403);
    const missingBranch = await gantry.api('PUT', `/projects/${project.id}`, { body: { default_branch: 'nope' }, token: alice.token });
    assert.deepEqual(missingBranch.json, { message: "Could not change HEAD: branch 'nope' does not exist" });
    const clash = await gantry.api('PUT', `/projects/${project.id}`, { body: { path: 'with-readme' }, token: alice.token });
    assert.deepEqual(clash.json, { message: { path: ['has already been taken'] } });
    const renamed = await gantry.api('PUT', `/projects/${project.id}`, { body: { name: 'Renamed', path: 'renamed' }, token: alice.token });
    assert.equal((renamed.json as Json).path_with_namespace, 'acme/renamed');
  });

  it('stars and unstars with 201, 304 when nothing changes', async () => {
    const path = '/projects/acme%2Fwith-readme';
    const starred = await gantry.api('POST', `${path}/star`, { token: bob.token });
    assert.equal(starred.status, 201);
    assert.equal((starred.json as Json).star_count, 1);
    assert.equal((await gantry.api('POST', `${path}/star`, { token: bob.token })).status, 304);
    const list = await gantry.api('GET', '/projects?starred=true', { token: bob.token });
    assert.deepEqual(list.list.map((project) => project.path), ['with-readme']);
    assert.equal((await gantry.api('POST', `${path}/unstar`, { token: bob.token })).status, 201);
    assert.equal((await gantry.api('POST', `${path}/unstar`, { token: bob.token })).status, 304);
    assert.equal((await gantry.api('POST', `${path}/star`, { token: null })).status, 401);
  });

  it('archives and unarchives (maintainers), refusing pushes meanwhile', async () => {
    const path = '/projects/acme%2Fwith-readme';
    assert.equal((await gantry.api('POST', `${path}/archive`, { token: bob.token })).status, 403);
    const archived = await gantry.api('POST', `${path}/archive`);
    assert.equal(archived.status, 201);
    assert.equal((archived.json as Json).archived, true);
    const commit = await gantry.api('POST', `${path}/repository/commits`, { body: { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'a', content: 'a' }] } });
    assert.equal(commit.status, 403);
    assert.equal(((await gantry.api('POST', `${path}/unarchive`)).json as Json).archived, false);
  });

  it('forks into the caller namespace, refusing a taken path with 409', async () => {
    const fork = await gantry.api('POST', '/projects/acme%2Fwith-readme/fork', { token: bob.token });
    assert.equal(fork.status, 201);
    const json = fork.json as Json;
    assert.equal(json.path_with_namespace, 'bob/with-readme');
    assert.equal((json.forked_from_project as Json).path_with_namespace, 'acme/with-readme');
    assert.equal(json.default_branch, 'main');
    const readme = await gantry.api('GET', `/projects/${json.id}/repository/files/README.md?ref=main`, { token: bob.token });
    assert.equal(readme.status, 200);
    assert.equal((await gantry.api('POST', '/projects/acme%2Fwith-readme/fork', { token: bob.token })).status, 409);
    assert.equal(((await gantry.api('GET', '/projects/acme%2Fwith-readme')).json as Json).forks_count, 1);
    assert.equal((await gantry.api('POST', '/projects/alice%2Fhidden/fork', { token: bob.token })).status, 404);
  });

  it('lists the forks a caller can see with GET /projects/:id/forks', async () => {
    const hiddenFork = await gantry.api('POST', '/projects/acme%2Fwith-readme/fork', { token: alice.token, body: { visibility: 'private' } });
    assert.equal(hiddenFork.status, 201, hiddenFork.text);
    const paths = async (token?: string | null) => {
      const answer = await gantry.api('GET', '/projects/acme%2Fwith-readme/forks?order_by=id&sort=asc', { token });
      assert.equal(answer.status, 200, answer.text);
      return answer.list.map((fork) => fork.path_with_namespace);
    };
    assert.deepEqual(await paths(alice.token), ['bob/with-readme', 'alice/with-readme']);
    assert.deepEqual(await paths(null), ['bob/with-readme'], 'a private fork is not shown to anonymous callers');
    const filtered = await gantry.api('GET', '/projects/acme%2Fwith-readme/forks?visibility=private', { token: alice.token });
    assert.deepEqual([filtered.headers['x-total'], filtered.list.map((fork) => fork.path_with_namespace)], ['1', ['alice/with-readme']]);
    assert.deepEqual((await gantry.api('GET', '/projects/bob%2Fwith-readme/forks', { token: bob.token })).list, [], 'a fork of a fork is listed under its own source only');
    assert.equal((await gantry.api('GET', '/projects/alice%2Fhidden/forks', { token: bob.token })).status, 404);
  });

  it('sets default_branch when the first push reaches an empty project', async () => {
    const project = (await create({ name: 'pushed-later' }, alice.token)).json as Json;
    const { context } = gantry.coordinator;
    const id = project.id as number;
    const commit = await context.repositories.open(id).commitFiles({
      branch: 'trunk', message: 'first', author: { name: 'A', email: 'a@example.com' },
      actions: [{ action: 'create', file_path: 'x.txt', content: Buffer.from('x') }],
    });
    context.events.publishPush({ project_id: id, ref: 'refs/heads/trunk', before: '0'.repeat(40), after: commit.id, user_id: alice.id });
    let shown: Json = {};
    for (let attempt = 0; attempt < 50 && shown.default_branch !== 'trunk'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shown = (await gantry.api('GET', `/projects/${id}`, { token: alice.token })).json as Json;
    }
    assert.equal(shown.default_branch, 'trunk');
    assert.equal(shown.empty_repo, false);
  });

  it('deletes a project (owners) with 202, removing its repository', async () => {
    const project = (await create({ name: 'doomed' }, alice.token)).json as Json;
    const repository = `${gantry.dataDir}/repositories/${project.id}.git`;
    assert.equal(existsSync(repository), true);
    assert.equal((await gantry.api('DELETE', `/projects/${project.id}`, { token: bob.token })).status, 404);
    const deleted = await gantry.api('DELETE', `/projects/${project.id}`, { token: alice.token });
    assert.equal(deleted.status, 202);
    assert.deepEqual(deleted.json, { message: '202 Accepted' });
    assert.equal(existsSync(repository), false);
    assert.equal((await gantry.api('GET', `/projects/${project.id}`, { token: alice.token })).status, 404);
    const maintainerOnly = (await create({ name: 'kept', namespace_id: group.id })).json as Json;
    await addMember(gantry, { type: 'project', id: maintainerOnly.id as number }, bob.id, 40);
    assert.equal((await gantry.api('DELETE', `/projects/${maintainerOnly.id}`, { token: bob.token })).status, 403);
  });
});
