/**
 * prom-client (about 100 ms of CPU to load) stays unloaded until the first scrape of
 * /-/metrics: a coordinator that serves requests, counts them and answers its health checks
 * never loads it. (Each test file runs in its own process, and this one imports nothing else
 * that loads prom-client.)
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const promClientLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\/]node_modules[\\/]prom-client[\\/]/.test(file));

describe('prom-client is loaded by the first scrape', () => {
  let gantry: TestCoordinator;
  before(async () => {
    gantry = await startTestCoordinator();
  });
  after(() => gantry.close());

  it('not by starting, answering, counting and health checks; then by /-/metrics, which counts what came before', async () => {
    assert.equal((await gantry.api('GET', '/version')).status, 200);
    assert.equal((await gantry.coordinator.app.inject({ url: '/-/readiness?all=1' })).statusCode, 200);
    assert.equal(promClientLoaded(), false);
    const metrics = await gantry.coordinator.app.inject({ url: '/-/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.equal(promClientLoaded(), true);
    assert.match(metrics.body, /^http_requests_total\{method="GET",route="\/api\/v4\/version",status="200"\} 1$/m);
  });
});
