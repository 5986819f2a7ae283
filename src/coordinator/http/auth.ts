import type { FastifyRequest } from 'fastify';
import { forbidden, notFound, unauthorized } from '../../shared/errors.ts';
import type { ReadCache } from '../services/read-cache.ts';
import type { UserRecord, UsersStore, TokensStore } from '../../storage/types.ts';

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

export class Authenticator {
  constructor(
    private readonly users: UsersStore,
    private readonly tokens: TokensStore,
    private readonly cache?: ReadCache,
  ) {}

  /** The active user a personal token belongs to, or null (unknown token, blocked user). */
  async userForToken(token: string): Promise<UserRecord | null> {
    const lookUp = async (): Promise<UserRecord | null> => {
      const userId = await this.tokens.findUserIdByToken(token);
      const user = userId === undefined ? undefined : await this.users.findById(userId);
      return user && user.state === 'active' ? user : null;
    };
    return this.cache ? this.cache.get(`token\0${token}`, lookUp) : lookUp();
  }

  /** Resolves request.actor; throws 401 for a bad token, 403/404 for a refused sudo. */
  async authenticate(request: FastifyRequest): Promise<void> {
    request.actor = null;
    request.credentialUser = null;
    const token = tokenFromRequest(request);
    if (token === undefined) return;
    const user = await this.userForToken(token);
    if (!user) throw unauthorized();
    request.credentialUser = user;
    request.actor = user;

    const sudo = sudoFromRequest(request);
    if (sudo === undefined) return;
    if (!user.is_admin) throw forbidden('Must be admin to use sudo');
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
