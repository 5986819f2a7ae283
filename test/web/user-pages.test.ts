import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('user pages (a user\'s web_url) and top-level group paths', () => {
  let gantry: TestCoordinator;
  let mia: { id: number; token: string };

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    mia = await gantry.createUser('mia', { bio: 'Builds <b>rockets</b>', location: 'Lisbon' });
    await gantry.createUser('otto');
    for (const [name, visibility] of [['Rocket', 'public'], ['Diary', 'private']] as const) {
      const created = await gantry.api('POST', '/projects', { token: mia.token, body: { name, visibility } });
      assert.equal(created.status, 201, created.text);
    }
    assert.equal((await gantry.api('POST', '/groups', { body: { name: 'Acme', path: 'acme', visibility: 'public' } })).status, 201);
    assert.equal((await gantry.api('POST', '/groups', { body: { name: 'Vault', path: 'vault', visibility: 'private' } })).status, 201);
  });
  after(() => gantry.close());

  it('opens the web_url the API gives a user: the profile and the personal projects the visitor may see', async () => {
    const webUrl = (await gantry.api('GET', `/users/${mia.id}`)).json.web_url as string;
    assert.equal(webUrl, 'http://gantry.test/mia');
    const anonymous = await new PageClient(gantry).get('/mia');
    assert.equal(anonymous.statusCode, 200);
    assert.match(anonymous.headers['content-type'] as string, /^text\/html/);
    assert.match(anonymous.body, /<h1>User mia<\/h1>/);
    assert.match(anonymous.body, /@mia/);
    assert.match(anonymous.body, /Builds &lt;b&gt;rockets&lt;\/b&gt;/, 'the bio is text');
    assert.match(anonymous.body, /href="\/mia\/rocket">Rocket</);
    assert.doesNotMatch(anonymous.body, /Diary/, 'a private project stays hidden from others');
    const own = await (await new PageClient(gantry).signIn('mia')).get('/mia/');
    assert.match(own.body, /href="\/mia\/diary">Diary</);
    assert.equal((await new PageClient(gantry).get('/MIA')).statusCode, 200, 'the username is matched as GitLab routes it, case aside');
  });

  it('leads a top-level group\'s path to its page, and answers a name nobody holds (or a hidden group) as a missing page', async () => {
    const group = await new PageClient(gantry).get('/acme');
    assert.equal(group.statusCode, 302);
    assert.equal(group.headers.location, '/groups/acme');
    const otto = await new PageClient(gantry).signIn('otto');
    for (const path of ['/nobody-here', '/vault', '/1']) {
      const missing = await otto.get(path);
      assert.equal(missing.statusCode, 404, path);
      assert.match(missing.body, /could not be found/, path);
    }
    const anonymous = await new PageClient(gantry).get('/nobody-here');
    assert.equal(anonymous.statusCode, 302, 'an anonymous visitor is asked to sign in, as for a hidden project');
    assert.equal(anonymous.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent('/nobody-here')}`);
  });

  it('says a blocked user is blocked and shows nothing else to others; reserved paths are no user\'s', async () => {
    const blocked = await gantry.createUser('gone');
    assert.equal((await gantry.api('POST', '/projects', { token: blocked.token, body: { name: 'Leftover', visibility: 'public' } })).status, 201);
    assert.equal((await gantry.api('POST', `/users/${blocked.id}/block`)).status, 201);
    const page = await new PageClient(gantry).get('/gone');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /This user is blocked\./);
    assert.doesNotMatch(page.body, /Leftover/);
    assert.notEqual((await new PageClient(gantry).get('/explore')).headers.location, '/groups/explore');
    assert.equal((await new PageClient(gantry).get('/explore')).headers.location, '/explore/projects');
  });
});
