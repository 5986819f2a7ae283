import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GantryError, isGantryError } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { GitAccess, type PersonalTokenResolver } from '../services/repository/git-http/access.ts';
import { classifyGitPath } from '../services/repository/git-http/paths.ts';
import type { BranchPushRules, TagPushRules } from '../services/repository/git-http/push-policy.ts';
import { GitHttpService } from '../services/repository/git-http/service.ts';
import { coordinatorUrl } from './mount-path.ts';
import { errorStatus } from './error-responses.ts';
import { requestSignal } from './request-lifetimes.ts';
import { classifyWebDownload, type WebDownloads } from './web-downloads.ts';

export interface GitHttpOptions {
  personalTokens: PersonalTokenResolver;
  branchRules: BranchPushRules;
  tagRules?: TagPushRules;
  /** Release source archives and asset-link downloads under project paths (`/-/archive/...`). */
  webDownloads?: WebDownloads;
  /** The web pages under project paths (badges, jobs, pipelines): null when no page lives at the path. */
  projectPages?: { serve(urlPath: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | null };
}

const GIT_BODY_TYPES = ['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request'];

/**
 * Git smart HTTP at `{external_url}/{full_path}.git/...`, outside /api/v4. Bodies reach
 * `git http-backend` as streams in both directions; paths that are not git's fall through
 * to the site's 404.
 */
export async function registerGitHttp(app: FastifyInstance, context: CoordinatorContext, options: GitHttpOptions): Promise<void> {
  const service = new GitHttpService({
    lookup: context.lookup,
    access: new GitAccess(context.permissions, context.stores.users, options.personalTokens, context.jobTokens),
    repositories: context.repositories,
    projects: context.stores.projects,
    events: context.events,
    branchRules: options.branchRules,
    tagRules: options.tagRules,
    hooksDir: path.join(context.config.dataDir, 'git-hooks'),
    logger: context.logger,
  });

  await app.register(async (scope) => {
    // Hand the raw request stream over: packs are never buffered.
    scope.addContentTypeParser(GIT_BODY_TYPES, (_request, payload, done) => done(null, payload));
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.route({
      method: ['GET', 'POST'],
      url: '/*',
      schema: { hide: true },
      handler: (request, reply) => serve(service, request, reply, options),
    });
  });
}

async function serve(service: GitHttpService, request: FastifyRequest, reply: FastifyReply, { webDownloads, projectPages }: GitHttpOptions): Promise<FastifyReply> {
  const url = coordinatorUrl(request);
  const queryAt = url.indexOf('?');
  const rawPath = queryAt >= 0 ? url.slice(0, queryAt) : url;
  const queryString = queryAt >= 0 ? url.slice(queryAt + 1) : '';
  let urlPath: string;
  try {
    urlPath = decodeURIComponent(rawPath);
  } catch {
    reply.callNotFound();
    return reply;
  }
  const target = classifyGitPath(request.method, urlPath, queryString);
  if (target === null) {
    const download = request.method === 'GET' ? classifyWebDownload(urlPath) : null;
    if (download && webDownloads) return webDownloads.serve(download, request, reply);
    const page = projectPages?.serve(urlPath, request, reply);
    if (page) return page;
    reply.callNotFound();
    return reply;
  }
  if (target.kind === 'redirect') return reply.redirect(request.coordinatorPrefix + target.location, 301);
  if (target.kind === 'unsupported') return refuse(reply, new GantryError('GANTRY_E_ROUTE_NOT_FOUND', 'Not Found'));

  // The client hanging up before its answer was written, or the coordinator closing, stops queued or running git work.
  const signal = requestSignal(reply);
  try {
    const response = await service.handle({
      method: request.method,
      target,
      queryString,
      authorization: header(request, 'authorization'),
      contentType: header(request, 'content-type'),
      contentLength: header(request, 'content-length'),
      contentEncoding: header(request, 'content-encoding'),
      gitProtocol: header(request, 'git-protocol'),
      remoteAddr: request.ip,
      body: request.method === 'POST' ? request.raw : null,
      signal,
    });
    return reply.code(response.status).headers(response.headers).send(response.body);
  } catch (error) {
    // Refusals are plain text, which git prints; server failures go to the JSON error handler.
    if (isGantryError(error) && errorStatus(error) < 500) return refuse(reply, error);
    throw error;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The API's status for the code, and the message as a line of text. */
function refuse(reply: FastifyReply, refusal: GantryError): FastifyReply {
  const status = errorStatus(refusal);
  // git always asks without credentials first and sends them after the 401: that challenge is routine.
  const challenge = status === 401 && reply.request.headers.authorization === undefined;
  if (challenge) reply.log.debug({ code: refusal.code, status }, refusal.message);
  else reply.log.info({ code: refusal.code, status }, refusal.message);
  if (status === 401) void reply.header('www-authenticate', 'Basic realm="Gantry"');
  return reply.code(status).type('text/plain; charset=utf-8').send(`${refusal.message}\n`);
}
