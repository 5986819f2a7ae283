import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { NamespacesStore, NewUser, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { TokensStore } from '../../../storage/types-tokens.ts';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

export interface NewAccount {
  username: string;
  name: string;
  email: string;
  password?: string | null;
  is_admin?: boolean;
  projects_limit: number;
  can_create_group?: boolean;
  external?: boolean;
  confirmed?: boolean;
  profile?: Partial<Pick<NewUser, 'bio' | 'location' | 'messenger_id' | 'network_profile' | 'microblog_account' | 'website_url' | 'organization' | 'extern_uid' | 'provider' | 'avatar_url'>>;
}

/** A personal token: a recognisable prefix and 20 random bytes. */
export function generateToken(prefix = 'gnt-'): string {
  return prefix + randomBytes(20).toString('base64url');
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${key.toString('hex')}`;
}

export async function verifyPassword(password: string, digest: string): Promise<boolean> {
  const [scheme, saltHex, keyHex] = digest.split('$');
  if (scheme !== 'scrypt' || !saltHex || !keyHex) return false;
  const key = await scrypt(password, Buffer.from(saltHex, 'hex'), 32);
  const expected = Buffer.from(keyHex, 'hex');
  return expected.length === key.length && timingSafeEqual(expected, key);
}

/** Creates users together with their personal namespace. */
export class AccountsService {
  constructor(
    private readonly users: UsersStore,
    private readonly namespaces: NamespacesStore,
    private readonly tokens: TokensStore,
  ) {}

  async createUser(account: NewAccount): Promise<UserRecord> {
    const now = new Date().toISOString();
    const user = await this.users.create({
      username: account.username,
      name: account.name,
      email: account.email,
      password_digest: account.password ? await hashPassword(account.password) : null,
      state: 'active',
      is_admin: account.is_admin ?? false,
      is_ghost: false,
      bio: account.profile?.bio ?? '',
      location: account.profile?.location ?? '',
      messenger_id: account.profile?.messenger_id ?? '',
      network_profile: account.profile?.network_profile ?? '',
      microblog_account: account.profile?.microblog_account ?? '',
      website_url: account.profile?.website_url ?? '',
      organization: account.profile?.organization ?? '',
      projects_limit: account.projects_limit,
      can_create_group: account.can_create_group ?? true,
      external: account.external ?? false,
      extern_uid: account.profile?.extern_uid ?? null,
      provider: account.profile?.provider ?? null,
      avatar_url: account.profile?.avatar_url ?? null,
      theme_id: 1,
      color_scheme_id: 1,
      two_factor_enabled: false,
      password_expires_at: null,
      created_at: now,
      confirmed_at: account.confirmed === false ? null : now,
      last_sign_in_at: null,
      current_sign_in_at: null,
      last_activity_on: null,
    });
    await this.namespaces.create({
      kind: 'user',
      name: user.username,
      path: user.username,
      full_path: user.username,
      full_name: user.name,
      parent_id: null,
      owner_id: user.id,
      description: '',
      visibility: 'public',
      lfs_enabled: true,
      request_access_enabled: false,
      avatar_url: null,
      created_at: now,
      updated_at: now,
    });
    return user;
  }

  /** Issues a personal token for the user and returns it (only its digest is stored). */
  async issueToken(userId: number, name: string, token = generateToken()): Promise<string> {
    await this.tokens.create(userId, token, { name });
    return token;
  }
}
