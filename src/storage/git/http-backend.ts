import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { gitInvocation } from './run.ts';
import type { ProcessSpawner } from './spawner.ts';

/** One smart-HTTP request handed to `git http-backend` (CGI). */
export interface HttpBackendRequest {
  /** Absolute path of the bare repository. */
  repositoryPath: string;
  method: 'GET' | 'POST';
  /** Path below the repository: `/info/refs`, `/git-upload-pack` or `/git-receive-pack`. */
  pathInfo: string;
  queryString: string;
  contentType?: string;
  contentLength?: string;
  /** Passed as HTTP_CONTENT_ENCODING: http-backend inflates gzip bodies itself. */
  contentEncoding?: string;
  /** Value of the Git-Protocol header (protocol v2 negotiation). */
  gitProtocol?: string;
  /** Set for authenticated requests; http-backend only enables receive-pack when REMOTE_USER is set. */
  remoteUser?: { username: string; name: string; email: string };
  remoteAddr: string;
  /** Request body, streamed into the CGI's stdin. */
  body: Readable | null;
  /** Bytes already read from `body` (e.g. inspected ref commands), written before the rest. */
  bodyHead?: Buffer;
  /** Extra environment (hook policy); names must not collide with CGI variables. */
  environment?: Record<string, string>;
  /** Extra `git -c` style configuration, passed through GIT_CONFIG_COUNT; a list gives a multi-valued key each of its values. */
  config?: Record<string, string | readonly string[]>;
  /**
   * Heavy work (clone, fetch): run under `nice` so the API keeps the CPU, in a process group
   * of its own so that stopping the backend also stops upload-pack and pack-objects.
   */
  heavy?: boolean;
}

export interface HttpBackendResponse {
  status: number;
  headers: Record<string, string>;
  /** The CGI body after its headers; never buffered. */
  body: Readable;
  /** Resolves when the process has exited (hooks included). */
  finished: Promise<{ exitCode: number | null; stderr: string }>;
  /** Stops the backend (the client went away). */
  kill(): void;
}

/** Largest CGI header block we accept before declaring the backend broken. */
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;

/** What `git http-backend` answers an upload-pack POST before upload-pack's own output. */
const UPLOAD_PACK_RESULT_HEADERS: Readonly<Record<string, string>> = {
  expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  pragma: 'no-cache',
  'cache-control': 'no-cache, max-age=0, must-revalidate',
  'content-type': 'application/x-git-upload-pack-result',
};

/**
 * Runs `git http-backend` for one request: body streamed in, CGI headers parsed, body
 * streamed out. The backend is started from the spawner (a fork of its small helper, never of
 * this process); a heavy one is killed with its process group if this process goes away.
 * An upload-pack POST (every clone and fetch, two or three per fetch) runs
 * `git upload-pack --stateless-rpc` directly, as http-backend itself would after writing its
 * fixed headers: one process start less (about 20 ms here), the gzip body inflated by us.
 */
export async function runHttpBackend(request: HttpBackendRequest, spawner: ProcessSpawner): Promise<HttpBackendResponse> {
  const heavy = request.heavy ?? false;
  const direct = request.method === 'POST' && request.pathInfo === '/git-upload-pack';
  const [file, args] = gitInvocation(direct ? ['upload-pack', '--stateless-rpc', request.repositoryPath] : ['http-backend'], heavy);
  const env = direct ? uploadPackEnvironment(request) : backendEnvironment(request);
  const child = await spawner.spawn({ file, args, env, detached: heavy, killWithParent: heavy });

  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
  });
  const stderrClosed = new Promise<void>((resolve) => child.stderr.once('close', () => resolve()));
  // Like the 'close' of a child process: exited, and its output read to the end.
  const finished = Promise.all([child.exited, stderrClosed]).then(([exit]) => ({ exitCode: exit.code, stderr }));

  // The backend may exit before reading the whole body (refused request): ignore EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdout.on('error', () => undefined);
  child.stderr.on('error', () => undefined);
  if (request.bodyHead && request.bodyHead.length > 0) child.stdin.write(request.bodyHead);
  const gzipped = direct && request.contentEncoding?.toLowerCase() === 'gzip';
  const body = request.body && gzipped ? request.body.pipe(createGunzip()) : request.body;
  if (body) {
    request.body?.on('error', () => child.stdin.destroy());
    body.on('error', () => child.stdin.destroy());
    body.pipe(child.stdin);
  } else {
    child.stdin.end();
  }

  // A heavy backend has a process group of its own: upload-pack and pack-objects stop with it.
  const kill = (): void => child.kill('SIGTERM');
  if (direct) {
    const out = new PassThrough();
    child.stdout.pipe(out);
    return { status: 200, headers: { ...UPLOAD_PACK_RESULT_HEADERS }, body: out, finished, kill };
  }
  return readCgiHeaders(child.stdout, finished).then(
    (head) => ({ ...head, finished, kill }),
    (error: unknown) => {
      kill();
      throw error;
    },
  );
}

/** What both `git http-backend` and `git upload-pack` get: a sealed git configuration, the client's protocol, the request's config and environment. */
function gitEnvironment(request: HttpBackendRequest): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  if (request.gitProtocol) environment.GIT_PROTOCOL = request.gitProtocol;
  const config = Object.entries(request.config ?? {}).flatMap(([key, value]) => (typeof value === 'string' ? [[key, value]] : value.map((each) => [key, each])));
  environment.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], index) => {
    environment[`GIT_CONFIG_KEY_${index}`] = key;
    environment[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return environment;
}

function backendEnvironment(request: HttpBackendRequest): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    ...gitEnvironment(request),
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_PROJECT_ROOT: path.dirname(request.repositoryPath),
    PATH_INFO: `/${path.basename(request.repositoryPath)}${request.pathInfo}`,
    REQUEST_METHOD: request.method,
    QUERY_STRING: request.queryString,
    REMOTE_ADDR: request.remoteAddr,
    SERVER_PROTOCOL: 'HTTP/1.1',
    GATEWAY_INTERFACE: 'CGI/1.1',
  };
  if (request.contentType) environment.CONTENT_TYPE = request.contentType;
  if (request.contentLength) environment.CONTENT_LENGTH = request.contentLength;
  if (request.contentEncoding) environment.HTTP_CONTENT_ENCODING = request.contentEncoding;
  if (request.remoteUser) {
    environment.REMOTE_USER = request.remoteUser.username;
    environment.GIT_COMMITTER_NAME = request.remoteUser.name;
    environment.GIT_COMMITTER_EMAIL = request.remoteUser.email;
  }
  return { ...environment, ...request.environment };
}

/** `git upload-pack --stateless-rpc` run directly: no CGI variables, which it does not read. */
function uploadPackEnvironment(request: HttpBackendRequest): NodeJS.ProcessEnv {
  return { ...gitEnvironment(request), ...request.environment };
}

/** Reads the CGI header block off stdout and hands over the rest as a stream. */
function readCgiHeaders(
  stdout: Readable,
  finished: Promise<{ exitCode: number | null; stderr: string }>,
): Promise<Omit<HttpBackendResponse, 'finished' | 'kill'>> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = headerEnd(buffered);
      if (end === null) {
        if (buffered.length > MAX_HEADER_BYTES) fail(new Error('git http-backend sent an oversized header block'));
        return;
      }
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.pause();
      const { status, headers } = parseCgiHeaders(buffered.subarray(0, end.headerLength).toString('latin1'));
      const body = new PassThrough();
      const rest = buffered.subarray(end.bodyStart);
      if (rest.length > 0) body.write(rest);
      stdout.pipe(body);
      resolve({ status, headers, body });
    };
    const onEnd = (): void => {
      void finished.then(({ stderr }) => fail(new Error(`git http-backend ended without headers: ${stderr.trim()}`)));
    };
    const fail = (error: Error): void => {
      stdout.off('data', onData);
      stdout.off('end', onEnd);
      stdout.resume();
      reject(error);
    };
    stdout.on('data', onData);
    stdout.on('end', onEnd);
  });
}

function headerEnd(buffer: Buffer): { headerLength: number; bodyStart: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { headerLength: crlf, bodyStart: crlf + 4 };
  if (lf >= 0) return { headerLength: lf, bodyStart: lf + 2 };
  return null;
}

/** `Status: 404 Not Found` becomes the status code; every other header is passed on. */
export function parseCgiHeaders(block: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') {
      const code = Number.parseInt(value, 10);
      if (code >= 100 && code <= 599) status = code;
    } else {
      headers[name.toLowerCase()] = value;
    }
  }
  return { status, headers };
}
