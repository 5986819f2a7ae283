/**
 * GitLab's monitoring endpoints: /-/health ("GitLab OK"), /-/liveness and /-/readiness
 * (`?all=1` adds the database, data directory and git checks; a failing check answers 503
 * `{"status":"failed", ...}`), /-/metrics (Prometheus text), all restricted to the monitoring
 * allow-list (loopback by default; anyone else gets the answer of a path that does not exist),
 * standalone and under a host's prefix.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { createCoordinator, gantryPlugin } from '../../src/coordinator/app.ts';
import { testDatabase } from '../helpers/database.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const UNKNOWN_PATH = { status: 404, body: '{"error":"404 Not Found"}' };

async function get(gantry: TestCoordinator, url: string, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) {
  const response = await gantry.coordinator.app.inject({ method: 'GET', url, remoteAddress, headers });
  return { status: response.statusCode, body: response.body, headers: response.headers };
}

describe('monitoring endpoints from loopback', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('/-/health answers "GitLab OK" as text, without touching anything else', async () => {
    const health = await get(gantry, '/-/health');
    assert.deepEqual([health.status, health.body, health.headers['content-type']], [200, 'GitLab OK', 'text/plain']);
    const head = await gantry.coordinator.app.inject({ method: 'HEAD', url: '/-/health' });
    assert.equal(head.statusCode, 200);
  });

  it('/-/liveness answers {"status":"ok"}; /-/readiness the instance check (this coordinator\'s heartbeat)', async () => {
    const expected: Record<string, unknown> = { '/-/liveness': { status: 'ok' }, '/-/readiness': { status: 'ok', instance_check: [{ status: 'ok' }] } };
    for (const url of ['/-/liveness', '/-/readiness']) {
      const probe = await get(gantry, url);
      assert.equal(probe.status, 200, url);
      assert.match(String(probe.headers['content-type']), /^application\/json/);
      assert.deepEqual(JSON.parse(probe.body), expected[url], url);
    }
  });

  it('/-/readiness?all=1 adds the database, data directory and git checks (any value of all does, as in Rails)', async () => {
    for (const url of ['/-/readiness?all=1', '/-/readiness?all=0', '/-/readiness?all=']) {
      const probe = await get(gantry, url);
      assert.equal(probe.status, 200, url);
      assert.deepEqual(JSON.parse(probe.body), { status: 'ok', instance_check: [{ status: 'ok' }], db_check: [{ status: 'ok' }], data_directory_check: [{ status: 'ok' }], git_check: [{ status: 'ok' }] }, url);
      assert.equal(probe.headers['x-gitlab-custom-error'], undefined);
    }
  });

  it('/-/metrics answers Prometheus text with the process metrics and the requests counted by route and status', async () => {
    await gantry.api('GET', '/version');
    await gantry.api('GET', '/projects/999999');
    const metrics = await get(gantry, '/-/metrics');
    assert.equal(metrics.status, 200);
    assert.equal(metrics.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(metrics.body, /^# TYPE http_requests_total counter$/m);
    assert.match(metrics.body, /^http_requests_total\{method="GET",route="\/api\/v4\/version",status="200"\} 1$/m);
    assert.match(metrics.body, /^http_requests_total\{method="GET",route="\/api\/v4\/projects\/:id",status="404"\} 1$/m);
    assert.match(metrics.body, /^gantry_http_request_seconds_total\{method="GET",route="\/api\/v4\/version"\} \d/m);
    assert.match(metrics.body, /^process_cpu_seconds_total \d/m);
    assert.match(metrics.body, /^gantry_version_info\{version="[^"]+"\} 1$/m);
  });

  it('/-/metrics answers GitLab\'s "metrics are disabled" text while prometheus_metrics_enabled is off', async () => {
    assert.equal((await gantry.api('PUT', '/application/settings', { body: { prometheus_metrics_enabled: false } })).status, 200);
    try {
      const metrics = await get(gantry, '/-/metrics');
      assert.deepEqual([metrics.status, metrics.body], [200, '# Metrics are disabled, see: the application setting prometheus_metrics_enabled\n']);
    } finally {
      await gantry.api('PUT', '/application/settings', { body: { prometheus_metrics_enabled: true } });
    }
    assert.match((await get(gantry, '/-/metrics')).body, /^http_requests_total/m);
  });

  it('a request to an unknown path is counted under the route "unmatched"', async () => {
    // Under a reserved top-level name: any other path could name a user's, a group's or a project's web page, which the
    // pages' catch-all answers (its 404 counts under that route).
    await get(gantry, '/help/no-such-page-here');
    assert.match((await get(gantry, '/-/metrics')).body, /^http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/m);
  });
});

describe('the monitoring allow-list', () => {
  let gantry: TestCoordinator;
  let configured: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
    configured = await startTestCoordinator({ extra: { monitoringIpWhitelist: ['10.0.0.0/8', '2001:db8::/32'] } });
  });
  after(async () => {
    await gantry.close();
    await configured.close();
  });

  it('refuses callers outside it as GitLab does: /-/health an empty text 404, the others the answer of an unknown path', async () => {
    for (const address of ['203.0.113.9', '10.0.0.1', '::ffff:203.0.113.9', '2001:db8::1']) {
      const health = await get(gantry, '/-/health', address);
      assert.deepEqual([health.status, health.body, health.headers['content-type']], [404, '', 'text/plain'], address);
      for (const url of ['/-/liveness', '/-/readiness', '/-/readiness?all=1', '/-/metrics']) {
        const refused = await get(gantry, url, address);
        assert.deepEqual({ status: refused.status, body: refused.body }, UNKNOWN_PATH, `${url} from ${address}`);
      }
    }
    assert.equal((await get(gantry, '/-/readiness', '::1')).status, 200, 'IPv6 loopback is in the default list');
  });

  it('holds behind a reverse proxy: every address in X-Forwarded-For must be allowed too', async () => {
    assert.equal((await get(gantry, '/-/readiness', '127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).status, 404);
    assert.equal((await get(gantry, '/-/health', '127.0.0.1', { 'x-forwarded-for': '127.0.0.1, 203.0.113.9' })).status, 404);
    assert.equal((await get(gantry, '/-/health', '203.0.113.9', { 'x-forwarded-for': '127.0.0.1' })).status, 404, 'naming an allowed address from outside does not help');
    assert.equal((await get(gantry, '/-/health', '127.0.0.1', { 'x-forwarded-for': '127.0.0.1:4711, [::1]:80' })).status, 200);
  });

  it('a configured list replaces loopback with its own ranges', async () => {
    for (const address of ['10.1.2.3', '::ffff:10.1.2.3', '2001:db8::7']) {
      assert.equal((await get(configured, '/-/readiness?all=1', address)).status, 200, address);
      assert.equal((await get(configured, '/-/health', address)).body, 'GitLab OK', address);
    }
    assert.equal((await get(configured, '/-/health', '127.0.0.1')).status, 404);
    assert.deepEqual({ status: (await get(configured, '/-/metrics', '127.0.0.1')).status }, { status: 404 });
  });

  it('an entry that is neither an address nor a range stops the start, naming it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-allow-'));
    try {
      await assert.rejects(createCoordinator({ dataDir, databaseUrl: ':memory:', monitoringIpWhitelist: ['127.0.0.1', 'example.com'] }), {
        message: 'monitoring_ip_whitelist: "example.com" is not an IP address or CIDR range',
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('readiness when a dependency fails', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  const readiness = async () => {
    const probe = await get(gantry, '/-/readiness?all=1');
    return { status: probe.status, body: JSON.parse(probe.body) as Record<string, unknown>, customError: probe.headers['x-gitlab-custom-error'] };
  };

  it('the data directory gone: 503, status failed, the data directory and git checks failed with their reasons; back once it is back', async () => {
    const away = `${gantry.dataDir}.away`;
    renameSync(gantry.dataDir, away);
    try {
      const failed = await readiness();
      assert.equal(failed.status, 503);
      assert.equal(failed.customError, '1');
      assert.equal(failed.body.status, 'failed');
      assert.deepEqual(failed.body.db_check, [{ status: 'ok' }]);
      const [directory] = failed.body.data_directory_check as Array<{ status: string; message: string }>;
      assert.equal(directory!.status, 'failed');
      assert.match(directory!.message, /^cannot stat data directory \(ENOENT: /);
      const [git] = failed.body.git_check as Array<{ status: string; message: string }>;
      assert.equal(git!.status, 'failed');
      assert.match(git!.message, /^cannot stat repositories directory \(ENOENT: /);
      assert.deepEqual(JSON.parse((await get(gantry, '/-/readiness')).body), { status: 'ok', instance_check: [{ status: 'ok' }] }, 'without all, only the instance check runs');
      assert.equal((await get(gantry, '/-/liveness')).status, 200);
    } finally {
      renameSync(away, gantry.dataDir);
    }
    assert.deepEqual(await readiness(), { status: 200, customError: undefined, body: { status: 'ok', instance_check: [{ status: 'ok' }], db_check: [{ status: 'ok' }], data_directory_check: [{ status: 'ok' }], git_check: [{ status: 'ok' }] } });
  });

  it('the data directory a file: cannot stat it either', async () => {
    const away = `${gantry.dataDir}.away`;
    renameSync(gantry.dataDir, away);
    try {
      writeFileSync(gantry.dataDir, 'not a directory');
      const failed = await readiness();
      assert.equal(failed.status, 503);
      assert.deepEqual(failed.body.data_directory_check, [{ status: 'failed', message: `cannot stat data directory (${gantry.dataDir} is not a directory)` }]);
    } finally {
      rmSync(gantry.dataDir, { force: true });
      renameSync(away, gantry.dataDir);
    }
  });

  it('the database closed: db_check failed (503) while liveness and plain readiness still answer ok (until the heartbeat is stale)', async () => {
    await gantry.coordinator.context.db.destroy();
    const failed = await readiness();
    assert.equal(failed.status, 503);
    assert.equal(failed.body.status, 'failed');
    const [database] = failed.body.db_check as Array<{ status: string; message: string }>;
    assert.equal(database!.status, 'failed');
    assert.match(database!.message, /^Db check failed: ./);
    assert.deepEqual(failed.body.data_directory_check, [{ status: 'ok' }]);
    assert.deepEqual(JSON.parse((await get(gantry, '/-/liveness')).body), { status: 'ok' });
    assert.equal((await get(gantry, '/-/readiness')).status, 200);
    assert.equal((await get(gantry, '/-/metrics')).status, 200, 'metrics still answer, without the database gauges');
    assert.doesNotMatch((await get(gantry, '/-/metrics')).body, /^gantry_ci_jobs\{/m);
  });
});

describe('monitoring endpoints under a host prefix (the fastify plugin)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-plugin-monitoring-'));
  let host: FastifyInstance;
  let database: Awaited<ReturnType<typeof testDatabase>>;
  before(async () => {
    database = await testDatabase();
    host = Fastify();
    host.get('/', async () => 'my site');
    await host.register(gantryPlugin, { prefix: '/ci', dataDir, databaseUrl: database.url, rootToken: 'plugin-monitoring-token-0123456789', externalUrl: 'http://host.example/ci' });
    await host.ready();
  });
  after(async () => {
    await host.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves them at <prefix>/-/..., labels routes without the prefix, and leaves the host\'s own paths alone', async () => {
    assert.equal((await host.inject({ url: '/ci/-/health' })).body, 'GitLab OK');
    const ready = await host.inject({ url: '/ci/-/readiness?all=1' });
    assert.deepEqual([ready.statusCode, JSON.parse(ready.body).status, JSON.parse(ready.body).git_check], [200, 'ok', [{ status: 'ok' }]]);
    assert.equal((await host.inject({ url: '/ci/-/readiness', remoteAddress: '203.0.113.9' })).statusCode, 404);
    assert.equal((await host.inject({ url: '/ci/api/v4/version', headers: { 'private-token': 'plugin-monitoring-token-0123456789' } })).statusCode, 200);
    const metrics = await host.inject({ url: '/ci/-/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /^http_requests_total\{method="GET",route="\/api\/v4\/version",status="200"\} 1$/m);
    assert.match(metrics.body, /^http_requests_total\{method="GET",route="\/-\/readiness",status="200"\} 1$/m);
    assert.equal((await host.inject({ url: '/-/health' })).statusCode, 404, "the host's root is not the coordinator's");
    assert.equal((await host.inject({ url: '/' })).body, 'my site');
  });
});
