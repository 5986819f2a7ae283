import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('group pages and the groups explore list', () => {
  let gantry: TestCoordinator;
  let member: { id: number };

  before(async () => {
    gantry = await startTestCoordinator();
    member = await gantry.createUser('mia');
    await gantry.createUser('otto');
    await gantry.createUser('ada', { admin: true });
    const group = async (body: Record<string, unknown>) => {
      const created = await gantry.api('POST', '/groups', { body });
      assert.equal(created.status, 201, created.text);
      return created.json.id as number;
    };
    const acme = await group({ name: 'Acme Corp', path: 'acme', visibility: 'public', description: 'We <b>make</b> things' });
    await group({ name: 'Platform', path: 'platform', visibility: 'public', parent_id: acme });
    await group({ name: 'Skunkworks', path: 'skunkworks', visibility: 'private', parent_id: acme });
    const vault = await group({ name: 'Vault', path: 'vault', visibility: 'private' });
    assert.equal((await gantry.api('POST', `/groups/${vault}/members`, { body: { user_id: member.id, access_level: 20 } })).status, 201);
    for (const [name, visibility] of [['Rocket', 'public'], ['Blueprints', 'private']] as const) {
      assert.equal((await gantry.api('POST', '/projects', { body: { name, namespace_id: acme, visibility } })).status, 201);
    }
  });
  after(() => gantry.close());

  it('shows a group\'s subgroups and projects that the visitor may see, linked, the rest left out', async () => {
    const page = await new PageClient(gantry).get('/groups/acme');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.match(page.body, /<h1>Acme Corp<\/h1>/);
    assert.match(page.body, /We &lt;b&gt;make&lt;\/b&gt; things/, 'the description is text');
    assert.match(page.body, /href="\/groups\/acme\/platform">Platform</);
    assert.match(page.body, /href="\/acme\/rocket">Rocket</);
    assert.doesNotMatch(page.body, /Skunkworks|Blueprints/);
    const admin = await (await new PageClient(gantry).signIn('ada')).get('/groups/acme/');
    assert.match(admin.body, /Skunkworks/);
    assert.match(admin.body, /href="\/acme\/blueprints">Blueprints</);
  });

  it('sends an anonymous visitor of a hidden or missing group to sign in, and shows a member the group', async () => {
    for (const path of ['/groups/vault', '/groups/no-such-group']) {
      const anonymous = await new PageClient(gantry).get(path);
      assert.equal(anonymous.statusCode, 302, path);
      assert.equal(anonymous.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    }
    const outsider = await (await new PageClient(gantry).signIn('otto')).get('/groups/vault');
    assert.equal(outsider.statusCode, 404);
    const insider = await (await new PageClient(gantry).signIn('mia')).get('/groups/vault');
    assert.equal(insider.statusCode, 200);
    assert.match(insider.body, /<h1>Vault<\/h1>/);
  });

  it('lists the groups the visitor may see on /explore/groups; /explore leads to the projects', async () => {
    const anonymous = await new PageClient(gantry).get('/explore/groups');
    assert.equal(anonymous.statusCode, 200);
    assert.match(anonymous.body, /href="\/groups\/acme">Acme Corp</);
    assert.match(anonymous.body, /href="\/groups\/acme\/platform">Acme Corp \/ Platform</);
    assert.doesNotMatch(anonymous.body, /Vault|Skunkworks/);
    const insider = await (await new PageClient(gantry).signIn('mia')).get('/explore/groups');
    assert.match(insider.body, /Vault/);
    assert.doesNotMatch(anonymous.body, /rel="next"/, 'one page');
    const explore = await new PageClient(gantry).get('/explore');
    assert.deepEqual([explore.statusCode, explore.headers.location], [302, '/explore/projects']);
  });

  it('pages a group with more than 20 subgroups, and refuses pages past 500', async () => {
    const team = await gantry.api('POST', '/groups', { body: { name: 'Teams', path: 'teams', visibility: 'public' } });
    for (let index = 1; index <= 21; index += 1) {
      const created = await gantry.api('POST', '/groups', { body: { name: `Team ${String(index).padStart(2, '0')}`, path: `team-${index}`, visibility: 'public', parent_id: team.json.id } });
      assert.equal(created.status, 201, created.text);
    }
    const first = await new PageClient(gantry).get('/groups/teams');
    assert.match(first.body, /<a rel="next" href="\/groups\/teams\?page=2">Next page<\/a>/);
    assert.doesNotMatch(first.body, /Team 21/);
    const second = await new PageClient(gantry).get('/groups/teams?page=2');
    assert.match(second.body, /Team 21/);
    assert.match(second.body, /<a rel="prev" href="\/groups\/teams\?page=1">Previous page<\/a>/);
    assert.doesNotMatch(second.body, /rel="next"/);
    assert.equal((await new PageClient(gantry).get('/groups/teams?page=501')).statusCode, 400);
  });
});
