/**
 * Cross-origin requests, as GitLab's Rack::Cors rules allow them: a script on any origin may call
 * the API (`/api/*`) with a token, and read the OIDC discovery documents. The API authenticates
 * only by token (never by the web session's cookie), so any origin is answered `*`, without
 * credentials; the instance's own origin is echoed with credentials allowed, as GitLab does.
 * Git over HTTP, uploads and web pages stay same-origin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { coordinatorUrl } from './mount-path.ts';

/** Headers a script may read from an API answer: pagination, the file API's metadata, the request id. */
const EXPOSED_HEADERS = [
  'Link', 'X-Total', 'X-Total-Pages', 'X-Per-Page', 'X-Page', 'X-Next-Page', 'X-Prev-Page', 'X-Gitlab-Blob-Id',
  'X-Gitlab-Commit-Id', 'X-Gitlab-Content-Sha256', 'X-Gitlab-Encoding', 'X-Gitlab-File-Name', 'X-Gitlab-File-Path',
  'X-Gitlab-Last-Commit-Id', 'X-Gitlab-Ref', 'X-Gitlab-Size', 'X-Request-Id', 'ETag',
].join(', ');

/** How long a browser may keep a preflight's answer (rack-cors' default). */
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

interface CrossOriginRule {
  methods: string;
  /** Whether the request's own headers are all allowed (a preflight's list is echoed). */
  anyHeader: boolean;
  exposed?: string;
}

const API_RULE: CrossOriginRule = { methods: 'GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS', anyHeader: true, exposed: EXPOSED_HEADERS };
const DISCOVERY_RULE: CrossOriginRule = { methods: 'GET, HEAD', anyHeader: false };
const DISCOVERY_PATHS = new Set(['/.well-known/openid-configuration', '/oauth/discovery/keys']);

function ruleFor(request: FastifyRequest, discovery: boolean): CrossOriginRule | undefined {
  const url = coordinatorUrl(request);
  const queryAt = url.indexOf('?');
  const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
  if (pathname.startsWith('/api/')) return API_RULE;
  return discovery && DISCOVERY_PATHS.has(pathname.replace(/\/+$/, '')) ? DISCOVERY_RULE : undefined;
}

function allowOrigin(reply: FastifyReply, origin: string, ownOrigin: string, rule: CrossOriginRule): void {
  const own = rule === API_RULE && origin === ownOrigin;
  reply.header('access-control-allow-origin', own ? origin : '*');
  if (own) reply.header('access-control-allow-credentials', 'true');
  reply.header('access-control-allow-methods', rule.methods);
  reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  reply.header('vary', 'Origin');
}

/**
 * Adds the cross-origin headers to every answer under the API and the discovery paths whose
 * request names an `Origin`, and answers their preflights (`OPTIONS` with
 * `Access-Control-Request-Method`) before sign-in and throttles, as the browser sends no token
 * with them. A plain `OPTIONS` finds no route, as before.
 */
export function allowCrossOriginRequests(instance: FastifyInstance, externalUrl: string, options: { discovery: boolean }): void {
  const ownOrigin = new URL(externalUrl).origin;
  instance.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    const rule = typeof origin === 'string' && origin !== '' ? ruleFor(request, options.discovery) : undefined;
    if (rule && typeof origin === 'string') {
      allowOrigin(reply, origin, ownOrigin, rule);
      if (rule.exposed) reply.header('access-control-expose-headers', rule.exposed);
    }
    done();
  });
  const preflight = async (request: FastifyRequest, reply: FastifyReply) => {
    const requested = request.headers['access-control-request-method'];
    const origin = request.headers.origin;
    const rule = ruleFor(request, options.discovery);
    if (typeof origin !== 'string' || origin === '' || typeof requested !== 'string' || rule === undefined) return reply.callNotFound();
    if (!rule.methods.split(', ').includes(requested.toUpperCase())) {
      // rack-cors answers a refused preflight without the allowing headers: the browser stops there.
      for (const name of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-max-age']) reply.removeHeader(name);
      return reply.code(200).type('text/plain').send('');
    }
    const askedHeaders = request.headers['access-control-request-headers'];
    if (rule.anyHeader && typeof askedHeaders === 'string' && askedHeaders !== '') reply.header('access-control-allow-headers', askedHeaders);
    reply.removeHeader('access-control-expose-headers');
    return reply.code(200).type('text/plain').send('');
  };
  for (const url of ['/api/*', ...(options.discovery ? DISCOVERY_PATHS : [])]) instance.options(url, { schema: { hide: true } }, preflight);
}
