/** A signed-in browser (migration 034): the SHA-256 of the cookie's secret, never the secret. */
export interface WebSessionsTable {
  id_digest: string;
  user_id: number;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** Failed web sign-ins of a login name (lower-cased) within a window (migration 034). */
export interface WebSignInFailuresTable {
  login: string;
  failures: number;
  window_ends_at: string;
}
