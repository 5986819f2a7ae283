import assert from 'node:assert/strict';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { waitUntil, WaitExpired } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

/** The longest a due delivery gives way to requests here: far beyond the waits of the first test. */
const YIELD_MS = 5_000;

describe('webhook deliveries give way to requests in flight', () => {
  let gantry: TestCoordinator;
  let target: HookReceiver;
  let projectId: number;
  let port: number;
  let fileCounter = 0;

  /** A commit through the API (a push event); answers its SHA. */
  const commit = async (): Promise<string> => {
    fileCounter += 1;
    const made = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: `change ${fileCounter}`, actions: [{ action: 'create', file_path: `f${fileCounter}.txt`, content: `${fileCounter}\n` }] },
    });
    assert.equal(made.status, 201, made.text);
    return String(made.json.id);
  };
  /** A request the coordinator has received but not answered: its body never ends until `release`. */
  const holdRequest = async (): Promise<{ release(): void }> => {
    const held: ClientRequest = httpRequest({ host: '127.0.0.1', port, path: '/api/v4/projects', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
    held.on('error', () => {});
    held.flushHeaders();
    held.write('{');
    const inFlight = ciServicesOf(gantry.coordinator).requestsInFlight;
    await waitUntil(() => inFlight.inFlight >= 1, 'the held request counted');
    return { release: () => held.destroy() };
  };
  /** Whether the receiver got `count` requests within `ms` (a generous bound: an idle coordinator sends in milliseconds). */
  const arrivesWithin = async (count: number, ms: number): Promise<boolean> => {
    try {
      await waitUntil(() => target.requests.length >= count, 'the delivery', { timeoutMs: ms });
      return true;
    } catch (error) {
      if (error instanceof WaitExpired) return false;
      throw error;
    }
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { yieldMs: YIELD_MS } } } });
    // Served on loopback too: the held request comes over a real connection.
    await gantry.coordinator.app.listen({ host: '127.0.0.1', port: 0 });
    port = (gantry.coordinator.app.server.address() as AddressInfo).port;
    const allowed = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(allowed.status, 200, allowed.text);
    const project = await gantry.api('POST', '/projects', { body: { name: 'yielding', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
    target = await hookReceiver();
    const hook = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { url: target.base } });
    assert.equal(hook.status, 201, hook.text);
  });
  after(async () => {
    await target.close();
    await gantry.close();
  });

  it('sends nothing while a request is in flight, and sends as soon as it ends', async () => {
    const held = await holdRequest();
    let released = false;
    try {
      const sha = await commit();
      assert.equal(await arrivesWithin(1, 1_500), false, 'a delivery started while a request was in flight');
      held.release();
      released = true;
      await waitUntil(() => target.requests.length >= 1, 'the delivery once the request ended');
      assert.equal(target.requests[0]!.body.after, sha);
    } finally {
      if (!released) held.release();
    }
  });

  it('is never starved: a delivery starts once it has waited its bound, the request still in flight', async () => {
    const held = await holdRequest();
    try {
      const arrivals: number[] = [];
      target.server.on('request', () => arrivals.push(Date.now()));
      const sent = Date.now();
      const sha = await commit();
      await waitUntil(() => target.requests.length >= 2, 'the delivery after its bound', { timeoutMs: 60_000 });
      assert.ok(arrivals[0]! - sent >= YIELD_MS, `the delivery came ${String(arrivals[0]! - sent)} ms after the push, before its bound`);
      assert.equal(ciServicesOf(gantry.coordinator).requestsInFlight.inFlight >= 1, true, 'the request was still in flight');
      assert.equal(target.requests[1]!.body.after, sha);
    } finally {
      held.release();
    }
  });
});
