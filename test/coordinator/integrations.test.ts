import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INTEGRATIONS } from '../../src/coordinator/services/integrations/catalogue.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';

/** A value for each field of an integration (strings for text, true for booleans, 7 for integers). */
function fullBody(slug: string): Record<string, unknown> {
  const definition = INTEGRATIONS.find((item) => item.slug === slug)!;
  return Object.fromEntries(definition.fields.map((field) => [field.name, field.kind === 'boolean' ? true : field.kind === 'integer' ? 7 : `${field.name}-value`]));
}

describe('integrations API', () => {
  let fx: CiSettingsFixture;
  const url = (suffix: string) => `/projects/${fx.project.id}${suffix}`;

  before(async () => {
    fx = await startCiSettingsFixture();
  });
  after(() => fx.close());

  it('refuses a PUT without its required parameters, naming every missing one, for each of the 20 integrations', async () => {
    assert.equal(INTEGRATIONS.length, 20);
    for (const definition of INTEGRATIONS.filter((item) => item.slug !== 'cluster-deploy')) {
      const required = definition.fields.filter((field) => field.required).map((field) => field.name);
      const refused = await fx.gantry.api('PUT', url(`/services/${definition.slug}`), { body: {}, token: fx.maintainer.token });
      assert.deepEqual([refused.status, refused.json], [400, { error: required.map((name) => `${name} is missing`).join(', ') }], definition.slug);
      const blank = await fx.gantry.api('PUT', url(`/services/${definition.slug}`), { body: { [required[0]!]: '  ' }, token: fx.maintainer.token });
      assert.equal(blank.status, 400, definition.slug);
    }
  });

  it('answers a never-configured integration with its blank settings, inactive', async () => {
    const blank = await fx.gantry.api('GET', url('/services/emails-on-push'), { token: fx.maintainer.token });
    assert.equal(blank.status, 200, blank.text);
    assert.deepEqual([blank.json.id, blank.json.active, blank.json.slug, blank.json.created_at], [null, false, 'emails-on-push', null]);
    assert.deepEqual(blank.json.properties, { recipients: null, disable_diffs: null, send_from_committer_email: null });
  });

  it('stores every integration with its parameters, parsed booleans and integers, and never shows secrets', async () => {
    for (const definition of INTEGRATIONS.filter((item) => item.slug !== 'cluster-deploy')) {
      const saved = await fx.gantry.api('PUT', url(`/services/${definition.slug}`), { body: fullBody(definition.slug), token: fx.maintainer.token });
      assert.equal(saved.status, 200, `${definition.slug}: ${saved.text}`);
      const read = await fx.gantry.api('GET', url(`/services/${definition.slug}`), { token: fx.maintainer.token });
      assert.deepEqual([read.json.active, read.json.slug, typeof read.json.id], [true, definition.slug, 'number']);
      const expected = Object.fromEntries(definition.fields.filter((field) => !field.secret).map((field) => [field.name, fullBody(definition.slug)[field.name]]));
      assert.deepEqual(read.json.properties, expected, definition.slug);
      for (const secret of ['token', 'password', 'api_key']) assert.ok(!read.text.includes(`${secret}-value`), `${definition.slug} shows its ${secret}`);
    }
  });

  it('parses GitLab booleans and integers from a form body, and refuses malformed ones', async () => {
    const form = { recipients: 'a@example.com b@example.com', disable_diffs: 'yes', send_from_committer_email: '0', push_events: 'false' };
    const saved = await fx.gantry.api('PUT', url('/services/emails-on-push'), { form, token: fx.maintainer.token });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.json.properties, { recipients: 'a@example.com b@example.com', disable_diffs: true, send_from_committer_email: false });
    assert.equal(saved.json.push_events, false);
    assert.equal(saved.json.tag_push_events, true);
    const port = await fx.gantry.api('PUT', url('/services/irc-gateway'), { form: { recipients: '#chan', server_port: '6659' }, token: fx.maintainer.token });
    assert.equal((port.json.properties as Record<string, unknown>).server_port, 6659);
    const badPort = await fx.gantry.api('PUT', url('/services/irc-gateway'), { form: { recipients: '#chan', server_port: 'six' }, token: fx.maintainer.token });
    assert.deepEqual([badPort.status, badPort.json], [400, { error: 'server_port is invalid' }]);
    const badFlag = await fx.gantry.api('PUT', url('/services/emails-on-push'), { form: { recipients: 'a@example.com', push_events: 'maybe' }, token: fx.maintainer.token });
    assert.deepEqual([badFlag.status, badFlag.json], [400, { error: 'push_events is invalid' }]);
  });

  it('keeps unchanged settings on a later PUT and fills the transition id default', async () => {
    const body = { url: 'https://tracker.example', project_key: 'GANT', username: 'bot', password: 'p4ss' };
    const first = await fx.gantry.api('PUT', url('/services/issue-tracker-b'), { body, token: fx.maintainer.token });
    assert.equal((first.json.properties as Record<string, unknown>).tracker_issue_transition_id, 7);
    await fx.gantry.api('DELETE', url('/services/issue-tracker-b'), { token: fx.maintainer.token });
    const fresh = await fx.gantry.api('PUT', url('/services/issue-tracker-b'), { body, token: fx.maintainer.token });
    assert.equal((fresh.json.properties as Record<string, unknown>).tracker_issue_transition_id, 2);
  });

  it('answers GitLab slugs and field names under /services and /integrations as aliases', async () => {
    const saved = await fx.gantry.api('PUT', url('/integrations/bamboo'), {
      body: { bamboo_url: 'https://ci.example', build_key: 'KEY', username: 'u', password: 'secret-pw' },
      token: fx.maintainer.token,
    });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual([saved.json.slug, saved.json.properties], ['bamboo', { bamboo_url: 'https://ci.example', build_key: 'KEY', username: 'u' }]);
    const canonical = await fx.gantry.api('GET', url('/services/ci-server-a'), { token: fx.maintainer.token });
    assert.deepEqual([canonical.json.slug, canonical.json.properties], ['ci-server-a', { ci_server_url: 'https://ci.example', build_key: 'KEY', username: 'u' }]);
    const viaServices = await fx.gantry.api('GET', url('/services/bamboo'), { token: fx.maintainer.token });
    assert.equal(viaServices.json.id, canonical.json.id);
    const missing = await fx.gantry.api('PUT', url('/integrations/drone-ci'), { body: {}, token: fx.maintainer.token });
    assert.deepEqual([missing.status, missing.json], [400, { error: 'token is missing, drone_url is missing' }]);
    for (const definition of INTEGRATIONS.filter((item) => item.slug !== 'cluster-deploy')) {
      const alias = await fx.gantry.api('GET', url(`/integrations/${definition.gitlabSlug}`), { token: fx.maintainer.token });
      assert.deepEqual([alias.status, alias.json.slug], [200, definition.gitlabSlug]);
    }
    const unknown = await fx.gantry.api('GET', url('/services/no-such-thing'), { token: fx.maintainer.token });
    assert.deepEqual([unknown.status, unknown.json], [404, { error: '404 Not Found' }]);
  });

  it('lists the active integrations under /services and /integrations', async () => {
    for (const list of ['/services', '/integrations']) {
      const listed = await fx.gantry.api('GET', url(list), { token: fx.maintainer.token });
      assert.equal(listed.status, 200);
      assert.ok(listed.list.every((item) => item.active === true));
      assert.ok(listed.list.some((item) => item.slug === 'emails-on-push'));
      assert.ok(!listed.text.includes('secret-pw'));
    }
  });

  it('DELETE answers 204 and the integration reads inactive and unlisted afterwards', async () => {
    await fx.gantry.api('PUT', url('/services/chat-b'), { body: { token: 't' }, token: fx.maintainer.token });
    const removed = await fx.gantry.api('DELETE', url('/services/chat-b'), { token: fx.maintainer.token });
    assert.equal(removed.status, 204);
    const read = await fx.gantry.api('GET', url('/services/chat-b'), { token: fx.maintainer.token });
    assert.deepEqual([read.json.active, read.json.id], [false, null]);
    const listed = await fx.gantry.api('GET', url('/services'), { token: fx.maintainer.token });
    assert.ok(!listed.list.some((item) => item.slug === 'chat-b'));
  });

  it('refuses every call on cluster-deploy while it is inactive (400)', async () => {
    for (const path of ['/services/cluster-deploy', '/integrations/kubernetes']) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const body = method === 'PUT' ? { namespace: 'n', api_url: 'https://k8s.example', token: 't' } : undefined;
        const refused = await fx.gantry.api(method, url(path), { body, token: fx.maintainer.token });
        assert.equal(refused.status, 400, `${method} ${path}`);
        assert.match(String(refused.json.message), /^400 Bad request - cluster-deploy is deprecated and inactive/);
      }
    }
  });

  it('lets Maintainers and Owners only: 403 below, 404 for a stranger, 401 without a token', async () => {
    for (const user of [fx.developer, fx.reporter, fx.guest]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const refused = await fx.gantry.api(method, url('/services/chat-b'), { body: method === 'PUT' ? { token: 't' } : undefined, token: user.token });
        assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }], `${user.username} ${method}`);
      }
      assert.equal((await fx.gantry.api('GET', url('/integrations'), { token: user.token })).status, 403);
    }
    assert.equal((await fx.gantry.api('GET', url('/services/chat-b'), { token: fx.stranger.token })).status, 404);
    assert.equal((await fx.gantry.api('GET', url('/services/chat-b'), { token: null })).status, 401);
    assert.equal((await fx.gantry.api('GET', url('/services/chat-b'))).status, 200, 'an administrator manages any project');
  });
});
