import { createHash, randomBytes } from 'node:crypto';
import type { UserRecord, UsersStore } from '../../storage/types.ts';
import type { WebSessionsStore } from '../../storage/types-web-sessions.ts';
import { verifyPassword } from '../services/accounts/accounts.ts';

/** GitLab's default `session_expire_delay`: a week. */
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;
/** GitLab's defaults (`max_login_attempts`, `failed_login_attempts_unlock_period_in_minutes`). */
export const MAX_FAILED_SIGN_INS = 10;
export const LOCK_OUT_MS = 10 * 60 * 1000;

export type SignInOutcome =
  | { signedIn: true; secret: string; user: UserRecord }
  | { signedIn: false; reason: 'invalid' }
  | { signedIn: false; reason: 'locked'; retryAfterMs: number };

export interface WebSession {
  user: UserRecord;
  csrfToken: string;
}

export interface WebSessionsDeps {
  sessions: WebSessionsStore;
  users: Pick<UsersStore, 'findById' | 'findByUsername' | 'findByEmail'>;
  clock?: () => number;
}

const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A random token for a cookie or a form: 32 bytes, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What a login that names nobody is verified against, so both answers take one scrypt: the
 * digest of a random password nobody kept (a match is refused anyway, as no user goes with it).
 * A constant, not made at start, because scrypt costs about 30 ms of CPU and most coordinators
 * (every `runner exec` among them) never see a sign-in.
 */
const DECOY_DIGEST = 'scrypt$982dec4aaf88105e4279fb9951b9583f$9593796aa78741a0095e232c83b6cac0b54881ca0fb2ff64434a1d9c0580456b';

/**
 * Sign-in with a username (or email) and password, and the sessions it opens. Ten failed
 * attempts on one login name within ten minutes lock that name until the window ends, as
 * GitLab's account lock-out does by default; the count lives in the database, so every
 * coordinator sharing it agrees, and a successful sign-in clears it.
 */
export class WebSessions {
  private readonly clock: () => number;
  constructor(private readonly deps: WebSessionsDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  async signIn(login: string, password: string): Promise<SignInOutcome> {
    const key = login.trim().toLowerCase();
    const now = this.clock();
    const failures = await this.deps.sessions.failuresOf(key, new Date(now).toISOString());
    if (failures && failures.failures >= MAX_FAILED_SIGN_INS) return { signedIn: false, reason: 'locked', retryAfterMs: Date.parse(failures.window_ends_at) - now };
    const user = await this.userFor(key);
    const stored = user ? await this.deps.sessions.passwordDigestOf(user.id) : null;
    const matches = (await verifyPassword(password, stored ?? DECOY_DIGEST)) && user !== undefined && stored !== null;
    if (!matches || user.state !== 'active' || user.is_ghost) {
      await this.deps.sessions.recordFailure(key, new Date(now).toISOString(), new Date(now + LOCK_OUT_MS).toISOString());
      return { signedIn: false, reason: 'invalid' };
    }
    await this.deps.sessions.clearFailures(key);
    await this.deps.sessions.deleteExpired(new Date(now).toISOString());
    const secret = randomToken();
    await this.deps.sessions.create({
      id_digest: digestOf(secret),
      user_id: user.id,
      csrf_token: randomToken(),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + SESSION_LIFETIME_MS).toISOString(),
    });
    return { signedIn: true, secret, user };
  }

  /** The session a cookie's secret opens: not expired, its user still active. */
  async resolve(secret: string): Promise<WebSession | undefined> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
    const session = await this.deps.sessions.findActive(digestOf(secret), new Date(this.clock()).toISOString());
    if (!session) return undefined;
    const user = await this.deps.users.findById(session.user_id);
    if (!user || user.state !== 'active') return undefined;
    return { user, csrfToken: session.csrf_token };
  }

  async signOut(secret: string): Promise<void> {
    await this.deps.sessions.delete(digestOf(secret));
  }

  private async userFor(login: string): Promise<UserRecord | undefined> {
    if (login === '') return undefined;
    return login.includes('@') ? this.deps.users.findByEmail(login) : this.deps.users.findByUsername(login);
  }
}
