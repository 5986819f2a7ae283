import * as crypto from 'node:crypto';
import type { Db } from '../database.ts';
import type { TableWrites } from '../table-writes.ts';
import { preparedQuery } from '../prepared.ts';
import type { PersonalTokensTable } from '../schema.ts';
import type { UserRecord } from '../../types.ts';
import { USER_SELECTED, userOfJoined } from './users.ts';
import { TOKEN_SCOPES, type NewToken, type TokenRecord, type TokenScope, type TokensStore } from '../../types-tokens.ts';

/** Node's one-shot digest (20.12 and later) skips the Hash object every authenticated request would build. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function digestToken(token: string): string {
  return oneShotHash ? oneShotHash('sha256', token, 'hex') : crypto.createHash('sha256').update(token).digest('hex');
}

type TokenRow = Omit<PersonalTokensTable, 'id' | 'token_digest'> & { id: number };

function toToken(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as TokenScope[],
    expires_at: row.expires_at,
    revoked: Boolean(row.revoked),
    impersonation: Boolean(row.impersonation),
    created_at: row.created_at,
  };
}

const COLUMNS = ['id', 'user_id', 'name', 'scopes', 'expires_at', 'revoked', 'impersonation', 'created_at'] as const;

/** The token's part of a sign-in join row, whose token columns are named `token_*`. */
function tokenOfJoined(row: Record<string, unknown>): TokenRecord {
  return toToken({
    id: row.token_id as number,
    user_id: row.token_user_id as number,
    name: row.token_name as string,
    scopes: row.token_scopes as string,
    expires_at: row.token_expires_at as string | null,
    revoked: row.token_revoked as number,
    impersonation: row.token_impersonation as number,
    created_at: row.token_created_at as string,
  });
}

export class SqlTokensStore implements TokensStore {
  /** Every authenticated request asks this. */
  private readonly byDigest;
  private readonly withOwnerByDigest;

  constructor(
    private readonly db: Db,
    private readonly writes: TableWrites,
  ) {
    this.byDigest = preparedQuery(db, (digest: string) => db.selectFrom('personal_tokens').select(COLUMNS).where('token_digest', '=', digest).compile());
    // The owner's columns under their own names, the token's under `token_*`.
    this.withOwnerByDigest = preparedQuery(db, (digest: string) =>
      db
        .selectFrom('personal_tokens')
        .innerJoin('users', 'users.id', 'personal_tokens.user_id')
        .select(USER_SELECTED.map((column) => `users.${column}` as const))
        .select(COLUMNS.map((column) => `personal_tokens.${column} as token_${column}` as const))
        .where('personal_tokens.token_digest', '=', digest)
        .compile(),
    );
  }

  async create(userId: number, token: string, details: NewToken): Promise<TokenRecord> {
    this.writes.report({ table: 'personal_tokens' });
    const row = await this.db
      .insertInto('personal_tokens')
      .values({
        user_id: userId,
        name: details.name,
        token_digest: digestToken(token),
        created_at: new Date().toISOString(),
        scopes: JSON.stringify(details.scopes ?? TOKEN_SCOPES),
        expires_at: details.expiresAt ?? null,
        revoked: 0,
        impersonation: details.impersonation ? 1 : 0,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return toToken(row);
  }

  async findByToken(token: string): Promise<TokenRecord | undefined> {
    const [row] = await this.byDigest(digestToken(token));
    return row && toToken(row);
  }

  async findWithOwner(token: string): Promise<{ token: TokenRecord; owner: UserRecord } | undefined> {
    const [row] = await this.withOwnerByDigest(digestToken(token));
    if (!row) return undefined;
    return { token: tokenOfJoined(row), owner: userOfJoined(row) };
  }

  async findById(id: number): Promise<TokenRecord | undefined> {
    const row = await this.db.selectFrom('personal_tokens').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toToken(row);
  }

  async list(filter: { userId?: number; userIds?: readonly number[]; impersonation?: boolean }): Promise<TokenRecord[]> {
    if (filter.userIds?.length === 0) return [];
    let query = this.db.selectFrom('personal_tokens').select(COLUMNS);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.userIds !== undefined) query = query.where('user_id', 'in', filter.userIds);
    if (filter.impersonation !== undefined) query = query.where('impersonation', '=', filter.impersonation ? 1 : 0);
    return (await query.orderBy('id').execute()).map(toToken);
  }

  async revoke(id: number): Promise<void> {
    this.writes.report({ table: 'personal_tokens' });
    await this.db.updateTable('personal_tokens').set({ revoked: 1 }).where('id', '=', id).execute();
  }

  async deleteForUser(userId: number): Promise<void> {
    this.writes.report({ table: 'personal_tokens' });
    await this.db.deleteFrom('personal_tokens').where('user_id', '=', userId).execute();
  }
}
