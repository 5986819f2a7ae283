/** Personal and impersonation access tokens. */
import type { UserRecord } from './types.ts';

export const TOKEN_SCOPES = ['api', 'read_user', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'sudo'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A personal (or impersonation) access token; the token itself is never stored, only its digest. */
export interface TokenRecord {
  id: number;
  user_id: number;
  name: string;
  scopes: TokenScope[];
  /** YYYY-MM-DD: the token stops working on that day. */
  expires_at: string | null;
  revoked: boolean;
  impersonation: boolean;
  created_at: string;
}

export interface NewToken {
  name: string;
  scopes?: TokenScope[];
  expiresAt?: string | null;
  impersonation?: boolean;
}

export interface TokensStore {
  /** Stores only the digest of `token`; every scope unless `scopes` narrows them. */
  create(userId: number, token: string, details: NewToken): Promise<TokenRecord>;
  findByToken(token: string): Promise<TokenRecord | undefined>;
  /** The token and its owner in one read (every authenticated request asks this). */
  findWithOwner(token: string): Promise<{ token: TokenRecord; owner: UserRecord } | undefined>;
  findById(id: number): Promise<TokenRecord | undefined>;
  /** Oldest first; `userId`, `userIds` and `impersonation` narrow the list. */
  list(filter: { userId?: number; userIds?: readonly number[]; impersonation?: boolean }): Promise<TokenRecord[]>;
  revoke(id: number): Promise<void>;
  deleteForUser(userId: number): Promise<void>;
}

/** Where a project or group access token's bot user belongs (`namespace`: a group), as members' source_type. */
export interface ResourceBotRecord {
  user_id: number;
  source_type: 'project' | 'namespace';
  source_id: number;
}

/** The bot users of project and group access tokens. */
export interface ResourceBotsStore {
  add(bot: ResourceBotRecord): Promise<void>;
  find(userId: number): Promise<ResourceBotRecord | undefined>;
  /** The bot user ids of one project or group, oldest first. */
  userIdsForSource(sourceType: ResourceBotRecord['source_type'], sourceId: number): Promise<number[]>;
}
