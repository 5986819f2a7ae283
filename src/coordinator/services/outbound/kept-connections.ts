import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/** Request options with the checked addresses the connection may go to (the pool's key, see resolvedKeyAgent). */
export type KeyedRequestOptions = https.RequestOptions & { resolvedAddresses?: string };

/** How long a kept connection may stay idle: below the usual servers' own limits (Node's 5 s), and shorter still when a server's `Keep-Alive: timeout` says so. */
export const KEPT_CONNECTION_IDLE_MS = 4_000;

/**
 * Idle connections one pool keeps, over all receivers: past it, the longest idle one is closed.
 * Node's own bound (`maxFreeSockets`) is per receiver, and a receiver here is a name with its
 * resolved addresses, so without this one, many receivers within the idle time would keep a
 * connection each.
 */
export const KEPT_CONNECTIONS_MAX_IDLE = 128;

/** Node's keepSocketAlive answers whether the socket may be kept; its type says void. */
const keptByNode = (answer: unknown): boolean => answer !== false;

/** The idle sockets of one pool, oldest first, closing the oldest past the bound. */
class IdleSockets {
  readonly #idle = new Set<Duplex>();
  readonly #watched = new WeakSet<Duplex>();

  kept(socket: Duplex): void {
    if (!this.#watched.has(socket)) {
      this.#watched.add(socket);
      socket.once('close', () => this.#idle.delete(socket));
    }
    this.#idle.delete(socket);
    this.#idle.add(socket);
    if (this.#idle.size <= KEPT_CONNECTIONS_MAX_IDLE) return;
    const [oldest] = this.#idle;
    if (oldest) {
      this.#idle.delete(oldest);
      // The agent drops a closed socket from its free list itself.
      oldest.destroy();
    }
  }

  reused(socket: Duplex): void {
    this.#idle.delete(socket);
  }
}

/** An agent class, http's or https's (both take their options and answer an http.Agent). */
type AgentClass = new (options: https.AgentOptions) => http.Agent;

/**
 * Keep connections between requests, keyed as Node's agents key them (host, port, TLS
 * options) and by the addresses the name resolved to for the request, so that a connection
 * opened to checked addresses serves only requests whose name resolves to those same addresses.
 */
function resolvedKeyAgent(Base: AgentClass): AgentClass {
  return class ResolvedKeyAgent extends Base {
    readonly #idle = new IdleSockets();

    override getName(options?: KeyedRequestOptions): string {
      return `${super.getName(options)}|${options?.resolvedAddresses ?? ''}`;
    }

    override keepSocketAlive(socket: Duplex): boolean {
      if (!keptByNode(super.keepSocketAlive(socket))) return false;
      this.#idle.kept(socket);
      return true;
    }

    override reuseSocket(socket: Duplex, request: http.ClientRequest): void {
      this.#idle.reused(socket);
      super.reuseSocket(socket, request);
    }
  };
}

const ResolvedKeyHttpAgent = resolvedKeyAgent(http.Agent);
const ResolvedKeyHttpsAgent = resolvedKeyAgent(https.Agent);

/** One pool per protocol, local rule and TLS verification: a connection opened under one never serves a request under another. */
const pools = new Map<string, http.Agent>();

export function keptConnections(secure: boolean, allowLocal: boolean, verifyTls: boolean): http.Agent {
  const key = `${secure ? 'https' : 'http'}|${allowLocal ? 'local' : 'public'}|${verifyTls ? 'verify' : 'no-verify'}`;
  let agent = pools.get(key);
  if (!agent) {
    const settings = { keepAlive: true, timeout: KEPT_CONNECTION_IDLE_MS, maxFreeSockets: 64 };
    agent = secure ? new ResolvedKeyHttpsAgent(settings) : new ResolvedKeyHttpAgent(settings);
    pools.set(key, agent);
  }
  return agent;
}
