import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

const README = '# Hello site\n\nSome *text* <script>alert(1)</script> and [a link](javascript:alert(2)).\n\n'
  + '[the app](src/app.ts#L2) [sources](./src/) [outside](../../etc/passwd) [away](https://example.com/x) [site](/explore/projects) [root-up](/../x) [other host](//example.com/y) ![a picture](bin/blob.dat)\n';
const BIG_LINES = 60_000;

describe('web project, tree, blob and commit pages', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let headSha: string;
  let anonymous: PageClient;
  let stranger: PageClient;

  const commit = async (branch: string, actions: unknown[], startBranch?: string) => {
    const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body: { branch, start_branch: startBranch, commit_message: `Change on ${branch}\n\nThe body.`, actions } });
    assert.equal(made.status, 201, made.text);
    return made.json.id as string;
  };

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    const created = await gantry.api('POST', '/projects', { body: { name: 'Site', path: 'site', visibility: 'public', description: 'A <b>site</b>' } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    await gantry.api('POST', '/projects', { body: { name: 'closed', path: 'closed', visibility: 'private', initialize_with_readme: true } });
    headSha = await commit('main', [
      { action: 'create', file_path: 'README.md', content: README },
      { action: 'create', file_path: 'src/app.ts', content: 'one\n<two>\nthree\n' },
      { action: 'create', file_path: 'bin/blob.dat', content: Buffer.from([0, 1, 2, 3, 255]).toString('base64'), encoding: 'base64' },
      { action: 'create', file_path: 'big.txt', content: Array.from({ length: BIG_LINES }, (_, index) => `line ${index}`).join('\n') },
    ]);
    await commit('feature/deep', [
      { action: 'create', file_path: 'feature-only.txt', content: 'only here\n' },
      { action: 'create', file_path: 'img/dot.png', content: Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').toString('base64'), encoding: 'base64' },
    ], 'main');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1.0', ref: 'main' } })).status, 201);
    await gantry.createUser('stranger');
    stranger = await new PageClient(gantry).signIn('stranger');
    anonymous = new PageClient(gantry);
  });
  after(() => gantry.close());

  it('renders the default branch README from Markdown without running or linking script', async () => {
    const page = await anonymous.get('/root/site');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Hello site<\/h1>/);
    assert.match(page.body, /<em>text<\/em> &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(page.body, /href="javascript:/);
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.match(page.body, /A &lt;b&gt;site&lt;\/b&gt;/);
  });

  it('leads a README\'s relative links into the repository at its ref, as GitLab does: files to the blob, directories to the tree, images to the raw file', async () => {
    const page = await anonymous.get('/root/site');
    assert.match(page.body, /<a href="\/root\/site\/-\/blob\/main\/src\/app.ts#L2">the app<\/a>/);
    assert.match(page.body, /<a href="\/root\/site\/-\/tree\/main\/src">sources<\/a>/);
    assert.match(page.body, /<a href="..\/..\/etc\/passwd">outside<\/a>/, 'a link out of the repository is left as written');
    assert.match(page.body, /<a href="https:\/\/example.com\/x">away<\/a>/);
    assert.match(page.body, /<a href="\/root\/site\/-\/blob\/main\/explore\/projects">site<\/a>/, 'a path from the root is the repository\'s root, not the site\'s');
    assert.match(page.body, /<img src="\/root\/site\/-\/raw\/main\/bin\/blob.dat" alt="a picture">/);
    assert.match(page.body, /<a href="\/..\/x">root-up<\/a>/, 'out of the repository from its root: left as written');
    assert.match(page.body, /<a href="\/\/example.com\/y">other host<\/a>/);
    const image = await anonymous.get('/root/site/-/raw/feature/deep/img/dot.png');
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-type'], 'image/png', 'an image is served as one, so the README draws it');
    assert.equal(image.headers['x-content-type-options'], 'nosniff');
    assert.equal((await anonymous.get('/root/site/-/raw/main/src/app.ts')).headers['content-type'], 'text/plain; charset=utf-8');
  });

  it('lists the files, the branches and tags with their counts, and the latest pipeline', async () => {
    const seeded = await seedPipeline(gantry.coordinator, { projectId, ref: 'main', sha: headSha, jobs: [{ name: 'a', stage: 'test' }] });
    const page = await anonymous.get('/root/site');
    assert.match(page.body, /href="\/root\/site\/-\/tree\/main\/src">src\/<\/a>/);
    assert.match(page.body, /href="\/root\/site\/-\/blob\/main\/README.md">README.md<\/a>/);
    assert.match(page.body, /Branches \(2\)/);
    assert.match(page.body, /href="\/root\/site\/-\/tree\/feature\/deep">feature\/deep<\/a>/);
    assert.match(page.body, /Tags \(1\)[\s\S]*v1.0/);
    for (const link of ['/root/site/-/branches', '/root/site/-/commits/main', '/root/site/-/tags', '/root/site/-/releases']) {
      assert.ok(page.body.includes(`href="${link}"`), link);
      assert.equal((await anonymous.get(link)).statusCode, 200, `${link} opens`);
    }
    assert.match(page.body, new RegExp(`latest pipeline <a href="/root/site/-/pipelines/${seeded.pipeline.id}">`));
  });

  it('browses directories, resolving refs with slashes to the longest that exists', async () => {
    const src = await anonymous.get('/root/site/-/tree/main/src');
    assert.equal(src.statusCode, 200);
    assert.match(src.body, /href="\/root\/site\/-\/blob\/main\/src\/app.ts">app.ts<\/a>/);
    const feature = await anonymous.get('/root/site/-/tree/feature/deep');
    assert.match(feature.body, /feature-only.txt/);
    assert.doesNotMatch((await anonymous.get('/root/site/-/tree/main')).body, /feature-only.txt/);
    assert.equal((await anonymous.get('/root/site/-/blob/feature/deep/feature-only.txt')).statusCode, 200);
    assert.equal((await anonymous.get('/root/site/-/tree/main/nope')).statusCode, 404);
    assert.equal((await anonymous.get('/root/site/-/tree/no-such-ref')).statusCode, 404);
    assert.equal((await anonymous.get('/root/site/-/blob/main/nope.txt')).statusCode, 404);
  });

  it('shows a file as text with line anchors, a binary one as a download, a large one cut', async () => {
    const file = await anonymous.get('/root/site/-/blob/main/src/app.ts');
    assert.equal(file.statusCode, 200);
    assert.match(file.body, /<span class="line" id="L2"><a class="ln" href="#L2">2<\/a>&lt;two&gt;\n<\/span>/);
    assert.doesNotMatch(file.body, /id="L4"/);
    const binary = await anonymous.get('/root/site/-/blob/main/bin/blob.dat');
    assert.match(binary.body, /This file is binary \(5 bytes\)\. <a href="\/root\/site\/-\/raw\/main\/bin\/blob.dat" download>/);
    const big = await anonymous.get('/root/site/-/blob/main/big.txt');
    assert.equal(big.statusCode, 200);
    assert.match(big.body, /the first 524288 are shown/);
    assert.doesNotMatch(big.body, new RegExp(`line ${BIG_LINES - 1}\\n`));
    const raw = await anonymous.get('/root/site/-/raw/main/big.txt');
    assert.equal(raw.statusCode, 200);
    assert.equal(raw.headers['x-content-type-options'], 'nosniff');
    assert.ok(raw.body.endsWith(`line ${BIG_LINES - 1}`));
  });

  it('says so for an empty repository, and refuses its tree', async () => {
    assert.equal((await gantry.api('POST', '/projects', { body: { name: 'Empty', path: 'empty', visibility: 'public' } })).status, 201);
    const page = await anonymous.get('/root/empty');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /The repository is empty\./);
    assert.match(page.body, /Branches \(0\)/);
    assert.equal((await anonymous.get('/root/empty/-/tree/main')).statusCode, 404);
  });

  it('answers a private project with the same 404 page as a missing one', async () => {
    for (const suffix of ['', '/-/tree/main', '/-/blob/main/README.md', '/-/raw/main/README.md', `/-/commit/${headSha}`]) {
      const hidden = await stranger.get(`/root/closed${suffix}`);
      const missing = await stranger.get(`/root/missing${suffix}`);
      assert.equal(hidden.statusCode, 404, suffix);
      assert.equal(hidden.body, missing.body, suffix);
    }
    // As GitLab's route_not_found: hidden and missing alike ask an anonymous visitor to sign in.
    for (const path of ['/root/closed', '/root/missing', '/root/closed/-/tree/main']) {
      const asked = await anonymous.get(path);
      assert.equal(asked.statusCode, 302, path);
      assert.equal(asked.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    }
  });

  it('offers a guest of a private project no link to pages it may not read, and answers those pages 404, as GitLab\'s access_denied! does', async () => {
    const closed = (await gantry.api('GET', '/projects/root%2Fclosed')).json.id as number;
    assert.equal((await gantry.api('PUT', `/projects/${closed}`, { body: { public_jobs: false } })).status, 200);
    for (const [username, level] of [['closed-guest', 10], ['closed-reporter', 20]] as const) {
      const user = await gantry.createUser(username);
      assert.equal((await gantry.api('POST', `/projects/${closed}/members`, { body: { user_id: user.id, access_level: level } })).status, 201);
    }
    const guest = await new PageClient(gantry).signIn('closed-guest');
    const home = await guest.get('/root/closed');
    assert.equal(home.statusCode, 200);
    assert.doesNotMatch(home.body, /\/-\/pipelines/);
    assert.doesNotMatch(home.body, /The repository is empty|Branches \(/, 'what it may not read is left out, not shown as empty');
    for (const path of ['/root/closed/-/pipelines', '/root/closed/-/jobs', '/root/closed/-/tree/main']) {
      const refused = await guest.get(path);
      assert.equal(refused.statusCode, 404, path);
      assert.match(refused.body, /could not be found or you do not have permission/, path);
    }
    const reporter = await new PageClient(gantry).signIn('closed-reporter');
    const forReporter = await reporter.get('/root/closed');
    assert.match(forReporter.body, /href="\/root\/closed\/-\/pipelines">Pipelines<\/a>/);
    assert.match(forReporter.body, /Files on main[\s\S]*Branches \(1\)/);
    assert.equal((await reporter.get('/root/closed/-/pipelines')).statusCode, 200);
  });

  it('shows a commit with its parents and pipelines, and the API web_urls of projects and commits resolve', async () => {
    const page = await anonymous.get(`/root/site/-/commit/${headSha}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Change on main<\/h1>/);
    assert.match(page.body, /The body\./);
    assert.match(page.body, /-\/pipelines\/\d+">#\d+<\/a>/);
    const commitAnswer = await gantry.api('GET', `/projects/${projectId}/repository/commits/${headSha}`);
    const project = await gantry.api('GET', `/projects/${projectId}`);
    for (const webUrl of [commitAnswer.json.web_url, project.json.web_url] as string[]) {
      const url = new URL(webUrl);
      assert.equal((await anonymous.get(url.pathname)).statusCode, 200, webUrl);
    }
  });
});
