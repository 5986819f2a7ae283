/**
 * Runner authentication token rotation, as gitlab-runner does it (`run`): an entry whose
 * token has a `token_expires_at` gets a new token once 75 % of its lifetime (counted from
 * `token_obtained_at`) has passed, through `POST /runners/reset_authentication_token`. The
 * new token is used at once (the old one stops working on the coordinator) and written to
 * config.toml with its dates. A failed reset is tried again after a back-off. Tokens are
 * never logged, only their first characters, as everywhere else in the runner's log.
 */
import type { Logger } from '../../shared/logger.ts';
import type { RunnerEntry } from '../config/config.ts';
import type { TokenUpdate } from '../config/write.ts';
import { resetRunnerToken, type TokenResetResult } from '../http/token-reset.ts';
import type { Transport } from '../http/transport.ts';
import { shortToken } from '../job/identity.ts';

/** gitlab-runner's `TokenResetIntervalFactor`: the share of a token's lifetime used before it is reset. */
export const TOKEN_RESET_FACTOR = 0.75;
/** The longest a Node timer waits; a later reset is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When an entry's token is reset (milliseconds since the epoch), or null when it does not
 * expire. An expiry without a readable `token_obtained_at` is reset at once, as gitlab-runner
 * does (its lifetime is unknown).
 */
export function tokenResetTime(entry: Pick<RunnerEntry, 'tokenObtainedAt' | 'tokenExpiresAt'>): number | null {
  if (!entry.tokenExpiresAt) return null;
  const expires = Date.parse(entry.tokenExpiresAt);
  if (Number.isNaN(expires)) return null;
  const obtained = entry.tokenObtainedAt ? Date.parse(entry.tokenObtainedAt) : Number.NaN;
  if (Number.isNaN(obtained)) return 0;
  return obtained + TOKEN_RESET_FACTOR * Math.max(0, expires - obtained);
}

/** What rotation needs of a worker: its entry, its connection, and taking new settings. */
export interface RotatingWorker {
  readonly entry: RunnerEntry;
  readonly transport: Transport;
  reconfigure(entry: RunnerEntry): void;
}

export interface TokenRotationOptions {
  logger: Logger;
  /** The running workers (read anew at every look). */
  workers: () => readonly RotatingWorker[];
  /** Writes the new token to config.toml in place of `previous`. */
  persist: (previous: { url: string; token: string }, next: TokenUpdate) => Promise<void>;
  clock?: () => number;
  /** Back-off after a failed reset (default 1 minute doubling to 1 hour). */
  retryMs?: { min: number; max: number };
}

const keyOf = (entry: Pick<RunnerEntry, 'url' | 'token'>): string => `${entry.url}\n${entry.token}`;

export class TokenRotation {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Failed tokens: when to try again, and the current back-off. */
  private readonly retries = new Map<string, { at: number; backoffMs: number }>();

  constructor(private readonly options: TokenRotationOptions) {}

  /** Looks for the next reset (again after a config reload). */
  schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = Math.min(...this.dueTimes().map(({ at }) => at));
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.running.then(() => this.resetDue()).finally(() => this.schedule());
    }, Math.min(MAX_TIMER_MS, Math.max(0, next - this.now())));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** One worker per token that expires, with when to reset it. */
  private dueTimes(): Array<{ worker: RotatingWorker; at: number }> {
    const seen = new Set<string>();
    const due: Array<{ worker: RotatingWorker; at: number }> = [];
    for (const worker of this.options.workers()) {
      const key = keyOf(worker.entry);
      const resetAt = tokenResetTime(worker.entry);
      if (seen.has(key) || resetAt === null) continue;
      seen.add(key);
      due.push({ worker, at: Math.max(resetAt, this.retries.get(key)?.at ?? 0) });
    }
    return due;
  }

  private async resetDue(): Promise<void> {
    const now = this.now();
    for (const { worker, at } of this.dueTimes()) {
      if (this.stopped) return;
      if (at <= now) await this.reset(worker);
    }
  }

  private async reset(worker: RotatingWorker): Promise<void> {
    const previous = worker.entry;
    const { logger } = this.options;
    const name = { runner: shortToken(previous.token), name: previous.name };
    let result: TokenResetResult;
    try {
      result = await resetRunnerToken(worker.transport, previous.token);
    } catch (error) {
      result = { kind: 'failed', status: -1, message: error instanceof Error ? error.message : String(error) };
    }
    if (result.kind !== 'reset') {
      const retryInMs = this.backOff(keyOf(previous));
      if (result.kind === 'forbidden') logger.error({ ...name, status: 403, retryInMs }, 'resetting the runner token... forbidden (the token is unknown or expired: register the runner again)');
      else logger.warn({ ...name, status: result.status, retryInMs }, `resetting the runner token failed: ${result.message}`);
      return;
    }
    this.retries.delete(keyOf(previous));
    const update: TokenUpdate = {
      token: result.token,
      obtainedAt: new Date(Math.floor(this.now() / 1000) * 1000),
      expiresAt: result.tokenExpiresAt === null ? null : new Date(result.tokenExpiresAt),
    };
    // The old token no longer works: every worker of it switches before anything else.
    for (const each of this.options.workers()) {
      if (keyOf(each.entry) !== keyOf(previous)) continue;
      each.reconfigure({ ...each.entry, token: update.token, tokenObtainedAt: update.obtainedAt.toISOString(), tokenExpiresAt: update.expiresAt?.toISOString() });
    }
    const expires = update.expiresAt?.toISOString() ?? 'never';
    try {
      await this.options.persist({ url: previous.url, token: previous.token }, update);
      logger.info({ ...name, newRunner: shortToken(update.token), tokenExpiresAt: expires }, 'runner token reset and saved to the config file');
    } catch (error) {
      logger.error(
        // The first line only: a TOML parse error goes on to quote the file, tokens included.
        { ...name, newRunner: shortToken(update.token), tokenExpiresAt: expires, err: (error instanceof Error ? error.message : String(error)).split('\n')[0] },
        'runner token reset, but the config file could not be written: this process uses the new token; after a restart the old one is refused',
      );
    }
  }

  private backOff(key: string): number {
    const { min, max } = this.options.retryMs ?? { min: 60_000, max: 60 * 60_000 };
    const backoffMs = Math.min(max, this.retries.has(key) ? this.retries.get(key)!.backoffMs * 2 : min);
    this.retries.set(key, { at: this.now() + backoffMs, backoffMs });
    return backoffMs;
  }
}
