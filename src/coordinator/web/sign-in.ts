import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestThrottles } from '../http/throttle.ts';
import { parseCookies, serializeCookie } from './cookies.ts';
import {
  ANONYMOUS_CSRF_COOKIE, clearSessionCookie, PAGE_ROUTE, cookieOptions, formToken, pageRequest, sameToken, sendPage, setSessionCookie, type WebEdge,
} from './frame.ts';
import { html } from './html.ts';
import { errorPage, layout, type PageFrame } from './layout.ts';
import { randomToken } from './sessions.ts';

/** Where to go after signing in: only a path of this site (never `//host` or a scheme). */
export function safeReturnPath(prefix: string, value: unknown): string {
  const fallback = `${prefix}/`;
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  if (!value.startsWith(`${prefix}/`) || value.startsWith('//') || value.includes('\\') || /[\u0000-\u001f]/.test(value)) return fallback;
  return value;
}

function signInPage(frame: PageFrame, csrfToken: string, returnTo: string, notice?: string) {
  return layout(
    frame,
    'Sign in',
    html`<h1>Sign in</h1>
${notice && html`<p class="notice" role="alert">${notice}</p>`}
<form class="sign-in" method="post" action="${frame.prefix}/users/sign_in">
<input type="hidden" name="authenticity_token" value="${csrfToken}">
<input type="hidden" name="redirect_to" value="${returnTo}">
<label for="user_login">Username or email</label>
<input id="user_login" name="user[login]" autocomplete="username" required autofocus>
<label for="user_password">Password</label>
<input id="user_password" name="user[password]" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The anonymous CSRF token of this browser, set as a cookie when it has none yet. */
function anonymousCsrf(edge: WebEdge, request: FastifyRequest, reply: FastifyReply): string {
  const existing = parseCookies(request.headers.cookie).get(ANONYMOUS_CSRF_COOKIE);
  if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  void reply.header('set-cookie', serializeCookie(ANONYMOUS_CSRF_COOKIE, token, cookieOptions(edge, request)));
  return token;
}

function field(body: unknown, ...path: string[]): string {
  let value: unknown = body;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** GET and POST /users/sign_in, POST /users/sign_out (GitLab's paths). */
export function registerSignIn(app: FastifyInstance, edge: WebEdge, throttles: RequestThrottles): void {
  app.get('/users/sign_in', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    const returnTo = safeReturnPath(page.frame.prefix, (request.query as Record<string, unknown>).redirect_to);
    if (page.actor) return reply.redirect(returnTo, 302);
    return sendPage(reply, 200, signInPage(page.frame, anonymousCsrf(edge, request, reply), returnTo));
  });

  app.post('/users/sign_in', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    request.actor = null;
    request.credentialUser = null;
    if (await throttles.refuse(request, reply, 'web')) return reply;
    const csrf = anonymousCsrf(edge, request, reply);
    const returnTo = safeReturnPath(page.frame.prefix, field(request.body, 'redirect_to'));
    if (!sameToken(parseCookies(request.headers.cookie).get(ANONYMOUS_CSRF_COOKIE), formToken(request))) {
      return sendPage(reply, 422, signInPage(page.frame, csrf, returnTo, 'The form expired: please sign in again.'));
    }
    const outcome = await edge.sessions.signIn(field(request.body, 'user', 'login'), field(request.body, 'user', 'password'));
    if (!outcome.signedIn) {
      const notice = outcome.reason === 'locked'
        ? `Too many failed sign-in attempts. Try again in ${Math.max(1, Math.ceil(outcome.retryAfterMs / 60_000))} minutes.`
        : 'Invalid login or password.';
      return sendPage(reply, outcome.reason === 'locked' ? 429 : 401, signInPage(page.frame, csrf, returnTo, notice));
    }
    setSessionCookie(edge, request, reply, outcome.secret);
    return reply.redirect(returnTo, 302);
  });

  app.post('/users/sign_out', PAGE_ROUTE, async (request, reply) => {
    const page = await pageRequest(edge, request);
    if (page.session && !sameToken(page.session.csrfToken, formToken(request))) return sendPage(reply, 422, errorPage(page.frame, 400, 'The form expired: reload the page and try again.'));
    if (page.session) await edge.sessions.signOut(page.session.secret);
    clearSessionCookie(edge, request, reply);
    return reply.redirect(`${page.frame.prefix}/users/sign_in`, 302);
  });
}

