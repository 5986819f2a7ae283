/**
 * `POST /runners/reset_authentication_token` with the runner's current token: GitLab answers
 * 201 `{token, token_expires_at}` and the old token stops working at once. Results are data;
 * transport failures reject.
 */
import { isJson, type Transport } from './transport.ts';

export type TokenResetResult =
  | { kind: 'reset'; token: string; tokenExpiresAt: string | null }
  /** The current token is unknown or expired: only a new registration helps. */
  | { kind: 'forbidden' }
  | { kind: 'failed'; status: number; message: string };

export async function resetRunnerToken(transport: Transport, token: string): Promise<TokenResetResult> {
  const response = await transport.json('POST', 'runners/reset_authentication_token', { token }, { expectBody: true });
  if (response.status === 403) return { kind: 'forbidden' };
  if (response.status !== 201) return { kind: 'failed', status: response.status, message: `the coordinator answered ${response.status}` };
  if (!isJson(response)) return { kind: 'failed', status: -1, message: 'the answer is not application/json' };
  let parsed: { token?: unknown; token_expires_at?: unknown };
  try {
    parsed = JSON.parse(response.text) as typeof parsed;
  } catch {
    return { kind: 'failed', status: -1, message: 'the answer is not valid JSON' };
  }
  if (typeof parsed.token !== 'string' || parsed.token === '') return { kind: 'failed', status: -1, message: 'the answer carries no token' };
  const expires = parsed.token_expires_at;
  if (expires !== null && expires !== undefined && (typeof expires !== 'string' || Number.isNaN(Date.parse(expires)))) {
    return { kind: 'failed', status: -1, message: 'the answer carries an unreadable token_expires_at' };
  }
  return { kind: 'reset', token: parsed.token, tokenExpiresAt: expires ?? null };
}
