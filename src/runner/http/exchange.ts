/**
 * One request and its answer on node:http / node:https, for the runner's Transport: keep-alive
 * agents, the connect timeout, the inactivity timeout (waiting for headers, between body
 * chunks), the caller's AbortSignal, and request bodies (a string or Buffer with its
 * Content-Length, a Readable streamed chunked).
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { pipeline, type Readable } from 'node:stream';

export type RequestBody = string | Buffer | Readable;

export interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: RequestBody;
}

export interface Agents {
  http: http.Agent;
  https: https.Agent;
}

export interface ExchangeOptions {
  agents: Agents;
  signal: AbortSignal;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

/** A timeout of ours; `code` makes describeNetworkError name it. */
export class HttpTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

export const isStream = (body: RequestBody | undefined): body is Readable => typeof body === 'object' && !Buffer.isBuffer(body);

/** Without a `Keep-Alive: timeout=N` hint, a free socket is closed after 4 s (undici's default). */
const FREE_SOCKET_MS = 4_000;
const keepAliveHints = new WeakMap<Socket, number>();

/**
 * Keep-alive agents whose free sockets close a second before the server's announced
 * `Keep-Alive: timeout` (node's agent only honours the hint when it has a timeout of its own,
 * and that timeout would also apply while connecting).
 */
export function keepAliveAgents(tls: https.AgentOptions): Agents {
  const agents: Agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true, ...tls }) };
  for (const agent of [agents.http, agents.https]) {
    agent.on('free', (socket: Socket) => {
      if (!Object.values(agent.freeSockets).some((sockets) => sockets?.includes(socket))) return;
      const hint = keepAliveHints.get(socket);
      socket.setTimeout(hint === undefined ? FREE_SOCKET_MS : Math.max(500, hint - 1_000));
    });
  }
  return agents;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export function exchange(hop: Hop, options: ExchangeOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const secure = hop.url.protocol === 'https:';
    const headers = { ...hop.headers };
    if (hop.body !== undefined && !isStream(hop.body)) headers['content-length'] = String(Buffer.byteLength(hop.body));
    const request = (secure ? https : http).request(hop.url, { method: hop.method, headers, agent: secure ? options.agents.https : options.agents.http });
    let response: IncomingMessage | undefined;
    const fail = (error: Error) => {
      if (response && !response.complete) response.destroy(error);
      request.destroy(error);
      reject(error);
    };
    const onAbort = () => fail(options.signal.reason instanceof Error ? options.signal.reason : new Error(`aborted: ${String(options.signal.reason)}`));
    options.signal.addEventListener('abort', onAbort, { once: true });
    request.once('close', () => options.signal.removeEventListener('abort', onAbort));
    request.on('error', fail);

    // A reused keep-alive socket is connected already and skips this.
    request.once('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(() => fail(new HttpTimeoutError(`connect timeout (${seconds(options.connectTimeoutMs)})`)), options.connectTimeoutMs);
      const clear = () => clearTimeout(timer);
      socket.once(secure ? 'secureConnect' : 'connect', clear);
      socket.once('close', clear);
    });
    // The socket's own idle timer (armed once connected): no byte either way while waiting for the headers or the next body chunk.
    request.setTimeout(options.idleTimeoutMs, () => fail(new HttpTimeoutError(`no data for ${seconds(options.idleTimeoutMs)} (inactivity timeout)`)));

    request.once('response', (answer) => {
      response = answer;
      const hint = /^\s*timeout=(\d+)/i.exec(String(answer.headers['keep-alive'] ?? ''))?.[1];
      if (hint !== undefined) keepAliveHints.set(answer.socket, Number(hint) * 1_000);
      resolve(answer);
    });

    if (options.signal.aborted) {
      onAbort();
    } else if (isStream(hop.body)) {
      // The body's own error, before pipeline() aborts the request with a bare "socket hang up".
      hop.body.once('error', fail);
      pipeline(hop.body, request, () => undefined);
    } else {
      request.end(hop.body);
    }
  });
}
