import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { afterCurrentRequest, runInRequestScope } from '../../src/coordinator/request-scope.ts';
import { waitUntil } from '../helpers/bounded.ts';

/** A server entering each request's scope as app.ts does; `handle` is its one route. */
async function serverWith(handle: () => Promise<string>) {
  const app = Fastify();
  const finishedAt: number[] = [];
  app.addHook('onRequest', (_request, reply, done) => {
    reply.raw.once('finish', () => finishedAt.push(performance.now()));
    runInRequestScope(reply.raw, done);
  });
  app.get('/', handle);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { base, finishedAt, close: () => app.close() };
}

describe('work a request sets off waits for its answer', () => {
  it('runs once the response has finished, not when it is asked for', async () => {
    let ranAt: number | undefined;
    let ranBeforeAnswer = false;
    const server = await serverWith(async () => {
      afterCurrentRequest(() => {
        ranAt = performance.now();
      }, 60_000);
      // The request goes on after asking (as a push goes on after recording its deliveries).
      await new Promise((wait) => setTimeout(wait, 50));
      ranBeforeAnswer = ranAt !== undefined;
      return 'answered';
    });
    try {
      const response = await fetch(server.base);
      assert.equal(await response.text(), 'answered');
      await waitUntil(() => ranAt !== undefined, 'the work after the answer');
      assert.equal(ranBeforeAnswer, false, 'the work ran while its request was still being answered');
      assert.equal(server.finishedAt.length, 1);
      assert.ok(ranAt! >= server.finishedAt[0]!, 'the work ran before the response finished');
    } finally {
      await server.close();
    }
  });

  it('runs at once outside a request', () => {
    let ran = false;
    afterCurrentRequest(() => {
      ran = true;
    }, 60_000);
    assert.equal(ran, true);
  });

  it('waits no longer than its limit for a request that takes long to answer', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let waitedMs: number | undefined;
    const server = await serverWith(async () => {
      const askedAt = performance.now();
      afterCurrentRequest(() => {
        waitedMs = performance.now() - askedAt;
      }, 100);
      await held;
      return 'late';
    });
    try {
      const answered = fetch(server.base).then((response) => response.text());
      await waitUntil(() => waitedMs !== undefined, 'the work at its limit');
      assert.ok(waitedMs! >= 95, `ran ${String(waitedMs)} ms after it was asked for`);
      assert.equal(server.finishedAt.length, 0, 'the response finished before the limit');
      release();
      assert.equal(await answered, 'late');
    } finally {
      release();
      await server.close();
    }
  });
});
