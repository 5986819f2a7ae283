/**
 * When `runner exec`'s view of its pipeline may have changed: the local coordinator committed
 * a pipeline event (a job queued, started, finished; a stage or the pipeline moved), or it
 * answered a request (the runner's trace appends and job updates all arrive over loopback
 * HTTP). The follower reads the stores again then, instead of every 100 ms whether anything
 * happened or not.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PipelineProcessing, ProcessedEvent } from '../coordinator/services/ci/pipelines/processing.ts';

export class ChangeSignal {
  private changed = false;
  /** A change after which the stores are read at once, the minimum interval cut short. */
  private urgent = false;
  private sleeper: { stop(): void; cutBy(): boolean } | undefined;
  private readonly stops: Array<() => void> = [];

  /** `settles`: the events after which a read cannot wait (the pipeline finished: the run ends with that read). */
  constructor(sources: { processing: Pick<PipelineProcessing, 'onCommitted'>; server: Server; settles?: (processed: ProcessedEvent) => boolean }) {
    this.stops.push(sources.processing.onCommitted((processed) => this.notify(sources.settles?.(processed) ?? false)));
    const onRequest = (_request: IncomingMessage, response: ServerResponse): void => {
      response.once('finish', () => this.notify());
    };
    sources.server.on('request', onRequest);
    this.stops.push(() => sources.server.off('request', onRequest));
  }

  notify(urgent = false): void {
    this.changed = true;
    if (urgent) this.urgent = true;
    if (this.sleeper?.cutBy()) this.sleeper.stop();
  }

  /**
   * Resolves once something changed since the last call (at once if it already has), or after
   * `fallbackMs` (a change nothing reported, such as a timer's), but not before `minimumMs`
   * (a burst of requests is one read of the stores) unless the change was urgent.
   */
  async next(options: { minimumMs: number; fallbackMs: number; signal?: AbortSignal }): Promise<void> {
    const started = Date.now();
    if (!this.changed) await this.sleep(options.fallbackMs, () => true, options.signal);
    const wait = options.minimumMs - (Date.now() - started);
    if (wait > 0 && !this.urgent) await this.sleep(wait, () => this.urgent, options.signal);
    options.signal?.throwIfAborted();
    this.changed = false;
    this.urgent = false;
  }

  /** Sleeps `ms`, less when a change for which `cuts` holds is reported (or `signal` aborts). */
  private async sleep(ms: number, cuts: () => boolean, signal: AbortSignal | undefined): Promise<void> {
    const abort = new AbortController();
    const stop = (): void => abort.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.sleeper = { stop, cutBy: cuts };
    try {
      await sleep(ms, undefined, { signal: abort.signal });
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      this.sleeper = undefined;
      signal?.removeEventListener('abort', stop);
    }
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.sleeper?.stop();
  }
}
