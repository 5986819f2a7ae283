import { Transform, type Readable } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import { coordinatorUrl } from './mount-path.ts';
import { isRunnerProtocolRequest } from './runner-routes.ts';

/** How many bytes of a request body the API reads before answering 413 (or 401, see `anonymous`). */
export interface BodyLimits {
  /** JSON, urlencoded and text bodies of the API. */
  api: number;
  /** Commit creation and repository file writes, whose JSON carries whole file contents. */
  content: number;
  /**
   * Callers without a credential in the headers or query string: a larger body answers 401
   * before it is read. Enough for a form or JSON body carrying `private_token`.
   */
  anonymous: number;
  /** Each file of a multipart upload (uploads are collected on their own path). */
  upload: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_BODY_LIMITS: Readonly<BodyLimits> = {
  api: 1 * MiB,
  content: 64 * MiB,
  anonymous: 64 * 1024,
  upload: 1024 * MiB,
};

/** Routes whose bodies carry file contents (base64 or text in JSON), under the `content` limit. */
const CONTENT_ROUTES: ReadonlyArray<{ methods: readonly string[]; url: string }> = [
  { methods: ['POST'], url: '/api/v4/projects/:id/repository/commits' },
  { methods: ['POST', 'PUT'], url: '/api/v4/projects/:id/repository/files/:file_path' },
];

/** An onRoute hook: content routes get the `content` limit; every other route keeps the server's (`api`). */
export function assignRouteBodyLimit(limits: BodyLimits): (route: RouteOptions) => void {
  return (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const content = CONTENT_ROUTES.some((entry) => entry.url === route.url && methods.some((method) => entry.methods.includes(method)));
    if (content && route.bodyLimit === undefined) route.bodyLimit = limits.content;
  };
}

function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (typeof header !== 'string' || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

function hasBody(request: FastifyRequest): boolean {
  const length = declaredLength(request);
  return length === undefined ? request.headers['transfer-encoding'] !== undefined : length > 0;
}

/**
 * A preParsing hook that keeps anonymous callers from making the API read large bodies: run
 * after the credential in headers and query has been checked, it answers 401 at once when
 * the declared length is over `limits.anonymous` (and for multipart bodies without a length,
 * which are read outside this hook), and stops reading an undeclared body at the limit.
 * Runner-protocol routes sign in from their bodies and are left to their handlers.
 */
export function guardAnonymousBodies(limits: BodyLimits) {
  const guarded = (request: FastifyRequest, payload: Readable): Readable => {
    if (request.credentialUser !== null || !hasBody(request)) return payload;
    if (isRunnerProtocolRequest(request.method, coordinatorUrl(request))) return payload;
    const length = declaredLength(request);
    if (length !== undefined) {
      if (length > limits.anonymous) throw anonymousBodyRefused();
      return payload;
    }
    if (request.isMultipart()) throw anonymousBodyRefused();
    return capped(payload, limits.anonymous);
  };
  // A callback hook: every API request passes here, a promise apiece is wasted on it.
  return (request: FastifyRequest, _reply: FastifyReply, payload: Readable, done: (error: FastifyError | null, payload?: Readable) => void): void => {
    let result: Readable;
    try {
      result = guarded(request, payload);
    } catch (error) {
      done(error as FastifyError);
      return;
    }
    done(null, result);
  };
}

/** Passes `source` through until more than `limit` bytes went by, then fails with 401 and discards the rest. */
function capped(source: Readable, limit: number): Readable {
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen <= limit) {
        callback(null, chunk);
        return;
      }
      source.unpipe(out);
      source.resume();
      callback(anonymousBodyRefused());
    },
  });
  source.on('error', (error) => out.destroy(error));
  return source.pipe(out);
}

/** Bodies up to this size left unread by an early answer are drained so the connection stays usable. */
const DRAIN_LIMIT = 1024 * 1024;

/**
 * An onSend hook: an answer to an anonymous caller sent before its body was read closes the
 * connection when what is left is large or of unknown length, rather than reading it to the
 * end to keep the connection alive. Signed-in callers' unread bodies are drained (Node reads
 * and discards them), so clients that send the whole body before reading still see the 413.
 */
export function closeOnUnreadBodies(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (request.credentialUser === null && !request.raw.complete && hasBody(request)) {
    const length = declaredLength(request);
    if (length === undefined || length > DRAIN_LIMIT) void reply.header('connection', 'close');
  }
  done(null, payload);
}

/** Anonymous callers may not send large bodies: the same refusal as any request that needs sign-in. */
function anonymousBodyRefused(): GantryError {
  return new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED', 'sign in to send a body this large');
}
