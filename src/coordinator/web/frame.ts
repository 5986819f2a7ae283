import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserRecord } from '../../storage/types.ts';
import { isGantryError } from '../../shared/errors.ts';
import { errorStatus } from '../http/error-responses.ts';
import { parseCookies, serializeCookie } from './cookies.ts';
import type { Markup } from './html.ts';
import { errorPage, PAGE_HEADERS, type PageFrame } from './layout.ts';
import { SESSION_LIFETIME_MS, type WebSession, type WebSessions } from './sessions.ts';

export const SESSION_COOKIE = '_gantry_session';
/** The anonymous visitor's CSRF token (the sign-in form), checked against the form's copy. */
export const ANONYMOUS_CSRF_COOKIE = '_gantry_csrf';

/** A page request: its frame, the signed-in user (the actor the services see) and the cookie's secret. */
export interface PageRequest {
  frame: PageFrame;
  actor: UserRecord | null;
  session: (WebSession & { secret: string }) | undefined;
}

export interface WebEdge {
  sessions: WebSessions;
  externalUrl: string;
}

export async function pageRequest(edge: WebEdge, request: FastifyRequest): Promise<PageRequest> {
  const prefix = request.coordinatorPrefix ?? '';
  const secret = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
  const session = secret === undefined ? undefined : await edge.sessions.resolve(secret);
  if (!session || secret === undefined) return { frame: { prefix, viewer: null }, actor: null, session: undefined };
  return {
    frame: { prefix, viewer: { username: session.user.username, name: session.user.name, csrfToken: session.csrfToken } },
    actor: session.user,
    session: { ...session, secret },
  };
}

/**
 * Secure cookies when the browser reached us over https: the external URL says so, or the
 * request did (fastify honours X-Forwarded-Proto only when the host trusts its proxy).
 */
export function cookieOptions(edge: WebEdge, request: FastifyRequest, maxAgeMs?: number) {
  return {
    path: (request.coordinatorPrefix ?? '') || '/',
    secure: edge.externalUrl.startsWith('https://') || request.protocol === 'https',
    maxAge: maxAgeMs === undefined ? undefined : Math.floor(maxAgeMs / 1000),
  };
}

export function setSessionCookie(edge: WebEdge, request: FastifyRequest, reply: FastifyReply, secret: string): void {
  void reply.header('set-cookie', serializeCookie(SESSION_COOKIE, secret, cookieOptions(edge, request, SESSION_LIFETIME_MS)));
}

export function clearSessionCookie(edge: WebEdge, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', cookieOptions(edge, request, 0)));
}

export function sameToken(expected: string | undefined, given: unknown): boolean {
  if (expected === undefined || typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A field of a posted form (undefined when absent or the body is not a form). */
export function formField(request: FastifyRequest, name: string): unknown {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

/** The form field every state-changing form carries (Rails' name for it). */
export function formToken(request: FastifyRequest): unknown {
  return formField(request, 'authenticity_token');
}

export function sendPage(reply: FastifyReply, status: number, page: Markup): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(page.text);
}

/**
 * Renders what the services refused as a page: sign in first when anonymous and refused (unless
 * `returnTo` is null: an image is no place for a form), 404
 * for what is missing, hidden or not to be read (the services answer the first two alike), 403 for
 * a refused action.
 * Anything else (a server failure) goes on to the coordinator's error handler.
 */
export function sendRefusal(reply: FastifyReply, page: PageRequest, error: unknown, returnTo: string | null): FastifyReply {
  if (!isGantryError(error)) throw error;
  const status = errorStatus(error);
  if (status >= 500) throw error;
  // A project or group an anonymous visitor cannot see (or that does not exist) asks them to sign in, as
  // GitLab's `route_not_found` does: both alike, so nothing is told about which it was.
  const refused = status === 401 || status === 403 || error.code === 'GANTRY_E_PROJECT_NOT_FOUND' || error.code === 'GANTRY_E_GROUP_NOT_FOUND';
  if (refused && page.actor === null && returnTo !== null) {
    return reply.redirect(`${page.frame.prefix}/users/sign_in?redirect_to=${encodeURIComponent(returnTo)}`, 302);
  }
  // GitLab's access_denied! shows a page the viewer may not read as a missing one (404), the
  // admin area's too; a refused action (a POST) keeps its 403.
  const read = reply.request.method === 'GET' || reply.request.method === 'HEAD';
  const shown = status === 403 ? (read ? 404 : 403) : status === 404 || status === 401 ? 404 : status === 429 ? 429 : 400;
  return sendPage(reply, shown, errorPage(page.frame, shown, shown === 404 ? 'The page could not be found or you do not have permission to see it.' : error.message));
}

/** Route options of every page: pages are not part of the API, so the OpenAPI document leaves them out. */
export const PAGE_ROUTE = { schema: { hide: true } } as const;
