import { GantryError, invalidParam, missingParam } from '../../shared/errors.ts';
import type { UserRecord } from '../../storage/types.ts';
import { TOKEN_SCOPES, type TokenRecord, type TokenScope } from '../../storage/types-tokens.ts';
import type { CoordinatorContext } from '../context.ts';
import type { Params } from '../http/params.ts';
import { serializeAccessToken, type AccessTokenJson } from '../http/serializers/access-tokens.ts';
import { generateToken } from './accounts.ts';
import { checkLengths, type FieldLimits } from './field-limits.ts';
import { tokenProblem } from './token-validity.ts';

const STATES = ['all', 'active', 'inactive'] as const;

/** Token names: 255 characters (GitLab's column is unbounded; a name is a label, not a document). */
export const TOKEN_LIMITS = { name: 255 } as const satisfies FieldLimits;
type TokenState = (typeof STATES)[number];

/**
 * Personal and impersonation access tokens: administrators issue them for users (users have
 * no sign-in page here to make their own); users list and revoke their own. The token itself
 * is shown once, in the answer that creates it.
 */
export class AccessTokensService {
  constructor(private readonly context: CoordinatorContext) {}

  async create(userRef: string, params: Params, impersonation: boolean): Promise<AccessTokenJson> {
    const user = await this.context.lookup.user(userRef);
    const name = params.nonEmptyString('name');
    if (name === undefined) throw missingParam('name');
    checkLengths(TOKEN_LIMITS, { name });
    const scopes = parseScopes(params);
    const expiresAt = params.date('expires_at') ?? null;
    const secret = generateToken();
    const token = await this.context.stores.tokens.create(user.id, secret, { name, scopes, expiresAt, impersonation });
    return serializeAccessToken(token, isActive(token), { impersonation, secret });
  }

  async listImpersonation(userRef: string, params: Params): Promise<AccessTokenJson[]> {
    const user = await this.context.lookup.user(userRef);
    const state: TokenState = params.oneOf('state', STATES) ?? 'all';
    const tokens = await this.context.stores.tokens.list({ userId: user.id, impersonation: true });
    return tokens
      .filter((token) => state === 'all' || isActive(token) === (state === 'active'))
      .map((token) => serializeAccessToken(token, isActive(token), { impersonation: true }));
  }

  async getImpersonation(userRef: string, tokenId: number): Promise<AccessTokenJson> {
    const token = await this.impersonationToken(userRef, tokenId);
    return serializeAccessToken(token, isActive(token), { impersonation: true });
  }

  async revokeImpersonation(userRef: string, tokenId: number): Promise<void> {
    const token = await this.impersonationToken(userRef, tokenId);
    await this.context.stores.tokens.revoke(token.id);
  }

  /** `GET /personal_access_tokens`: the caller's tokens; administrators anyone's (`user_id`). */
  async listPersonal(actor: UserRecord, params: Params): Promise<AccessTokenJson[]> {
    const userId = actor.is_admin ? params.int('user_id', { min: 1 }) : actor.id;
    const tokens = await this.context.stores.tokens.list({ userId });
    return tokens.map((token) => serializeAccessToken(token, isActive(token)));
  }

  /** `DELETE /personal_access_tokens/:id`: own tokens, or any for administrators. */
  async revokePersonal(actor: UserRecord, tokenId: number): Promise<void> {
    const token = await this.context.stores.tokens.findById(tokenId);
    if (!token) throw new GantryError('GANTRY_E_ACCESS_TOKEN_NOT_FOUND');
    if (token.user_id !== actor.id && !actor.is_admin) throw new GantryError('GANTRY_E_TOKEN_NOT_OWNED', 'not allowed to revoke this token');
    await this.context.stores.tokens.revoke(token.id);
  }

  private async impersonationToken(userRef: string, tokenId: number): Promise<TokenRecord> {
    const user = await this.context.lookup.user(userRef);
    const token = await this.context.stores.tokens.findById(tokenId);
    if (!token || token.user_id !== user.id || !token.impersonation) throw new GantryError('GANTRY_E_IMPERSONATION_TOKEN_NOT_FOUND');
    return token;
  }
}

function isActive(token: TokenRecord): boolean {
  return tokenProblem(token) === undefined;
}

function parseScopes(params: Params): TokenScope[] {
  const scopes = params.stringArray('scopes');
  if (scopes === undefined || scopes.length === 0) throw missingParam('scopes');
  for (const scope of scopes) {
    if (!(TOKEN_SCOPES as readonly string[]).includes(scope)) throw invalidParam('scopes', 'does not have a valid value');
  }
  return [...new Set(scopes)] as TokenScope[];
}
