/**
 * When `runner exec`'s view of its pipeline may have changed: the local coordinator committed
 * a pipeline event (a job queued, started, finished; a stage or the pipeline moved), or it
 * answered a request (the runner's trace appends and job updates all arrive over loopback
 * HTTP). The follower reads the stores again then, instead of every 100 ms whether anything
 * happened or not.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PipelineProcessing } from '../coordinator/services/ci/pipelines/processing.ts';

export class ChangeSignal {
  private changed = false;
  private wake: (() => void) | undefined;
  private readonly stops: Array<() => void> = [];

  constructor(sources: { processing: Pick<PipelineProcessing, 'onCommitted'>; server: Server }) {
    this.stops.push(sources.processing.onCommitted(() => this.notify()));
    const onRequest = (_request: IncomingMessage, response: ServerResponse): void => {
      response.once('finish', () => this.notify());
    };
    sources.server.on('request', onRequest);
    this.stops.push(() => sources.server.off('request', onRequest));
  }

  notify(): void {
    this.changed = true;
    this.wake?.();
  }

  /**
   * Resolves once something changed since the last call (at once if it already has), or after
   * `fallbackMs` (a change nothing reported, such as a timer's), but not before `minimumMs`:
   * a burst of requests is one read of the stores.
   */
  async next(options: { minimumMs: number; fallbackMs: number; signal?: AbortSignal }): Promise<void> {
    const started = Date.now();
    if (!this.changed) {
      const abort = new AbortController();
      const stop = (): void => abort.abort();
      options.signal?.addEventListener('abort', stop, { once: true });
      this.wake = stop;
      try {
        await sleep(options.fallbackMs, undefined, { signal: abort.signal });
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      } finally {
        this.wake = undefined;
        options.signal?.removeEventListener('abort', stop);
      }
      options.signal?.throwIfAborted();
    }
    const wait = options.minimumMs - (Date.now() - started);
    if (wait > 0) await sleep(wait, undefined, { signal: options.signal });
    this.changed = false;
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.wake?.();
  }
}
