import { accessDenied, GantryError } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { TokenRecord, TokenScope, TokensStore } from '../../../storage/types-tokens.ts';
import { generateToken } from './accounts.ts';
import { checkLengths, type FieldLimits } from '../field-limits.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { tokenProblem } from './token-validity.ts';

/** Token names: 255 characters (GitLab's column is unbounded; a name is a label, not a document). */
export const TOKEN_LIMITS = { name: 255 } as const satisfies FieldLimits;

export type TokenState = 'all' | 'active' | 'inactive';

export interface NewTokenInput {
  name: string;
  /** At least one; duplicates are dropped. */
  scopes: TokenScope[];
  /** YYYY-MM-DD. */
  expiresAt?: string;
}

/** A token with whether it works today; `secret` only in the answer that creates it. */
export interface AccessTokenView {
  token: TokenRecord;
  active: boolean;
  secret?: string;
}

export interface AccessTokensServiceDeps {
  tokens: Pick<TokensStore, 'create' | 'list' | 'findById' | 'revoke'>;
  lookup: Pick<Lookup, 'user'>;
  permissions: Pick<Permissions, 'isAdministrator' | 'canRevokeToken'>;
}

/**
 * Personal and impersonation access tokens: administrators issue them for users (users have
 * no sign-in page here to make their own); users list and revoke their own. The token itself
 * is shown once, in the answer that creates it.
 */
export class AccessTokensService {
  constructor(private readonly deps: AccessTokensServiceDeps) {}

  /** Issues a personal (or impersonation) token for a user (administrators). */
  async create(actor: UserRecord, userRef: string, input: NewTokenInput, impersonation: boolean): Promise<AccessTokenView> {
    const user = await this.administeredUser(actor, userRef);
    checkLengths(TOKEN_LIMITS, { name: input.name });
    const secret = generateToken();
    const scopes = [...new Set(input.scopes)];
    const token = await this.deps.tokens.create(user.id, secret, { name: input.name, scopes, expiresAt: input.expiresAt ?? null, impersonation });
    return { ...view(token), secret };
  }

  async listImpersonation(actor: UserRecord, userRef: string, state: TokenState): Promise<AccessTokenView[]> {
    const user = await this.administeredUser(actor, userRef);
    const tokens = await this.deps.tokens.list({ userId: user.id, impersonation: true });
    return tokens.map(view).filter((token) => state === 'all' || token.active === (state === 'active'));
  }

  async getImpersonation(actor: UserRecord, userRef: string, tokenId: number): Promise<AccessTokenView> {
    return view(await this.impersonationToken(actor, userRef, tokenId));
  }

  async revokeImpersonation(actor: UserRecord, userRef: string, tokenId: number): Promise<void> {
    const token = await this.impersonationToken(actor, userRef, tokenId);
    await this.deps.tokens.revoke(token.id);
  }

  /** `GET /personal_access_tokens`: the caller's tokens; administrators anyone's (`userId`, else all). */
  async listPersonal(actor: UserRecord, userId: number | undefined): Promise<AccessTokenView[]> {
    const owner = this.deps.permissions.isAdministrator(actor) ? userId : actor.id;
    return (await this.deps.tokens.list({ userId: owner })).map(view);
  }

  /** `DELETE /personal_access_tokens/:id`: own tokens, or any for administrators. */
  async revokePersonal(actor: UserRecord, tokenId: number): Promise<void> {
    const token = await this.deps.tokens.findById(tokenId);
    if (!token) throw new GantryError('GANTRY_E_ACCESS_TOKEN_NOT_FOUND');
    if (!this.deps.permissions.canRevokeToken(token, actor)) throw new GantryError('GANTRY_E_TOKEN_NOT_OWNED', 'not allowed to revoke this token');
    await this.deps.tokens.revoke(token.id);
  }

  private async administeredUser(actor: UserRecord, userRef: string): Promise<UserRecord> {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    return this.deps.lookup.user(userRef);
  }

  private async impersonationToken(actor: UserRecord, userRef: string, tokenId: number): Promise<TokenRecord> {
    const user = await this.administeredUser(actor, userRef);
    const token = await this.deps.tokens.findById(tokenId);
    if (!token || token.user_id !== user.id || !token.impersonation) throw new GantryError('GANTRY_E_IMPERSONATION_TOKEN_NOT_FOUND');
    return token;
  }
}

function view(token: TokenRecord): AccessTokenView {
  return { token, active: tokenProblem(token) === undefined };
}
