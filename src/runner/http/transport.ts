/**
 * The one HTTP client of the runner (undici; see exchange.ts and redirects.ts).
 * Reference §1: the base URL (`<url>` minus a trailing `/` or `/ci`, plus `/api/v4/`), the
 * User-Agent on requests with a body, JSON bodies and the Content-Type check of decoded
 * answers, `X-GitLab-Last-Update` kept from every JSON answer, the exponential back-off after
 * any 4xx/5xx (keyed by method and URI), 429 with `RateLimit-ResetTime`, and the
 * dial/header/request timeouts.
 */
import { readFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { connectionPool, exchange, isStream, type Pool, type RequestBody } from './exchange.ts';
import { followRedirects } from './redirects.ts';

export interface TransportOptions {
  url: string;
  userAgent: string;
  tlsCaFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Back-off bounds (gitlab-runner: 100 ms to 60 s); tests shorten them. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** Upper bound of one 429 wait (tests). */
  rateLimitMaxWaitMs?: number;
  /** Connect timeout (30 s). */
  connectTimeoutMs?: number;
  /** How long to wait for the answer's headers or its next body chunk (10 min, undici's headersTimeout/bodyTimeout). */
  idleTimeoutMs?: number;
  /** Told about every answer (its status) and every request that got none (-1), for metrics. Requests the caller aborted are not reported. */
  onResponse?: (method: string, path: string, status: number) => void;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body text (small answers only; downloads use `stream`). */
  text: string;
}

/** An answer whose body the caller consumes (`readText`, `discard`, or a stream pipeline). */
export interface RawResponse {
  statusCode: number;
  headers: HttpResponse['headers'];
  body: Readable;
}

type RequestInit = { headers: Record<string, string>; body?: RequestBody; query?: Record<string, string | undefined>; signal?: AbortSignal };

export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
  }
}

/** `https://gitlab.example.com/ci/` → `https://gitlab.example.com/api/v4/`. Throws for other schemes. */
export function apiBase(url: string): string {
  let trimmed = url.trim().replace(/\/+$/, '');
  if (trimmed.endsWith('/ci')) trimmed = trimmed.slice(0, -3).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new TransportError(`invalid coordinator URL "${url}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TransportError(`coordinator URL "${url}" must use http or https`);
  return `${trimmed}/api/v4/`;
}

export function header(response: { headers: HttpResponse['headers'] }, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export function isJson(response: { headers: HttpResponse['headers'] }): boolean {
  return (header(response, 'content-type') ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
}

export async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a body to its end without keeping it (so its keep-alive socket is reused); never throws. */
export async function discard(body: Readable): Promise<void> {
  if (body.readableEnded || body.destroyed) return;
  body.resume();
  await finished(body).catch(() => undefined);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly base: string;
  /** The last `X-GitLab-Last-Update` any JSON answer carried. */
  lastUpdate: string | undefined;
  private readonly pool: Pool;
  private readonly backoffs = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: TransportOptions) {
    this.base = apiBase(options.url);
    const read = (file?: string) => (file ? readFileSync(file) : undefined);
    try {
      this.pool = connectionPool({
        connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
        idleTimeoutMs: options.idleTimeoutMs ?? 10 * 60_000,
        ca: read(options.tlsCaFile),
        cert: read(options.tlsCertFile),
        key: read(options.tlsKeyFile),
      });
    } catch (error) {
      throw new TransportError(`cannot set up TLS: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  get userAgent(): string {
    return this.options.userAgent;
  }

  url(path: string, query?: Record<string, string | undefined>): string {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(key, value);
    return url.toString();
  }

  /** A JSON request; `expectBody` adds `Accept: application/json`. */
  async json(method: 'POST' | 'PUT' | 'DELETE', path: string, body: unknown, options: { expectBody?: boolean; signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...options.headers, 'content-type': 'application/json', 'user-agent': this.options.userAgent };
    if (options.expectBody) headers.accept = 'application/json';
    const response = await this.send(method, path, { headers, body: JSON.stringify(body), signal: options.signal });
    const lastUpdate = header(response, 'x-gitlab-last-update');
    if (lastUpdate !== undefined && lastUpdate !== '') this.lastUpdate = lastUpdate;
    return response;
  }

  /** Any request whose answer is small; retries 429 with RateLimit-ResetTime (at most 5 times). */
  async send(method: string, path: string, init: RequestInit): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const { statusCode, headers, body } = await this.raw(method, path, init);
      const text = await readText(body).catch(() => '');
      const response: HttpResponse = { status: statusCode, headers, text };
      if (statusCode === 429 && attempt < 5 && !isStream(init.body)) {
        const reset = header(response, 'ratelimit-resettime');
        if (reset !== undefined) {
          const at = Date.parse(reset);
          const wait = Number.isNaN(at) ? 60_000 : Math.max(0, at - Date.now());
          await sleep(Math.min(wait, this.options.rateLimitMaxWaitMs ?? 60 * 60_000));
          continue;
        }
      }
      await this.afterStatus(method, path, statusCode);
      return response;
    }
  }

  /** The answer with its body unread, for streaming downloads (the caller consumes the body). Redirects are followed unless the request body is a stream. */
  async raw(method: string, path: string, init: RequestInit): Promise<RawResponse> {
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(60 * 60_000)]) : AbortSignal.timeout(60 * 60_000);
    const url = this.url(path, init.query);
    try {
      if (this.closed) throw new Error('the transport is closed');
      const { statusCode, headers, body } = await followRedirects({ url: new URL(url), method, headers: init.headers, body: init.body }, (hop) => exchange(hop, this.pool.dispatcher, signal));
      this.options.onResponse?.(method, path, statusCode);
      return { statusCode, headers, body };
    } catch (error) {
      if (!init.signal?.aborted) this.options.onResponse?.(method, path, -1);
      throw new TransportError(`${method} ${url}: ${describeNetworkError(error)}`, { cause: error });
    }
  }

  /** gitlab-runner sleeps after a 4xx/5xx answer, longer each time for the same request; a success resets it. */
  async afterStatus(method: string, path: string, status: number): Promise<void> {
    const key = `${method} ${path}`;
    if (status < 400) {
      this.backoffs.delete(key);
      return;
    }
    const min = this.options.backoffMinMs ?? 100;
    const max = this.options.backoffMaxMs ?? 60_000;
    const previous = this.backoffs.get(key);
    const next = previous === undefined ? min : Math.min(max, previous * 2);
    this.backoffs.set(key, next);
    const jittered = next / 2 + Math.random() * (next / 2);
    await sleep(Math.min(max, jittered));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.destroy().catch(() => undefined);
  }
}

export function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const own = (error as { code?: unknown }).code;
  const code = typeof own === 'string' ? own : typeof cause?.code === 'string' ? cause.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
