import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('commits, compare and branches pages', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let anonymous: PageClient;
  const shas: Record<string, string> = {};

  const commit = async (branch: string, message: string, actions: unknown[], startBranch?: string) => {
    const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body: { branch, start_branch: startBranch, commit_message: message, actions } });
    assert.equal(made.status, 201, made.text);
    return made.json.id as string;
  };

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    const created = await gantry.api('POST', '/projects', { body: { name: 'Site', path: 'site', visibility: 'public' } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    assert.equal((await gantry.api('POST', '/projects', { body: { name: 'Vault', path: 'vault', visibility: 'private', initialize_with_readme: true } })).status, 201);
    shas.first = await commit('main', 'First <commit>', [{ action: 'create', file_path: 'a.txt', content: 'one\n' }, { action: 'create', file_path: 'docs/guide.md', content: 'guide\n' }]);
    shas.second = await commit('main', 'Second on main', [{ action: 'update', file_path: 'a.txt', content: 'two\n' }]);
    shas.feature = await commit('feature/deep', 'Feature <work>', [{ action: 'create', file_path: 'docs/new.md', content: '<b>new</b>\n' }], 'main');
    anonymous = new PageClient(gantry);
  });
  after(() => gantry.close());

  it('lists a ref\'s commits newest first, a ref with a slash, and a path\'s history', async () => {
    const main = await anonymous.get('/root/site/-/commits/main');
    assert.equal(main.statusCode, 200, main.body);
    assert.match(main.body, /<h1>Commits on main<\/h1>/);
    const second = main.body.indexOf(`/-/commit/${shas.second}`);
    const first = main.body.indexOf(`/-/commit/${shas.first}`);
    assert.ok(second > 0 && first > second, 'newest first');
    assert.match(main.body, /First &lt;commit&gt;/);
    assert.doesNotMatch(main.body, /Feature/);
    const feature = await anonymous.get('/root/site/-/commits/feature/deep');
    assert.match(feature.body, /<h1>Commits on feature\/deep<\/h1>/);
    assert.match(feature.body, /Feature &lt;work&gt;/);
    const docs = await anonymous.get('/root/site/-/commits/feature/deep/docs');
    assert.match(docs.body, /<h1>Commits on feature\/deep <span class="muted">in docs<\/span><\/h1>/);
    assert.doesNotMatch(docs.body, /Second on main/, 'a.txt\'s change is not in the history of docs/');
    assert.match(docs.body, /First &lt;commit&gt;/);
    assert.equal((await anonymous.get('/root/site/-/commits/no-such-ref')).statusCode, 404);
  });

  it('compares two refs from their merge base (...) and straight (..): commits and file diffs', async () => {
    const page = await anonymous.get('/root/site/-/compare/main...feature/deep');
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h2>Commits \(1\)<\/h2>/);
    assert.match(page.body, /Feature &lt;work&gt;/);
    assert.match(page.body, /docs\/new.md/);
    assert.match(page.body, /<span class="line added"><span class="visually-hidden">added <\/span>\+&lt;b&gt;new&lt;\/b&gt;<\/span>/);
    const straight = await anonymous.get('/root/site/-/compare/feature/deep..main');
    assert.match(straight.body, /<h2>Commits \(0\)<\/h2>/);
    assert.match(straight.body, /docs\/new.md<\/span> <span class="muted">deleted/, 'straight: the trees themselves are compared');
    const fromBase = await anonymous.get('/root/site/-/compare/feature/deep...main');
    assert.doesNotMatch(fromBase.body, /docs\/new.md/, 'from the merge base: main adds nothing');
    const same = await anonymous.get('/root/site/-/compare/main...main');
    assert.match(same.body, /isn't anything to compare/);
    assert.equal((await anonymous.get('/root/site/-/compare/main...nope')).statusCode, 404);
    assert.equal((await anonymous.get('/root/site/-/compare/main')).statusCode, 404);
  });

  it('lists branches with their last commit, the default one marked, and hides a private project\'s pages', async () => {
    const page = await anonymous.get('/root/site/-/branches');
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /href="\/root\/site\/-\/tree\/feature\/deep">feature\/deep</);
    assert.match(page.body, /href="\/root\/site\/-\/tree\/main">main<\/a> <span class="muted">default<\/span>/);
    assert.ok(page.body.includes(`/-/commit/${shas.feature}`));
    assert.match(page.body, /href="\/root\/site\/-\/commits\/feature\/deep">History</);
    await gantry.createUser('stranger');
    const stranger = await new PageClient(gantry).signIn('stranger');
    for (const path of ['/root/vault/-/branches', '/root/vault/-/commits/main', '/root/vault/-/compare/main...main']) {
      assert.equal((await stranger.get(path)).statusCode, 404, path);
      assert.equal((await anonymous.get(path)).statusCode, 302, `${path}: an anonymous visitor is asked to sign in`);
    }
  });
});
