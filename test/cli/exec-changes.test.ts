/**
 * runner exec's follower wakes on what the local coordinator reports (src/exec/changes.ts):
 * a committed pipeline event or an answered request. The fallback is an hour here, so a wait
 * that ends at all ended because of the report.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { ProcessedEvent } from '../../src/coordinator/services/ci/pipelines/processing.ts';
import { ChangeSignal } from '../../src/exec/changes.ts';
import { within } from '../helpers/bounded.ts';

const HOUR = 3_600_000;

function fakeProcessing(): { onCommitted(listener: (processed: ProcessedEvent) => void): () => void; commit(status?: string): void; listeners: number } {
  const listeners = new Set<(processed: ProcessedEvent) => void>();
  return {
    onCommitted(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    commit(status = 'running') {
      for (const listener of listeners) listener({ pipeline: { status } } as ProcessedEvent);
    },
    get listeners() {
      return listeners.size;
    },
  };
}

describe('runner exec change signal', () => {
  it('wakes on a committed pipeline event, and at once for one reported before the wait', async () => {
    const processing = fakeProcessing();
    const server = createServer();
    const changes = new ChangeSignal({ processing, server });
    const waiting = changes.next({ minimumMs: 0, fallbackMs: HOUR });
    processing.commit();
    await within(waiting, 30_000, 'the wait after a commit');
    processing.commit();
    await within(changes.next({ minimumMs: 0, fallbackMs: HOUR }), 30_000, 'the wait after an earlier commit');
    changes.close();
    assert.equal(processing.listeners, 0, 'close removes its listener');
  });

  it('wakes when the server has answered a request, and stops listening once closed', async () => {
    const processing = fakeProcessing();
    const server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const changes = new ChangeSignal({ processing, server });
      const waiting = changes.next({ minimumMs: 0, fallbackMs: HOUR });
      const { port } = server.address() as AddressInfo;
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'ok');
      await within(waiting, 30_000, 'the wait after a request');
      changes.close();
      assert.equal(server.listenerCount('request'), 1, 'only the server\'s own handler is left');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('cuts the minimum interval short for an event that settles the pipeline, not for others', async () => {
    const processing = fakeProcessing();
    const settles = (processed: ProcessedEvent): boolean => processed.pipeline.status === 'success';
    const changes = new ChangeSignal({ processing, server: createServer(), settles });
    const waiting = changes.next({ minimumMs: HOUR, fallbackMs: HOUR });
    let ended = false;
    void waiting.then(() => (ended = true), () => (ended = true));
    processing.commit('running');
    // Other events past the wake-up: the hour's minimum still holds.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ended, false, 'an ordinary event waits for the minimum interval');
    processing.commit('success');
    await within(waiting, 30_000, 'the wait after the pipeline settled');
    // Reported before the wait: no minimum either.
    processing.commit('success');
    await within(changes.next({ minimumMs: HOUR, fallbackMs: HOUR }), 30_000, 'the wait after an earlier settling event');
    changes.close();
  });

  it('ends a wait when its signal aborts', async () => {
    const changes = new ChangeSignal({ processing: fakeProcessing(), server: createServer() });
    const abort = new AbortController();
    const waiting = changes.next({ minimumMs: 0, fallbackMs: HOUR, signal: abort.signal });
    abort.abort();
    await assert.rejects(within(waiting, 30_000, 'the aborted wait'), { name: 'AbortError' });
    changes.close();
  });
});
