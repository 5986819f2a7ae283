import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { GantryError } from '../../shared/errors.ts';

declare module 'fastify' {
  interface FastifyReply {
    /** The coordinator's RequestLifetimes (see requestSignal). */
    readonly gantryLifetimes: RequestLifetimes;
  }
}

/** One request whose work listens to a signal or whose answer streams. */
interface Tracked {
  controller: AbortController;
  response: ServerResponse;
}

/**
 * The lifetime of the requests whose work can be long (walks of archives, git processes,
 * uploads, long polls) or whose answers stream: each gets a signal that aborts when its client
 * goes away before the answer is complete, and when the coordinator closes. Closing aborts
 * them all, ends the answers already streaming at once, and gives the others `graceMs` to
 * answer before their connections are closed. Requests are tracked only once they ask for
 * their signal or stream an answer: the others cost nothing here.
 */
export class RequestLifetimes {
  private readonly tracked = new Map<ServerResponse, Tracked>();
  private closing = false;
  private drained: (() => void) | undefined;

  /** The request's signal: aborted with GANTRY_E_CLIENT_GONE or GANTRY_E_SHUTTING_DOWN. */
  signalOf(reply: FastifyReply): AbortSignal {
    return this.entryOf(reply.raw).controller.signal;
  }

  /** Follows a response (an answer about to stream) so closing ends it. */
  track(response: ServerResponse): void {
    this.entryOf(response);
  }

  private entryOf(response: ServerResponse): Tracked {
    const known = this.tracked.get(response);
    if (known) return known;
    const entry: Tracked = { controller: new AbortController(), response };
    // Answered already (and its close event may be past): nothing left to stop.
    if (response.writableFinished) return entry;
    if (this.closing) {
      entry.controller.abort(shuttingDown());
    } else if (response.socket?.destroyed === true) {
      // Asked for after the client already hung up, the signal starts aborted.
      entry.controller.abort(new GantryError('GANTRY_E_CLIENT_GONE'));
    } else {
      this.tracked.set(response, entry);
      response.once('close', () => {
        this.tracked.delete(response);
        if (!response.writableFinished) entry.controller.abort(new GantryError('GANTRY_E_CLIENT_GONE'));
        if (this.tracked.size === 0) this.drained?.();
      });
    }
    return entry;
  }

  /**
   * Aborts every tracked request's work, ends the answers already streaming, waits up to
   * `graceMs` for the others to answer and then closes their connections.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const reason = shuttingDown();
    for (const { controller, response } of [...this.tracked.values()]) {
      controller.abort(reason);
      if (response.headersSent) response.destroy();
    }
    if (this.tracked.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
    }
    for (const { response } of [...this.tracked.values()]) response.destroy();
  }
}

function shuttingDown(): GantryError {
  return new GantryError('GANTRY_E_SHUTTING_DOWN');
}

/**
 * The signal of a request's work: aborted when its client goes away before the answer is
 * complete, or when the coordinator closes. Pass it down to storage (git, archives, uploads).
 */
export function requestSignal(reply: FastifyReply): AbortSignal {
  return reply.gantryLifetimes.signalOf(reply);
}

/**
 * Installs the lifetimes on a coordinator's instance: `requestSignal(reply)` in its routes,
 * streamed answers followed, and closing (preClose, before the server waits for requests in
 * flight) stopping them.
 */
export function installRequestLifetimes(instance: FastifyInstance, graceMs: number): RequestLifetimes {
  const lifetimes = new RequestLifetimes();
  instance.decorateReply('gantryLifetimes', { getter: () => lifetimes });
  instance.addHook('onSend', (_request, reply, payload, done) => {
    if (isStream(payload)) lifetimes.track(reply.raw);
    done(null, payload);
  });
  instance.addHook('preClose', () => lifetimes.close(graceMs));
  return lifetimes;
}

function isStream(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && typeof (payload as { pipe?: unknown }).pipe === 'function';
}

/**
 * Closes a standalone app: connections still open once the grace has passed twice over (a
 * request the grace did not end) are closed, so closing always finishes.
 */
export async function closeWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  const backstop = setTimeout(() => app.server.closeAllConnections(), 2 * graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(backstop);
  }
}
