import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const ZERO = '0000000000000000000000000000000000000000';

describe('branches API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord & { full_path: string };
  let maintainer: TestUser;
  let mainSha: string;
  const url = (suffix = '') => `/projects/${project.id}/repository/branches${suffix}`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('app', { withReadme: true });
    maintainer = await makeUser(fx.gantry, 'keeper');
    await addMember(fx.gantry, { type: 'project', id: project.id }, maintainer.id, 40);
    await fx.commit(project, { branch: 'feature/x-1', start_branch: 'main', commit_message: 'Feature', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    mainSha = ((await fx.gantry.api('GET', url('/main'))).json.commit as { id: string }).id;
  });
  after(() => fx.close());

  it('lists branches sorted by name with GitLab fields and pagination headers', async () => {
    const response = await fx.gantry.api('GET', url());
    assert.equal(response.status, 200);
    assert.deepEqual(response.list.map((branch) => branch.name), ['feature/x-1', 'main']);
    assert.equal(response.headers['x-total'], '2');
    const main = response.list[1];
    assert.equal(main.default, true);
    assert.equal(main.merged, false);
    assert.equal(main.protected, false);
    assert.equal(main.can_push, true);
    assert.equal(main.web_url, `${fx.gantry.coordinator.context.config.externalUrl}/team/app/-/tree/main`);
    assert.deepEqual(Object.keys(main.commit as object).sort().slice(0, 3), ['author_email', 'author_name', 'authored_date']);
    const feature = response.list[0];
    assert.equal(feature.default, false);
    assert.equal(feature.merged, false);
    const paged = await fx.gantry.api('GET', `${url()}?per_page=1&page=2`);
    assert.deepEqual(paged.list.map((branch) => branch.name), ['main']);
    assert.equal(paged.headers['x-total-pages'], '2');
  });

  it('filters with search', async () => {
    const response = await fx.gantry.api('GET', `${url()}?search=FEAT`);
    assert.deepEqual(response.list.map((branch) => branch.name), ['feature/x-1']);
    assert.deepEqual((await fx.gantry.api('GET', `${url()}?search=^ma`)).list.map((b) => b.name), ['main']);
    assert.deepEqual((await fx.gantry.api('GET', `${url()}?search=nothing`)).list, []);
  });

  it('gets one branch by URL-encoded name and 404s unknown ones', async () => {
    const response = await fx.gantry.api('GET', url(`/${enc('feature/x-1')}`));
    assert.equal(response.status, 200);
    assert.equal(response.json.name, 'feature/x-1');
    const missing = await fx.gantry.api('GET', url('/nope'));
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json, { message: '404 Branch Not Found' });
  });

  it('creates a branch from a branch or a SHA and publishes a push', async () => {
    const created = await fx.gantry.api('POST', url(), { body: { branch: 'topic/new', ref: 'main' }, token: fx.developer.token });
    assert.equal(created.status, 201);
    assert.equal(created.json.name, 'topic/new');
    assert.equal((created.json.commit as { id: string }).id, mainSha);
    // At the default branch's own commit: not merged into it, as GitLab's (it is not behind it).
    assert.equal(created.json.merged, false);
    assert.equal((await fx.gantry.api('GET', url(`/${enc('topic/new')}`))).json.merged, false);
    assert.deepEqual(fx.pushEvents.at(-1), { project_id: project.id, ref: 'refs/heads/topic/new', before: ZERO, after: mainSha, user_id: fx.developer.id });
    const fromSha = await fx.gantry.api('POST', url(), { form: { branch: 'from-sha', ref: mainSha } });
    assert.equal(fromSha.status, 201);
  });

  it('refuses invalid names, existing branches and bad refs with GitLab messages', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ branch: 'bad..name', ref: 'main' }, 'Branch name is invalid'],
      [{ branch: 'has space', ref: 'main' }, 'Branch name is invalid'],
      [{ branch: 'main', ref: 'main' }, 'Branch already exists'],
      [{ branch: 'main', ref: 'no-such-ref' }, 'Branch already exists'],
      [{ branch: 'fresh', ref: 'no-such-ref' }, 'Invalid reference name'],
    ];
    for (const [body, message] of cases) {
      const response = await fx.gantry.api('POST', url(), { body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.json, { message });
    }
    assert.deepEqual((await fx.gantry.api('POST', url(), { body: { ref: 'main' } })).json, { error: 'branch is missing' });
    assert.deepEqual((await fx.gantry.api('POST', url(), { body: { branch: 'x' } })).json, { error: 'ref is missing' });
  });

  it('enforces access: anonymous, wrong token, reporter, stranger', async () => {
    assert.equal((await fx.gantry.api('POST', url(), { body: { branch: 'r', ref: 'main' }, token: fx.reporter.token })).status, 403);
    assert.equal((await fx.gantry.api('POST', url(), { body: { branch: 'r', ref: 'main' }, token: null })).status, 401);
    assert.equal((await fx.gantry.api('GET', url(), { token: 'wrong-token' })).status, 401);
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', url(), { token: null })).status, 404);
    assert.equal((await fx.gantry.api('GET', url(), { token: fx.reporter.token })).status, 200);
    assert.equal((await fx.gantry.api('DELETE', url('/from-sha'), { token: fx.reporter.token })).status, 403);
    assert.equal((await fx.gantry.api('PUT', url('/main/protect'), { token: fx.developer.token })).status, 403);
  });

  it('deletes branches but refuses the default and protected ones', async () => {
    const deleted = await fx.gantry.api('DELETE', url(`/${enc('topic/new')}`), { token: fx.developer.token });
    assert.equal(deleted.status, 204);
    assert.deepEqual(fx.pushEvents.at(-1), { project_id: project.id, ref: 'refs/heads/topic/new', before: mainSha, after: ZERO, user_id: fx.developer.id });
    assert.equal((await fx.gantry.api('GET', url(`/${enc('topic/new')}`))).status, 404);
    assert.equal((await fx.gantry.api('DELETE', url('/topic%2Fnew'))).status, 404);
    const defaultBranch = await fx.gantry.api('DELETE', url('/main'));
    assert.equal(defaultBranch.status, 405);
    assert.deepEqual(defaultBranch.json, { message: 'The default branch of a project cannot be deleted.' });
    assert.equal((await fx.gantry.api('PUT', url('/from-sha/protect'), { token: maintainer.token })).status, 200);
    const protectedOne = await fx.gantry.api('DELETE', url('/from-sha'));
    assert.equal(protectedOne.status, 405);
    assert.deepEqual(protectedOne.json, { message: 'Protected branch cant be removed' });
  });

  it('protects idempotently and unprotects through the deprecated endpoints', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await fx.gantry.api('PUT', url(`/${enc('feature/x-1')}/protect`), { form: { developers_can_push: 'true' }, token: maintainer.token });
      assert.equal(response.status, 200);
      assert.equal(response.json.protected, true);
      assert.equal(response.json.developers_can_push, true);
      assert.equal(response.json.developers_can_merge, false);
    }
    assert.equal((await fx.gantry.api('GET', url(`/${enc('feature/x-1')}`), { token: fx.developer.token })).json.can_push, true);
    const unprotected = await fx.gantry.api('PUT', url(`/${enc('feature/x-1')}/unprotect`), { token: maintainer.token });
    assert.equal(unprotected.status, 200);
    assert.equal(unprotected.json.protected, false);
    assert.equal((await fx.gantry.api('PUT', url(`/${enc('feature/x-1')}/unprotect`))).status, 200);
    assert.equal((await fx.gantry.api('PUT', url('/nope/protect'))).status, 404);
  });

  it('deletes merged branches, keeping the default and protected ones and those at its commit', async () => {
    await fx.gantry.api('POST', url(), { body: { branch: 'merged-one', ref: 'main' } });
    await fx.commit(project, { branch: 'main', commit_message: 'Ahead', actions: [{ action: 'create', file_path: 'ahead.txt', content: 'a' }] });
    await fx.gantry.api('POST', url(), { body: { branch: 'at-head', ref: 'main' } });
    const listed = new Map((await fx.gantry.api('GET', url())).list.map((branch) => [branch.name, branch.merged]));
    assert.deepEqual([listed.get('merged-one'), listed.get('at-head'), listed.get('main')], [true, false, false]);
    const response = await fx.gantry.api('DELETE', `/projects/${project.id}/repository/merged_branches`, { token: fx.developer.token });
    assert.equal(response.status, 202);
    assert.deepEqual(response.json, { message: '202 Accepted' });
    const names = (await fx.gantry.api('GET', url())).list.map((branch) => branch.name);
    assert.deepEqual(names, ['at-head', 'feature/x-1', 'from-sha', 'main']);
    assert.equal((await fx.gantry.api('DELETE', `/projects/${project.id}/repository/merged_branches`, { token: fx.reporter.token })).status, 403);
  });

  it('answers empty lists and 404s for an empty repository', async () => {
    const empty = await fx.project('empty');
    const list = await fx.gantry.api('GET', `/projects/${empty.id}/repository/branches`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.list, []);
    assert.equal((await fx.gantry.api('GET', `/projects/${empty.id}/repository/branches/main`)).status, 404);
    assert.equal((await fx.gantry.api('GET', '/projects/999999/repository/branches')).status, 404);
  });

  it('creates a branch in an empty repository after committing an empty README.md to the default branch, as GitLab', async () => {
    const empty = await fx.project('empty-first-branch');
    const refused = await fx.gantry.api('POST', `/projects/${empty.id}/repository/branches`, { body: { branch: 'x', ref: 'main' }, token: fx.reporter.token });
    assert.equal(refused.status, 403, 'a Reporter writes nothing');
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${empty.id}/repository/branches`)).list, []);
    const create = await fx.gantry.api('POST', `/projects/${empty.id}/repository/branches`, { body: { branch: 'x', ref: 'main' } });
    assert.equal(create.status, 201, create.text);
    assert.equal(create.json.name, 'x');
    const names = (await fx.gantry.api('GET', `/projects/${empty.id}/repository/branches`)).list.map((branch) => branch.name);
    assert.deepEqual(names, ['main', 'x']);
    const readme = await fx.gantry.api('GET', `/projects/${empty.id}/repository/files/README.md?ref=main`);
    assert.deepEqual([readme.status, readme.json.content, readme.json.size], [200, '', 0]);
    const commit = await fx.gantry.api('GET', `/projects/${empty.id}/repository/commits/main`);
    assert.equal(commit.json.title, 'Add README.md');
    assert.equal((create.json.commit as Record<string, unknown>).id, commit.json.id, 'the new branch starts at that commit');
    assert.equal((await fx.gantry.api('GET', `/projects/${empty.id}`)).json.default_branch, 'main');
    const again = await fx.gantry.api('POST', `/projects/${empty.id}/repository/branches`, { body: { branch: 'y', ref: 'nope' } });
    assert.deepEqual([again.status, again.json], [400, { message: 'Invalid reference name' }], 'an unknown ref of a repository with commits');
  });
});
