/** A signed-in browser of the web pages. */
export interface WebSessionRecord {
  /** SHA-256 (hex) of the cookie's secret: the secret itself is never stored. */
  id_digest: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** Failed sign-ins of one login name in the open window. */
export interface SignInFailures {
  failures: number;
  window_ends_at: string;
}

export interface WebSessionsStore {
  create(session: WebSessionRecord): Promise<void>;
  /** The session unless it expired before `now`. */
  findActive(idDigest: string, now: string): Promise<WebSessionRecord | undefined>;
  delete(idDigest: string): Promise<void>;
  /** Removes sessions that expired before `now`; answers how many. */
  deleteExpired(now: string): Promise<number>;
  /** The failures of `login` whose window is still open at `now`, else undefined. */
  failuresOf(login: string, now: string): Promise<SignInFailures | undefined>;
  /** Counts one failure: a window ending at `windowEndsAt` opens when none is open at `now`. */
  recordFailure(login: string, now: string, windowEndsAt: string): Promise<SignInFailures>;
  clearFailures(login: string): Promise<void>;
  /** The user's password digest (null: no password set, or no such user). */
  passwordDigestOf(userId: number): Promise<string | null>;
}
