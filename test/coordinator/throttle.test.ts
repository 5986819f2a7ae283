import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const THROTTLE_SETTINGS = ['throttle_authenticated_api', 'throttle_authenticated_web', 'throttle_unauthenticated'] as const;

describe('user and IP rate limits', () => {
  let gantry: TestCoordinator;
  let alice: TestUser;
  let bob: TestUser;
  let projectPath: string;
  /** Each test counts from its own address and users, so the windows of earlier tests do not interfere. */
  let address = 0;
  let ip = '';

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'open', { visibility: 'public' });
    const project = await makeProjectWithRepository(gantry, group.id, 'code', { visibility: 'public', withReadme: true });
    projectPath = `open/${project.path}`;
  });
  after(() => gantry.close());
  beforeEach(async () => {
    address += 1;
    ip = `198.51.100.${address}`;
    alice = await makeUser(gantry, `alice${address}`);
    bob = await makeUser(gantry, `bob${address}`);
    // Settings go straight to the service: a PUT through the API would itself be counted.
    const off: Record<string, unknown> = {};
    for (const name of THROTTLE_SETTINGS) off[`${name}_enabled`] = false;
    await gantry.coordinator.context.settings.update(off);
  });

  const throttle = (name: (typeof THROTTLE_SETTINGS)[number], requests: number, seconds = 60) =>
    gantry.coordinator.context.settings.update({ [`${name}_enabled`]: true, [`${name}_requests_per_period`]: requests, [`${name}_period_in_seconds`]: seconds });

  const get = (url: string, token: string | null = null, from = ip): Promise<LightMyRequestResponse> =>
    gantry.coordinator.app.inject({ method: 'GET', url, remoteAddress: from, headers: token === null ? {} : { 'private-token': token } });

  const statuses = async (count: number, request: () => Promise<LightMyRequestResponse>): Promise<number[]> => {
    const out: number[] = [];
    for (let index = 0; index < count; index += 1) out.push((await request()).statusCode);
    return out;
  };

  describe('settings', () => {
    it('shows the throttle settings with GitLab defaults (disabled)', async () => {
      const shown = await gantry.api('GET', '/application/settings');
      assert.equal(shown.status, 200);
      assert.equal(shown.json.throttle_authenticated_api_requests_per_period, 7200);
      assert.equal(shown.json.throttle_authenticated_web_requests_per_period, 7200);
      assert.equal(shown.json.throttle_unauthenticated_requests_per_period, 3600);
      for (const name of THROTTLE_SETTINGS) {
        assert.equal(shown.json[`${name}_enabled`], false, name);
        assert.equal(shown.json[`${name}_period_in_seconds`], 3600, name);
      }
    });

    it('stores and shows changes', async () => {
      const changed = await gantry.api('PUT', '/application/settings', {
        body: { throttle_authenticated_web_enabled: true, throttle_authenticated_web_requests_per_period: 500, throttle_authenticated_web_period_in_seconds: 30 },
      });
      assert.equal(changed.status, 200, changed.text);
      const shown = (await gantry.api('GET', '/application/settings')).json;
      assert.equal(shown.throttle_authenticated_web_enabled, true);
      assert.equal(shown.throttle_authenticated_web_requests_per_period, 500);
      assert.equal(shown.throttle_authenticated_web_period_in_seconds, 30);
    });

    it('validates them', async () => {
      const cases: Array<[Record<string, unknown>, number, unknown]> = [
        [{ throttle_unauthenticated_enabled: true }, 400, { error: 'throttle_unauthenticated_requests_per_period is missing' }],
        [{ throttle_unauthenticated_enabled: 'sometimes' }, 400, { error: 'throttle_unauthenticated_enabled is invalid' }],
        [{ throttle_authenticated_api_requests_per_period: 'many' }, 400, { error: 'throttle_authenticated_api_requests_per_period is invalid' }],
        [{ throttle_authenticated_api_requests_per_period: 0 }, 400, { message: { throttle_authenticated_api_requests_per_period: ['must be greater than 0'] } }],
        [{ throttle_authenticated_api_period_in_seconds: -5 }, 400, { message: { throttle_authenticated_api_period_in_seconds: ['must be greater than 0'] } }],
      ];
      for (const [body, status, answer] of cases) {
        const response = await gantry.api('PUT', '/application/settings', { body });
        assert.equal(response.status, status, JSON.stringify(body));
        assert.deepEqual(response.json, answer);
      }
      assert.equal((await gantry.api('GET', '/application/settings')).json.throttle_authenticated_api_requests_per_period, 7200);
    });
  });

  describe('unauthenticated requests', () => {
    it('are counted per IP address and answer 429 as GitLab does past the limit', async () => {
      await throttle('throttle_unauthenticated', 3);
      assert.deepEqual(await statuses(3, () => get('/api/v4/projects')), [200, 200, 200]);
      const refused = await get('/api/v4/projects');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.body, 'Retry later\n');
      assert.match(String(refused.headers['content-type']), /^text\/plain/);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After: ${String(refused.headers['retry-after'])}`);
      assert.equal(refused.headers['ratelimit-name'], 'throttle_unauthenticated');
      assert.equal(refused.headers['ratelimit-limit'], '3');
      assert.equal(refused.headers['ratelimit-remaining'], '0');
      const resetAt = Date.parse(String(refused.headers['ratelimit-resettime']));
      assert.ok(resetAt > Date.now() && resetAt <= Date.now() + 61_000);
      // Another address has its own count; signed-in callers are not counted by this throttle.
      assert.equal((await get('/api/v4/projects', null, '198.51.100.250')).statusCode, 200);
      assert.equal((await get('/api/v4/projects', alice.token)).statusCode, 200);
    });

    it('count requests with a wrong token by IP address, so guessing tokens is throttled too', async () => {
      await throttle('throttle_unauthenticated', 2);
      assert.deepEqual(await statuses(3, () => get('/api/v4/user', 'not-a-token')), [401, 401, 429]);
    });

    it('count anonymous web downloads', async () => {
      await throttle('throttle_unauthenticated', 1);
      const archive = `/${projectPath}/-/archive/main/code-main.zip`;
      assert.deepEqual(await statuses(2, () => get(archive)), [200, 429]);
    });

    it('are not counted on git over HTTP, which has its own throttles in GitLab', async () => {
      await throttle('throttle_unauthenticated', 1);
      assert.equal((await get('/api/v4/projects')).statusCode, 200);
      assert.equal((await get('/api/v4/projects')).statusCode, 429);
      const refs = `/${projectPath}.git/info/refs?service=git-upload-pack`;
      assert.deepEqual(await statuses(3, () => get(refs)), [200, 200, 200]);
    });

    it('are never refused while the throttle is disabled', async () => {
      await gantry.coordinator.context.settings.update({ throttle_unauthenticated_requests_per_period: 1, throttle_unauthenticated_period_in_seconds: 60 });
      assert.deepEqual(await statuses(5, () => get('/api/v4/projects')), [200, 200, 200, 200, 200]);
    });
  });

  describe('authenticated API requests', () => {
    it('are counted per user, whatever address they come from', async () => {
      await throttle('throttle_authenticated_api', 2);
      assert.equal((await get('/api/v4/user', alice.token, '203.0.113.1')).statusCode, 200);
      assert.equal((await get('/api/v4/projects', alice.token, '203.0.113.2')).statusCode, 200);
      const refused = await get('/api/v4/user', alice.token, '203.0.113.3');
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['ratelimit-name'], 'throttle_authenticated_api');
      assert.equal(refused.body, 'Retry later\n');
      assert.equal((await get('/api/v4/user', bob.token)).statusCode, 200);
      // Anonymous callers fall under the unauthenticated throttle (disabled here).
      assert.equal((await get('/api/v4/projects')).statusCode, 200);
    });

    it('count writes and sudo requests against the credential owner', async () => {
      await throttle('throttle_authenticated_api', 2);
      const post = () =>
        gantry.coordinator.app.inject({ method: 'POST', url: '/api/v4/projects', remoteAddress: ip, headers: { 'private-token': ROOT_TOKEN, sudo: bob.username }, payload: { name: `p-${Math.random()}` } });
      assert.deepEqual(await statuses(3, post), [201, 201, 429]);
      assert.equal((await get('/api/v4/user', bob.token)).statusCode, 200, 'bob was not the caller');
    });

    it('follow changes of the limit and period without a restart', async () => {
      await throttle('throttle_authenticated_api', 1);
      assert.deepEqual(await statuses(2, () => get('/api/v4/user', alice.token)), [200, 429]);
      await throttle('throttle_authenticated_api', 3);
      assert.equal((await get('/api/v4/user', alice.token)).statusCode, 200);
      await throttle('throttle_authenticated_api', 1, 1);
      const refused = await get('/api/v4/user', alice.token);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '1');
      await sleep(1100);
      assert.equal((await get('/api/v4/user', alice.token)).statusCode, 200, 'a new period starts with a new count');
    });

    it('leave web downloads to the authenticated web throttle', async () => {
      await throttle('throttle_authenticated_api', 1);
      await throttle('throttle_authenticated_web', 2);
      const archive = `/${projectPath}/-/archive/main/code-main.zip`;
      assert.deepEqual(await statuses(3, () => get(archive, bob.token)), [200, 200, 429]);
      assert.equal((await get('/api/v4/user', bob.token)).statusCode, 200, 'downloads do not use the API count');
    });
  });
});
