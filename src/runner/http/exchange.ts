/**
 * One request and its answer on undici, for the runner's Transport: a pooled keep-alive
 * Agent (free sockets closed a second before the server's `Keep-Alive: timeout`, 4 s without
 * one), the connect timeout (TCP and TLS handshake), the inactivity timeout (waiting for the
 * headers, between body chunks), TLS CA and client certificates, and request bodies (a string
 * or Buffer with its Content-Length, a Readable streamed chunked). Redirects are followed by
 * redirects.ts, not by undici's interceptor, which keeps GitLab's JOB-TOKEN and PRIVATE-TOKEN
 * headers on a redirect to another origin.
 */
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';

export type RequestBody = string | Buffer | Readable;

export interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: RequestBody;
}

/** An answer whose body its receiver consumes (read, piped, or dumped). */
export type Answer = Dispatcher.ResponseData;

export interface AgentOptions {
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** A timeout of ours; `code` makes describeNetworkError name it. */
export class HttpTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

export const isStream = (body: RequestBody | undefined): body is Readable => typeof body === 'object' && !Buffer.isBuffer(body);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** undici's timeout errors in the runner's words, for the request and for its body stream alike. */
function timeoutMessages(options: AgentOptions): Dispatcher.DispatcherComposeInterceptor {
  const reworded = (error: Error): Error => {
    switch ((error as { code?: unknown }).code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new HttpTimeoutError(`connect timeout (${seconds(options.connectTimeoutMs)})`, { cause: error });
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        return new HttpTimeoutError(`no data for ${seconds(options.idleTimeoutMs)} (inactivity timeout)`, { cause: error });
      default:
        return error;
    }
  };
  return (dispatch) => (dispatchOptions, handler) =>
    dispatch(dispatchOptions, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
      onResponseStart: (controller, statusCode, headers, statusMessage) => handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError: (controller, error) => handler.onResponseError?.(controller, reworded(error)),
    });
}

export interface Pool {
  /** What requests go through. */
  dispatcher: Dispatcher;
  /** Closes every connection, aborting requests in flight. */
  destroy(): Promise<void>;
}

/** The runner's connection pool to its coordinator (and wherever redirects lead). */
export function connectionPool(options: AgentOptions): Pool {
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs, ca: options.ca, cert: options.cert, key: options.key },
    headersTimeout: options.idleTimeoutMs,
    bodyTimeout: options.idleTimeoutMs,
    // undici's default keeps a free socket until 2 s before the server's announced timeout.
    keepAliveTimeoutThreshold: 1_000,
  });
  return { dispatcher: agent.compose(timeoutMessages(options)), destroy: () => agent.destroy() };
}

export function exchange(hop: Hop, dispatcher: Dispatcher, signal: AbortSignal): Promise<Answer> {
  return request(hop.url, { method: hop.method as Dispatcher.HttpMethod, headers: hop.headers, body: hop.body, dispatcher, signal });
}
