import type { FastifyRequest } from 'fastify';
import { coordinatorUrl } from './mount-path.ts';
import { accessDenied, GantryError, insufficientScope } from '../../shared/errors.ts';
import { parseRecordId } from '../../shared/record-ids.ts';
import type { ReadCache } from '../services/access/read-cache.ts';
import type { JobTokenSignIn } from '../services/ci/runners/job-token-sign-in.ts';
import { tokenProblem } from '../services/accounts/token-validity.ts';
import type { UserRecord, UsersStore } from '../../storage/types.ts';
import type { TokenRecord, TokenScope, TokensStore } from '../../storage/types-tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user (after sudo), or null for anonymous requests. */
    actor: UserRecord | null;
    /** The user the credential belongs to, before sudo. */
    credentialUser: UserRecord | null;
  }
  interface FastifyContextConfig {
    /**
     * GitLab's `job_token_allowed`: a CI job token (`JOB-TOKEN` header or `job_token`
     * parameter) signs the request in, as its job's user on the job's project and as no one
     * elsewhere. Other routes ignore job tokens.
     */
    jobTokenAllowed?: boolean;
  }
}

type ParamSource = Record<string, unknown>;

function asSource(value: unknown): ParamSource | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value) ? (value as ParamSource) : undefined;
}

/**
 * The personal token a request carries before its body is read: the `PRIVATE-TOKEN` header,
 * the `private_token` query parameter, or `Authorization: Bearer`.
 */
export function tokenBeforeBody(request: FastifyRequest): string | undefined {
  const header = request.headers['private-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = asSource(request.query)?.private_token;
  if (typeof query === 'string' && query !== '') return query;
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && /^bearer\s+/i.test(authorization)) return authorization.replace(/^bearer\s+/i, '');
  return undefined;
}

/** `private_token` given as a body parameter (GitLab accepts it; only small anonymous bodies are read, see body-limits.ts). */
function tokenInBody(request: FastifyRequest): string | undefined {
  const value = asSource(request.body)?.private_token;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The job token a request carries (`JOB-TOKEN` header, `job_token` query), for routes that take one. */
function jobTokenBeforeBody(request: FastifyRequest): string | undefined {
  const header = request.headers['job-token'];
  if (typeof header === 'string' && header !== '') return header;
  const query = asSource(request.query)?.job_token;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

function jobTokenInBody(request: FastifyRequest): string | undefined {
  const value = asSource(request.body)?.job_token;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const takesJobToken = (request: FastifyRequest): boolean => request.routeOptions.config.jobTokenAllowed === true;

function sudoIn(source: unknown): string | undefined {
  const value = asSource(source)?.sudo;
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function sudoBeforeBody(request: FastifyRequest): string | undefined {
  const header = request.headers.sudo;
  if (typeof header === 'string' && header !== '') return header;
  return sudoIn(request.query);
}

export interface TokenCredential {
  user: UserRecord;
  token: TokenRecord;
}

/** The read cache's key of a token's credential. */
const credentialKey = (token: string): string => `token\0${token}`;

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
    private readonly jobTokens?: JobTokenSignIn,
  ) {}

  /** The token and its active owner, or null (unknown token, blocked user); revoked and expired tokens included. */
  async credentialForToken(token: string): Promise<TokenCredential | null> {
    const lookUp = async (): Promise<TokenCredential | null> => {
      const found = await this.tokens.findWithOwner(token);
      return found && found.owner.state === 'active' ? { user: found.owner, token: found.token } : null;
    };
    return this.cache
      ? this.cache.get(credentialKey(token), async (depend) => {
          depend({ tables: ['personal_tokens', 'users'] });
          return lookUp();
        })
      : lookUp();
  }

  /** A credential that works today (not revoked, not expired), else null; for git over HTTP. */
  async usableCredential(token: string): Promise<TokenCredential | null> {
    const credential = await this.credentialForToken(token);
    return credential && tokenProblem(credential.token) === undefined ? credential : null;
  }

  /**
   * Signs the request in from its headers and query string, before any body byte is read:
   * refused for a bad, revoked or expired token, missing scopes, or a refused sudo. Without a token there the request stays anonymous until {@link authenticateFromBody}.
   * Answers undefined, synchronously, when there is nothing to look up (no token): most
   * runner-protocol requests, whose hooks then need no promise.
   */
  authenticateBeforeBody(request: FastifyRequest): Promise<void> | undefined {
    request.actor = null;
    request.credentialUser = null;
    const token = tokenBeforeBody(request);
    if (token === undefined) {
      const jobToken = takesJobToken(request) ? jobTokenBeforeBody(request) : undefined;
      return jobToken === undefined ? undefined : this.signInWithJobToken(request, jobToken);
    }
    // A credential the cache still holds signs in at once, without a promise (sudo may need a lookup).
    const kept = sudoBeforeBody(request) === undefined ? this.cache?.peek<TokenCredential | null>(credentialKey(token)) : undefined;
    if (!kept) return this.signInBeforeBody(request, token);
    try {
      this.admit(request, kept.value);
      return undefined;
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private async signInBeforeBody(request: FastifyRequest, token: string): Promise<void> {
    const credential = await this.signIn(request, token);
    const sudo = sudoBeforeBody(request);
    if (sudo !== undefined) await this.applySudo(request, credential, sudo);
  }

  /**
   * Completes sign-in from the body: its `private_token` when the headers and query had none,
   * its `sudo` when they had none (the header and query win). Undefined, synchronously, when
   * the body adds nothing.
   */
  authenticateFromBody(request: FastifyRequest): Promise<void> | undefined {
    const earlySudo = sudoBeforeBody(request);
    if (request.credentialUser === null) {
      const token = tokenInBody(request);
      if (token !== undefined) return this.signInFromBody(request, token, earlySudo);
      const jobToken = takesJobToken(request) ? jobTokenInBody(request) : undefined;
      return jobToken === undefined ? undefined : this.signInWithJobToken(request, jobToken);
    }
    const bodySudo = earlySudo === undefined ? sudoIn(request.body) : undefined;
    const token = tokenBeforeBody(request);
    if (bodySudo === undefined || token === undefined) return undefined;
    return this.sudoFromBody(request, token, bodySudo);
  }

  private async signInFromBody(request: FastifyRequest, token: string, earlySudo: string | undefined): Promise<void> {
    const credential = await this.signIn(request, token);
    const sudo = earlySudo ?? sudoIn(request.body);
    if (sudo !== undefined) await this.applySudo(request, credential, sudo);
  }

  private async sudoFromBody(request: FastifyRequest, token: string, sudo: string): Promise<void> {
    const credential = await this.credentialForToken(token);
    if (!credential) throw new GantryError('GANTRY_E_CREDENTIALS_INVALID');
    await this.applySudo(request, credential, sudo);
  }

  /** Both steps at once, for requests whose body is already read (or absent). */
  async authenticate(request: FastifyRequest): Promise<void> {
    await this.authenticateBeforeBody(request);
    await this.authenticateFromBody(request);
  }

  /**
   * A job token on a route that takes one: 401 unless its job is running and its user active;
   * the actor is that user on the job's project (the route's `:id`), anonymous elsewhere.
   */
  private async signInWithJobToken(request: FastifyRequest, token: string): Promise<void> {
    const params = asSource(request.params);
    const projectRef = typeof params?.id === 'string' ? params.id : undefined;
    const signedIn = this.jobTokens ? await this.jobTokens.signIn(token, projectRef) : null;
    if (!signedIn) throw new GantryError('GANTRY_E_CREDENTIALS_INVALID');
    request.credentialUser = signedIn.user;
    request.actor = signedIn.actor;
  }

  private async signIn(request: FastifyRequest, token: string): Promise<TokenCredential> {
    return this.admit(request, await this.credentialForToken(token));
  }

  /** Signs the request in with the credential its token names (null: none), or refuses it. */
  private admit(request: FastifyRequest, credential: TokenCredential | null): TokenCredential {
    if (!credential) throw new GantryError('GANTRY_E_CREDENTIALS_INVALID');
    // The owner is known from here on, even when the token turns out unusable: throttles count it.
    request.credentialUser = credential.user;
    const problem = tokenProblem(credential.token);
    if (problem) throw new GantryError('GANTRY_E_TOKEN_UNUSABLE', problem);
    const needed = scopesNeeded(credential.token.scopes, request.method, coordinatorUrl(request));
    if (needed) throw insufficientScope(needed);
    request.actor = credential.user;
    return credential;
  }

  private async applySudo(request: FastifyRequest, credential: TokenCredential, sudo: string): Promise<void> {
    if (!credential.user.is_admin) throw accessDenied('Must be admin to use sudo');
    if (!credential.token.scopes.includes('sudo')) throw insufficientScope(['sudo']);
    const id = parseRecordId(sudo);
    const target = id === undefined ? await this.users.findByUsername(sudo) : id === null ? undefined : await this.users.findById(id);
    if (!target || target.is_ghost) {
      const named = echoed(sudo);
      throw new GantryError('GANTRY_E_USER_NOT_FOUND', `no user with ID or username '${named}'`, { resource: `User with ID or username '${named}'` });
    }
    request.actor = target;
  }
}

/** The longest part of a caller's value an error message repeats: a 1 MB `sudo` is not echoed back whole. */
const ECHOED_VALUE_MAX = 200;

/** `value`, or its first {@link ECHOED_VALUE_MAX} characters and "…" (never half a surrogate pair). */
function echoed(value: string): string {
  if (value.length <= ECHOED_VALUE_MAX) return value;
  const end = /[\uD800-\uDBFF]/.test(value[ECHOED_VALUE_MAX - 1]) ? ECHOED_VALUE_MAX - 1 : ECHOED_VALUE_MAX;
  return `${value.slice(0, end)}…`;
}

/** The actor; GANTRY_E_AUTHENTICATION_REQUIRED when the route needs one and there is none. */
export function requireActor(request: FastifyRequest): UserRecord {
  if (!request.actor) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
  return request.actor;
}
