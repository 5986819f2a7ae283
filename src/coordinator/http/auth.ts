import type { FastifyRequest } from 'fastify';
import { forbidden, insufficientScope, invalidToken, notFound, unauthorized } from '../../shared/errors.ts';
import type { ReadCache } from '../services/read-cache.ts';
import { tokenProblem } from '../services/token-validity.ts';
import type { UserRecord, UsersStore } from '../../storage/types.ts';
import type { TokenRecord, TokenScope, TokensStore } from '../../storage/types-tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user (after sudo), or null for anonymous requests. */
    actor: UserRecord | null;
    /** The user the credential belongs to, before sudo. */
    credentialUser: UserRecord | null;
  }
}

/** Reads the personal token from `PRIVATE-TOKEN`, `private_token` or a Bearer header. */
export function tokenFromRequest(request: FastifyRequest): string | undefined {
  const header = request.headers['private-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query.private_token === 'string' && query.private_token !== '') return query.private_token;
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && typeof body.private_token === 'string') return body.private_token;
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && /^bearer\s+/i.test(authorization)) return authorization.replace(/^bearer\s+/i, '');
  return undefined;
}

function sudoFromRequest(request: FastifyRequest): string | undefined {
  const header = request.headers.sudo;
  if (typeof header === 'string' && header !== '') return header;
  for (const source of [request.query, request.body]) {
    if (source && typeof source === 'object') {
      const value = (source as Record<string, unknown>).sudo;
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
    }
  }
  return undefined;
}

export interface TokenCredential {
  user: UserRecord;
  token: TokenRecord;
}

const USER_ROUTES = /^\/api\/v4\/users?(?:[/?]|$)/;

/**
 * The scopes that would allow this API request when `scopes` do not, else undefined: `api`
 * allows everything, `read_api` reads, `read_user` reads of `/user` and `/users`.
 */
function scopesNeeded(scopes: readonly TokenScope[], method: string, url: string): TokenScope[] | undefined {
  if (scopes.includes('api')) return undefined;
  const reading = method === 'GET' || method === 'HEAD';
  if (!reading) return ['api'];
  if (scopes.includes('read_api')) return undefined;
  const userRoute = USER_ROUTES.test(url);
  if (userRoute && scopes.includes('read_user')) return undefined;
  return userRoute ? ['api', 'read_api', 'read_user'] : ['api', 'read_api'];
}

export class Authenticator {
  constructor(
    private readonly users: UsersStore,
    private readonly tokens: TokensStore,
    private readonly cache?: ReadCache,
  ) {}

  /** The token and its active owner, or null (unknown token, blocked user); revoked and expired tokens included. */
  async credentialForToken(token: string): Promise<TokenCredential | null> {
    const lookUp = async (): Promise<TokenCredential | null> => {
      const record = await this.tokens.findByToken(token);
      const user = record === undefined ? undefined : await this.users.findById(record.user_id);
      return record && user && user.state === 'active' ? { user, token: record } : null;
    };
    return this.cache ? this.cache.get(`token\0${token}`, lookUp) : lookUp();
  }

  /** A credential that works today (not revoked, not expired), else null; for git over HTTP. */
  async usableCredential(token: string): Promise<TokenCredential | null> {
    const credential = await this.credentialForToken(token);
    return credential && tokenProblem(credential.token) === undefined ? credential : null;
  }

  /** Resolves request.actor; 401 for a bad, revoked or expired token, 403 for missing scopes, 403/404 for a refused sudo. */
  async authenticate(request: FastifyRequest): Promise<void> {
    request.actor = null;
    request.credentialUser = null;
    const token = tokenFromRequest(request);
    if (token === undefined) return;
    const credential = await this.credentialForToken(token);
    if (!credential) throw unauthorized();
    const problem = tokenProblem(credential.token);
    if (problem) throw invalidToken(problem);
    const { user } = credential;
    const needed = scopesNeeded(credential.token.scopes, request.method, request.url);
    if (needed) throw insufficientScope(needed);
    request.credentialUser = user;
    request.actor = user;

    const sudo = sudoFromRequest(request);
    if (sudo === undefined) return;
    if (!user.is_admin) throw forbidden('Must be admin to use sudo');
    if (!credential.token.scopes.includes('sudo')) throw insufficientScope(['sudo']);
    const target = /^\d+$/.test(sudo) ? await this.users.findById(Number(sudo)) : await this.users.findByUsername(sudo);
    if (!target || target.is_ghost) throw notFound(`User with ID or username '${sudo}'`);
    request.actor = target;
  }
}

/** The actor, or 401 when the route needs one. */
export function requireActor(request: FastifyRequest): UserRecord {
  if (!request.actor) throw unauthorized();
  return request.actor;
}

/** The actor when an administrator, else 401 (anonymous) or 403. */
export function requireAdmin(request: FastifyRequest): UserRecord {
  const actor = requireActor(request);
  if (!actor.is_admin) throw forbidden();
  return actor;
}
