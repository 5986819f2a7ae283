import { randomBytes } from 'node:crypto';
import { GantryError } from '../../../shared/errors.ts';
import type { AccessLevel, MembersStore, UserRecord } from '../../../storage/types.ts';
import type { ResourceBotRecord, ResourceBotsStore, TokenRecord, TokenScope, TokensStore } from '../../../storage/types-tokens.ts';
import type { Lookup } from '../access/lookup.ts';
import type { MemberSource, Permissions } from '../access/permissions.ts';
import { checkLengths } from '../field-limits.ts';
import { generateToken, type AccountsService } from './accounts.ts';
import { TOKEN_LIMITS, type TokenState } from './access-tokens.ts';
import { tokenProblem } from './token-validity.ts';

/** The scopes a project or group access token may carry (GitLab's resource_bot_scopes: no read_user, no sudo). */
export const RESOURCE_TOKEN_SCOPES = ['api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry'] as const satisfies readonly TokenScope[];

/** Without `expires_at`, a new token lasts GitLab's maximum lifetime, a rotated one a week (token expiry is enforced). */
const CREATED_LIFETIME_DAYS = 365;
const ROTATED_LIFETIME_DAYS = 7;

export type TokenSourceKind = 'project' | 'group';

export interface NewResourceTokenInput {
  name: string;
  scopes: TokenScope[];
  accessLevel: AccessLevel;
  /** YYYY-MM-DD. */
  expiresAt?: string;
}

/** A token of a project or group, with its bot's level there; `secret` only when created or rotated. */
export interface ResourceTokenView {
  token: TokenRecord;
  active: boolean;
  accessLevel: AccessLevel | null;
  secret?: string;
}

export interface ResourceAccessTokensDeps {
  tokens: Pick<TokensStore, 'create' | 'list' | 'findById' | 'revoke'>;
  bots: ResourceBotsStore;
  members: Pick<MembersStore, 'add' | 'find'>;
  accounts: Pick<AccountsService, 'createUser'>;
  lookup: Pick<Lookup, 'readableProject' | 'readableGroup'>;
  permissions: Pick<Permissions, 'canManageAccessTokens' | 'canGrantAccessTokenLevel' | 'isAdministrator'>;
  /** The host of the bots' no-reply addresses (`noreply.<host>`). */
  host: string;
}

interface ResolvedSource {
  kind: TokenSourceKind;
  member: MemberSource;
  sourceType: ResourceBotRecord['source_type'];
  id: number;
}

/**
 * Project and group access tokens: each token is a personal token of its own bot user, a
 * member of the project or group at the token's level, so the token's rights are that
 * membership's (narrowed by its scopes). Revoking keeps the bot, as GitLab now does.
 */
export class ResourceAccessTokensService {
  constructor(private readonly deps: ResourceAccessTokensDeps) {}

  async list(actor: UserRecord, kind: TokenSourceKind, ref: string, state: TokenState | undefined): Promise<ResourceTokenView[]> {
    const source = await this.visibleTokensOf(actor, kind, ref);
    const botIds = await this.deps.bots.userIdsForSource(source.sourceType, source.id);
    const tokens = await this.deps.tokens.list({ userIds: botIds, impersonation: false });
    const views = await Promise.all(tokens.map((token) => this.view(source, token)));
    return views.filter((view) => state === undefined || state === 'all' || view.active === (state === 'active'));
  }

  async get(actor: UserRecord, kind: TokenSourceKind, ref: string, tokenId: number): Promise<ResourceTokenView> {
    const source = await this.visibleTokensOf(actor, kind, ref);
    return this.view(source, await this.tokenOf(source, tokenId));
  }

  async create(actor: UserRecord, kind: TokenSourceKind, ref: string, input: NewResourceTokenInput): Promise<ResourceTokenView> {
    const source = await this.source(actor, kind, ref);
    checkLengths(TOKEN_LIMITS, { name: input.name });
    const isBot = (await this.deps.bots.find(actor.id)) !== undefined;
    if (isBot || !(await this.deps.permissions.canManageAccessTokens(source.member, actor))) {
      throw refused(`User does not have permission to create ${kind === 'project' ? 'project' : 'group'} access token`);
    }
    if (!(await this.deps.permissions.canGrantAccessTokenLevel(source.member, actor, input.accessLevel))) {
      throw refused('Access level of the token contains permissions not held by the creating user');
    }
    const bot = await this.createBot(actor, source, input.name);
    await this.deps.members.add({
      source_type: source.sourceType,
      source_id: source.id,
      user_id: bot.id,
      access_level: input.accessLevel,
      notification_level: 3,
      expires_at: null,
      created_by_id: actor.id,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    const expiresAt = input.expiresAt ?? daysFromToday(CREATED_LIFETIME_DAYS);
    return this.issue(source, bot.id, { name: input.name, scopes: [...new Set(input.scopes)], expiresAt });
  }

  /** GitLab looks the token up before asking whether the caller may revoke it: 404, then 400. */
  async revoke(actor: UserRecord, kind: TokenSourceKind, ref: string, tokenId: number): Promise<void> {
    const source = await this.source(actor, kind, ref);
    const token = await this.tokenOf(source, tokenId);
    if (!(await this.deps.permissions.canManageAccessTokens(source.member, actor))) {
      throw refused(`${actor.name} cannot delete ${token.name}`);
    }
    await this.deps.tokens.revoke(token.id);
  }

  /** A new token for the same bot, name and scopes; the old one is revoked. Callers who may not manage tokens learn nothing (401). */
  async rotate(actor: UserRecord, kind: TokenSourceKind, ref: string, tokenId: number, expiresAt: string | undefined): Promise<ResourceTokenView> {
    const source = await this.source(actor, kind, ref);
    const manages = await this.deps.permissions.canManageAccessTokens(source.member, actor);
    const token = manages ? await this.tokenOf(source, tokenId).catch(() => undefined) : undefined;
    if (!token) {
      if (this.deps.permissions.isAdministrator(actor)) throw new GantryError('GANTRY_E_RESOURCE_ACCESS_TOKEN_NOT_FOUND');
      throw new GantryError('GANTRY_E_ACCESS_TOKENS_HIDDEN');
    }
    if (token.revoked) throw refused('token already revoked');
    const level = (await this.deps.members.find(source.sourceType, source.id, token.user_id))?.access_level;
    if (level !== undefined && !(await this.deps.permissions.canGrantAccessTokenLevel(source.member, actor, level))) {
      throw refused('Not eligible to rotate token with access level higher than the user');
    }
    await this.deps.tokens.revoke(token.id);
    return this.issue(source, token.user_id, { name: token.name, scopes: token.scopes, expiresAt: expiresAt ?? daysFromToday(ROTATED_LIFETIME_DAYS) });
  }

  private async issue(source: ResolvedSource, botId: number, details: { name: string; scopes: TokenScope[]; expiresAt: string }): Promise<ResourceTokenView> {
    const secret = generateToken('glpat-');
    const token = await this.deps.tokens.create(botId, secret, { name: details.name, scopes: details.scopes, expiresAt: details.expiresAt, impersonation: false });
    return { ...(await this.view(source, token)), secret };
  }

  /** GitLab's project_bot user: `project_<id>_bot_<random>` (group: `group_…`), named after the token, no password. */
  private async createBot(actor: UserRecord, source: ResolvedSource, name: string): Promise<UserRecord> {
    const username = `${source.kind}_${source.id}_bot_${randomBytes(16).toString('hex')}`;
    const bot = await this.deps.accounts.createUser({
      username,
      name,
      email: `${username}@noreply.${this.deps.host}`,
      password: null,
      projects_limit: 0,
      can_create_group: false,
      external: actor.external,
    });
    await this.deps.bots.add({ user_id: bot.id, source_type: source.sourceType, source_id: source.id });
    return bot;
  }

  private async source(actor: UserRecord, kind: TokenSourceKind, ref: string): Promise<ResolvedSource> {
    if (kind === 'project') {
      const project = await this.deps.lookup.readableProject(ref, actor);
      return { kind, member: { kind: 'project', project }, sourceType: 'project', id: project.id };
    }
    const group = await this.deps.lookup.readableGroup(ref, actor);
    return { kind, member: { kind: 'group', group }, sourceType: 'namespace', id: group.id };
  }

  /** Reading tokens needs the same rights as managing them; others get GitLab's 401. */
  private async visibleTokensOf(actor: UserRecord, kind: TokenSourceKind, ref: string): Promise<ResolvedSource> {
    const source = await this.source(actor, kind, ref);
    if (!(await this.deps.permissions.canManageAccessTokens(source.member, actor))) throw new GantryError('GANTRY_E_ACCESS_TOKENS_HIDDEN');
    return source;
  }

  private async tokenOf(source: ResolvedSource, tokenId: number): Promise<TokenRecord> {
    const token = await this.deps.tokens.findById(tokenId);
    const bot = token && (await this.deps.bots.find(token.user_id));
    if (!token || token.impersonation || !bot || bot.source_type !== source.sourceType || bot.source_id !== source.id) {
      throw new GantryError('GANTRY_E_RESOURCE_ACCESS_TOKEN_NOT_FOUND', undefined, { resource: `${source.kind} Access Token` });
    }
    return token;
  }

  private async view(source: ResolvedSource, token: TokenRecord): Promise<ResourceTokenView> {
    const member = await this.deps.members.find(source.sourceType, source.id, token.user_id);
    return { token, active: tokenProblem(token) === undefined, accessLevel: member?.access_level ?? null };
  }
}

function refused(message: string): GantryError {
  return new GantryError('GANTRY_E_ACCESS_TOKEN_REFUSED', message);
}

function daysFromToday(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
