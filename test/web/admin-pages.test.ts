import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('web admin pages', () => {
  let gantry: TestCoordinator;
  let admin: PageClient;
  let user: PageClient;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.createUser('boss', { admin: true });
    await gantry.createUser('plain');
    const runner = await gantry.api('POST', '/user/runners', { body: { runner_type: 'instance_type', description: 'big <b>box</b>', tag_list: ['docker', 'linux'] } });
    assert.equal(runner.status, 201, runner.text);
    admin = await new PageClient(gantry).signIn('boss');
    user = await new PageClient(gantry).signIn('plain');
  });
  after(() => gantry.close());

  it('lists every runner to an administrator with status, version, last contact and tags', async () => {
    const page = await admin.get('/admin/runners');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Runners \(1\)<\/h1>/);
    assert.match(page.body, /big &lt;b&gt;box&lt;\/b&gt;/);
    assert.match(page.body, /status-not_connected">not_connected</);
    assert.match(page.body, /<td>never<\/td><td>docker, linux<\/td>/);
  });

  it('shows the task queue to an administrator', async () => {
    const page = await admin.get('/admin/background_jobs');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h2>Queues<\/h2>/);
    assert.match(page.body, /\d+ waiting, \d+ out of attempts/);
  });

  it('refuses others: a user gets the 404 page (GitLab\'s render_404), an anonymous visitor is sent to sign in', async () => {
    for (const path of ['/admin/runners', '/admin/background_jobs']) {
      assert.equal((await user.get(path)).statusCode, 404, path);
      const anonymous = await new PageClient(gantry).get(path);
      assert.equal(anonymous.statusCode, 302, path);
      assert.equal(anonymous.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    }
  });
});
