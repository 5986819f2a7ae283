/**
 * A small HTTP server playing GitLab's side of the runner protocol as the reference's
 * appendix captured it (it stands in for a real GitLab, not for our coordinator): every
 * request is recorded; answers can be scripted per test.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JobPayload } from '../../src/protocol/job-payload.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeJob {
  payload: JobPayload;
  trace: Buffer;
  state: 'pending' | 'running' | 'success' | 'failed' | 'canceled';
  failureReason?: string;
  exitCode?: number;
  updates: Record<string, unknown>[];
  artifacts: { query: URLSearchParams; fileName: string; content: Buffer; headers: IncomingMessage['headers'] }[];
}

type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer };
/** Return an answer (or one to come: a held request) to take over a request, or undefined to let the default logic answer. */
export type Interceptor = (request: RecordedRequest) => Answer | Promise<Answer> | undefined;

export class FakeGitLab {
  readonly requests: RecordedRequest[] = [];
  readonly jobs = new Map<number, FakeJob>();
  readonly queue: number[] = [];
  registrationToken = 'regtok';
  runnerTokens = new Set<string>();
  lastUpdate = 'lu-1';
  traceUpdateInterval: number | null = null;
  artifactsForDownload = new Map<number, { token: string; zip: Buffer }>();
  intercept: Interceptor | null = null;
  private server: Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.handle(request, Buffer.concat(chunks), response));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  enqueue(payload: JobPayload): FakeJob {
    const job: FakeJob = { payload, trace: Buffer.alloc(0), state: 'pending', updates: [], artifacts: [] };
    this.jobs.set(payload.id, job);
    this.queue.push(payload.id);
    this.lastUpdate = `lu-${Date.now()}`;
    return job;
  }

  cancel(id: number): void {
    const job = this.jobs.get(id);
    if (job) job.state = 'canceled';
  }

  requestsTo(method: string, pathPattern: RegExp): RecordedRequest[] {
    return this.requests.filter((request) => request.method === method && pathPattern.test(request.path));
  }

  private handle(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://x');
    const recorded: RecordedRequest = { method: request.method ?? '', url: request.url ?? '', path: url.pathname, query: url.searchParams, headers: request.headers, body };
    this.requests.push(recorded);
    void Promise.resolve(this.intercept?.(recorded) ?? this.route(recorded)).then((answer) => {
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    });
  }

  private json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
    return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
  }

  private route(request: RecordedRequest): Answer {
    const { method, path } = request;
    const parsed = (): Record<string, unknown> => (request.body.length ? (JSON.parse(request.body.toString('utf8')) as Record<string, unknown>) : {});
    if (method === 'POST' && path === '/api/v4/runners') {
      if (parsed().token !== this.registrationToken) return this.json(403, { message: '403 Forbidden' });
      const token = `runnertok${this.runnerTokens.size + 1}23456`;
      this.runnerTokens.add(token);
      return this.json(201, { id: this.runnerTokens.size, token });
    }
    if (method === 'POST' && path === '/api/v4/runners/verify') {
      return this.runnerTokens.has(String(parsed().token)) ? { status: 200, body: '200' } : this.json(403, { message: '403 Forbidden' });
    }
    if (method === 'DELETE' && path === '/api/v4/runners') {
      const token = String(parsed().token);
      if (!this.runnerTokens.has(token)) return this.json(403, { message: '403 Forbidden' });
      this.runnerTokens.delete(token);
      return { status: 204 };
    }
    if (method === 'POST' && path === '/api/v4/jobs/request') {
      const body = parsed();
      if (!this.runnerTokens.has(String(body.token))) return this.json(403, { message: '403 Forbidden' });
      const id = this.queue.shift();
      if (id === undefined) return { status: 204, headers: { 'x-gitlab-last-update': this.lastUpdate } };
      const job = this.jobs.get(id) as FakeJob;
      job.state = 'running';
      return this.json(201, job.payload);
    }
    const jobMatch = /^\/api\/v4\/jobs\/(\d+)(\/trace|\/artifacts)?$/.exec(path);
    const job = jobMatch ? this.jobs.get(Number(jobMatch[1])) : undefined;
    if (!jobMatch) return this.json(404, { message: '404 Not found' });
    if (method === 'GET' && jobMatch[2] === '/artifacts') {
      const stored = this.artifactsForDownload.get(Number(jobMatch[1]));
      if (!stored) return this.json(404, { message: '404 Not found' });
      if (request.headers['job-token'] !== stored.token) return this.json(403, { message: '403 Forbidden' });
      return { status: 200, headers: { 'content-type': 'application/zip' }, body: stored.zip };
    }
    if (!job) return this.json(403, { message: '403 Forbidden' });
    const token = jobMatch[2] ? request.headers['job-token'] : parsed().token;
    if (token !== job.payload.token) return this.json(403, { message: '403 Forbidden' });
    if (job.state !== 'running') return { ...this.json(403, { message: '403 Forbidden' }), headers: { 'content-type': 'application/json', 'job-status': job.state } };
    if (method === 'PATCH' && jobMatch[2] === '/trace') {
      const range = /^(\d+)-/.exec(String(request.headers['content-range'] ?? ''));
      if (!range) return { status: 400 };
      if (Number(range[1]) !== job.trace.length) return { status: 416, headers: { range: `0-${job.trace.length}` } };
      job.trace = Buffer.concat([job.trace, request.body]);
      const headers: Record<string, string> = { 'job-status': 'running', range: `0-${job.trace.length}` };
      if (this.traceUpdateInterval !== null) headers['x-gitlab-trace-update-interval'] = String(this.traceUpdateInterval);
      return { status: 202, headers };
    }
    if (method === 'PUT' && !jobMatch[2]) {
      const body = parsed();
      job.updates.push(body);
      if (body.state === 'running') return { status: 200, body: '200' };
      if (body.state !== 'success' && body.state !== 'failed') return { status: 400 };
      job.state = body.state;
      if (typeof body.failure_reason === 'string') job.failureReason = body.failure_reason;
      if (typeof body.exit_code === 'number') job.exitCode = body.exit_code;
      return { status: 200, body: '200' };
    }
    if (method === 'POST' && jobMatch[2] === '/artifacts') {
      const part = parseSingleFilePart(request);
      if (!part) return this.json(400, { message: '400 Bad request - file is missing' });
      job.artifacts.push({ query: request.query, fileName: part.fileName, content: part.content, headers: request.headers });
      return { status: 201, body: '201' };
    }
    return this.json(404, { message: '404 Not found' });
  }
}

/** The one multipart part named `file` (anything else: null, as Workhorse would refuse it). */
export function parseSingleFilePart(request: RecordedRequest): { fileName: string; content: Buffer } | null {
  const boundary = /boundary=([^;]+)/.exec(String(request.headers['content-type'] ?? ''))?.[1];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Buffer[] = [];
  let at = request.body.indexOf(delimiter);
  while (at >= 0) {
    const next = request.body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    parts.push(request.body.subarray(at + delimiter.length + 2, next - 2));
    at = next;
  }
  if (parts.length !== 1) return null;
  const split = parts[0].indexOf('\r\n\r\n');
  const head = parts[0].subarray(0, split).toString('utf8');
  const name = /name="([^"]*)"/.exec(head)?.[1];
  const fileName = /filename="([^"]*)"/.exec(head)?.[1];
  if (name !== 'file' || fileName === undefined) return null;
  return { fileName, content: parts[0].subarray(split + 4) };
}
