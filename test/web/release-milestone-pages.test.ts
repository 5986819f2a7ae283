import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

/** The path of a URL the API gave, for the page client (which asks the test coordinator). */
const pathOf = (url: string) => new URL(url).pathname;

describe('release, tag and milestone pages (the web_url and _links the API gives them)', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let anonymous: PageClient;

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    const created = await gantry.api('POST', '/projects', { body: { name: 'Rocket', path: 'rocket', visibility: 'public', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    assert.equal((await gantry.api('POST', '/projects', { body: { name: 'Vault', path: 'vault', visibility: 'private', initialize_with_readme: true } })).status, 201);
    anonymous = new PageClient(gantry);
  });
  after(() => gantry.close());

  it('opens a release\'s _links.self: its notes as Markdown, its tag, commit, milestones and assets; the list links to it', async () => {
    const milestone = await gantry.api('POST', `/projects/${projectId}/milestones`, { body: { title: 'Launch <1>' } });
    assert.equal(milestone.status, 201, milestone.text);
    const release = await gantry.api('POST', `/projects/${projectId}/releases`, {
      body: { tag_name: 'v1/final', ref: 'main', name: 'First <flight>', description: 'It *flies* <script>x()</script>', milestones: ['Launch <1>'], assets: { links: [{ name: 'Binary', url: 'https://example.com/bin', filepath: '/bin/rocket' }] } },
    });
    assert.equal(release.status, 201, release.text);
    const self = pathOf((release.json._links as { self: string }).self);
    assert.equal(self, '/root/rocket/-/releases/v1/final');
    const page = await anonymous.get(self);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.match(page.body, /<h1>First &lt;flight&gt;<\/h1>/);
    assert.match(page.body, /It <em>flies<\/em> &lt;script&gt;/, 'the notes are Markdown with raw HTML escaped');
    assert.match(page.body, /href="\/root\/rocket\/-\/tags\/v1\/final">v1\/final</);
    assert.match(page.body, /href="\/root\/rocket\/-\/commit\/[0-9a-f]{40}"/);
    assert.match(page.body, /href="\/root\/rocket\/-\/milestones\/1">Launch &lt;1&gt;</);
    assert.match(page.body, /href="\/root\/rocket\/-\/releases\/v1\/final\/downloads\/bin\/rocket"[^>]*>Binary</, 'a link with a filepath goes to the stable download address');
    for (const source of (release.json.assets as { sources: Array<{ url: string }> }).sources) assert.ok(page.body.includes(`href="${pathOf(source.url)}"`), source.url);
    const list = await anonymous.get('/root/rocket/-/releases');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<h2><a href="\/root\/rocket\/-\/releases\/v1\/final">First &lt;flight&gt;<\/a><\/h2>/);
    assert.equal((await anonymous.get('/root/rocket/-/releases/no-such-tag')).statusCode, 404);
  });

  it('lists tags and opens one (a release\'s tag_path), each tag linking to its release when it has one', async () => {
    assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v0.9', ref: 'main', message: 'Annotated <note>' } })).status, 201);
    const list = await anonymous.get('/root/rocket/-/tags');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /href="\/root\/rocket\/-\/tags\/v0.9">v0.9</);
    assert.match(list.body, /href="\/root\/rocket\/-\/releases\/v1\/final">First &lt;flight&gt;</);
    const tagPath = (await gantry.api('GET', `/projects/${projectId}/releases/v1%2Ffinal`)).json.tag_path as string;
    assert.equal((await anonymous.get(tagPath)).statusCode, 200);
    const tag = await anonymous.get('/root/rocket/-/tags/v0.9');
    assert.match(tag.body, /<pre class="message">Annotated &lt;note&gt;<\/pre>/);
    assert.match(tag.body, /href="\/root\/rocket\/-\/tree\/v0.9">Browse files</);
    assert.doesNotMatch(tag.body, /\/-\/releases\/v0.9/, 'no release, no link to one');
    assert.equal((await anonymous.get('/root/rocket/-/tags/v9')).statusCode, 404);
  });

  it('opens a project milestone\'s web_url with its issues the visitor may see, and lists the milestones by state', async () => {
    const milestone = await gantry.api('POST', `/projects/${projectId}/milestones`, { body: { title: 'Orbit', description: 'Get **up**', due_date: '2027-01-31' } });
    const milestoneId = milestone.json.id as number;
    for (const [title, confidential] of [['Fuel', false], ['Secret payload', true]] as const) {
      assert.equal((await gantry.api('POST', `/projects/${projectId}/issues`, { body: { title, confidential, milestone_id: milestoneId } })).status, 201);
    }
    assert.equal((await gantry.api('POST', `/projects/${projectId}/issues`, { body: { title: 'Paint' } })).status, 201);
    const page = await anonymous.get(pathOf(milestone.json.web_url as string));
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Orbit<\/h1>/);
    assert.match(page.body, /Get <strong>up<\/strong>/);
    assert.match(page.body, /due 2027-01-31/);
    assert.match(page.body, /href="\/root\/rocket\/-\/issues\/1">#1 Fuel</);
    assert.doesNotMatch(page.body, /Secret payload/, 'a confidential issue stays hidden from an anonymous visitor');
    assert.doesNotMatch(page.body, /Paint/, 'an issue of no milestone is not listed');
    const crew = await gantry.createUser('crew');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: crew.id, access_level: 20 } })).status, 201);
    const reporter = await (await new PageClient(gantry).signIn('crew')).get(pathOf(milestone.json.web_url as string));
    assert.match(reporter.body, /Secret payload/, 'a Reporter sees the confidential issue');
    assert.equal((await gantry.api('PUT', `/projects/${projectId}/milestones/${milestoneId}`, { body: { state_event: 'close' } })).status, 200);
    const open = await anonymous.get('/root/rocket/-/milestones');
    assert.match(open.body, /Launch &lt;1&gt;/);
    assert.doesNotMatch(open.body, />Orbit</, 'the list opens on the open milestones');
    assert.match((await anonymous.get('/root/rocket/-/milestones?state=closed')).body, />Orbit</);
  });

  it('opens a group milestone\'s web_url under /groups/, and hides what the visitor may not read', async () => {
    assert.equal((await gantry.api('POST', '/groups', { body: { name: 'Acme', path: 'acme', visibility: 'public' } })).status, 201);
    const milestone = await gantry.api('POST', '/groups/acme/milestones', { body: { title: 'Q1' } });
    assert.equal(milestone.status, 201, milestone.text);
    const webUrl = pathOf(milestone.json.web_url as string);
    assert.equal(webUrl, '/groups/acme/-/milestones/1');
    const page = await anonymous.get(webUrl);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Q1<\/h1>/);
    assert.match((await anonymous.get('/groups/acme/-/milestones')).body, /href="\/groups\/acme\/-\/milestones\/1">Q1</);
    assert.equal((await gantry.api('POST', '/projects/2/milestones', { body: { title: 'Hidden' } })).status, 201);
    await gantry.createUser('stranger');
    const stranger = await new PageClient(gantry).signIn('stranger');
    for (const path of ['/root/vault/-/milestones/1', '/root/vault/-/milestones', '/root/vault/-/releases', '/root/vault/-/tags']) {
      assert.equal((await stranger.get(path)).statusCode, 404, path);
      assert.equal((await anonymous.get(path)).statusCode, 302, `${path}: an anonymous visitor is asked to sign in`);
    }
  });
});
