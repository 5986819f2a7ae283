import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorStatus } from '../../../src/coordinator/http/error-responses.ts';
import { ClientGoneError, GitWorkQueue, GitWorkRefusedError, defaultWorkSlots } from '../../../src/storage/git/work-queue.ts';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('heavy git work queue', () => {
  it('defaults to twice the CPU count, at least 2 slots', () => {
    assert.ok(defaultWorkSlots() >= 2);
    assert.equal(new GitWorkQueue().slots, defaultWorkSlots());
  });

  it('never runs more than its slots at once and hands a released slot to the next waiter', async () => {
    const queue = new GitWorkQueue({ slots: 3 });
    let running = 0;
    let peak = 0;
    const work = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    };
    await Promise.all(Array.from({ length: 20 }, (_, index) => queue.run({ key: `k${index % 4}` }, work)));
    assert.equal(peak, 3);
    assert.equal(queue.running, 0);
    assert.equal(queue.queued, 0);
  });

  it('serves waiting keys round-robin so fifty pieces of one requester cannot starve another', async () => {
    const queue = new GitWorkQueue({ slots: 1 });
    const order: string[] = [];
    const first = await queue.acquire({ key: 'busy' });
    const take = (key: string) => queue.acquire({ key }).then((slot) => {
      order.push(key);
      slot.release();
    });
    const waiting = Array.from({ length: 50 }, () => take('busy'));
    waiting.push(take('quiet'), take('other'), take('quiet'));
    assert.equal(queue.queued, 53);
    first.release();
    await Promise.all(waiting);
    // Keys take turns in the order they started waiting: busy's 50 pieces do not go first.
    assert.deepEqual(order.slice(0, 6), ['busy', 'quiet', 'other', 'busy', 'quiet', 'busy']);
    assert.deepEqual(order.slice(6), Array.from({ length: 47 }, () => 'busy'));
  });

  it('drops waiting work whose client went away, and refuses work of a client already gone', async () => {
    const queue = new GitWorkQueue({ slots: 1 });
    const holder = await queue.acquire({ key: 'a' });
    const controller = new AbortController();
    const abandoned = queue.acquire({ key: 'b', signal: controller.signal });
    const next = queue.acquire({ key: 'c' });
    assert.equal(queue.queued, 2);
    controller.abort();
    await assert.rejects(abandoned, ClientGoneError);
    assert.equal(queue.queued, 1);
    holder.release();
    (await next).release();
    await assert.rejects(queue.acquire({ key: 'd', signal: controller.signal }), ClientGoneError);
    assert.equal(queue.running, 0);
  });

  it('bounds what one requester and everyone may have waiting', async () => {
    const queue = new GitWorkQueue({ slots: 1, maxQueuedPerKey: 2, maxQueued: 3 });
    const holder = await queue.acquire({ key: 'a' });
    const waiting = [queue.acquire({ key: 'a' }), queue.acquire({ key: 'a' })];
    await assert.rejects(queue.acquire({ key: 'a' }), (error: unknown) => error instanceof GitWorkRefusedError && errorStatus(error) === 429);
    waiting.push(queue.acquire({ key: 'b' }));
    await assert.rejects(queue.acquire({ key: 'c' }), (error: unknown) => error instanceof GitWorkRefusedError && errorStatus(error) === 503);
    holder.release();
    await Promise.all(waiting.map((promise) => promise.then((slot) => slot.release())));
    assert.equal(queue.running, 0);
  });

  it('releases a slot once however often release is called', async () => {
    const queue = new GitWorkQueue({ slots: 1 });
    const slot = await queue.acquire({ key: 'a' });
    const waiters = [queue.acquire({ key: 'b' }), queue.acquire({ key: 'c' })];
    slot.release();
    slot.release();
    await settle();
    assert.equal(queue.running, 1);
    assert.equal(queue.queued, 1);
    (await waiters[0]!).release();
    (await waiters[1]!).release();
  });
});
