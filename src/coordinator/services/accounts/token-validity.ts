import type { TokenRecord } from '../../../storage/types-tokens.ts';

/** Why a stored token no longer works, in GitLab's words; undefined when it does. */
export function tokenProblem(token: TokenRecord, today?: string): string | undefined {
  if (token.revoked) return 'Token was revoked. You have to re-authorize from the user profile.';
  // A token expires at the start of its expiry date (today's date is worked out only for tokens that expire: every request asks).
  if (token.expires_at !== null && token.expires_at <= (today ?? new Date().toISOString().slice(0, 10))) return 'Token has expired.';
  return undefined;
}
