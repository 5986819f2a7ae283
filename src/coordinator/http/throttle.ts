import { normalizeIP, type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ThrottleCountersStore } from '../../storage/types-instances.ts';
import type { ApplicationSettings } from '../services/instance/settings.ts';

/** The user and IP rate limits of the application settings (GitLab's Rack::Attack throttles). */
export type ThrottleName = 'throttle_authenticated_api' | 'throttle_authenticated_web' | 'throttle_unauthenticated';

/** Which traffic a request is: the API under /api/v4, or the web addresses (downloads). */
export type ThrottledArea = 'api' | 'web';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** GitLab's body for a throttled request (`Gitlab::Throttle::DEFAULT_RATE_LIMITING_RESPONSE_TEXT`). */
export const THROTTLED_BODY = 'Retry later\n';

interface Rule {
  limit: number;
  periodSeconds: number;
}

/**
 * Enforces the throttle settings with @fastify/rate-limit's fixed windows: signed-in callers
 * are counted by the user their credential belongs to (before sudo), anonymous ones by IP
 * address (IPv6 by /64). Limits and periods are read from the settings on every request, so
 * a change applies at once. Counters live where the rate-limit plugin was told to keep them:
 * this process's memory with one coordinator, the database (sharedThrottleCounters) when
 * several share it.
 */
export class RequestThrottles {
  private readonly limiters: Record<ThrottleName, Limiter>;

  constructor(
    app: FastifyInstance,
    private readonly settings: () => Promise<ApplicationSettings>,
    /** The settings when they are at hand without a promise (kept in memory), else undefined. */
    private readonly settingsAtHand: () => ApplicationSettings | undefined = () => undefined,
  ) {
    const limiter = (name: ThrottleName): Limiter =>
      app.createRateLimit({
        keyGenerator: (request) => `${name}:${throttleKey(request)}`,
        max: async () => (await this.rule(name)).limit,
        timeWindow: async () => (await this.rule(name)).periodSeconds * 1000,
      });
    this.limiters = {
      throttle_authenticated_api: limiter('throttle_authenticated_api'),
      throttle_authenticated_web: limiter('throttle_authenticated_web'),
      throttle_unauthenticated: limiter('throttle_unauthenticated'),
    };
  }

  /**
   * Counts the request against the throttle that applies to it, if enabled. Over the limit
   * it answers 429 as GitLab does (plain text, `Retry-After` and `RateLimit-*` headers) and
   * returns true; the caller then stops handling the request.
   */
  async refuse(request: FastifyRequest, reply: FastifyReply, area: ThrottledArea): Promise<boolean> {
    const name = throttleFor(request, area);
    const values = await this.settings();
    if (values[`${name}_enabled`] !== true) return false;
    const outcome = await this.limiters[name](request);
    if (outcome.isAllowed || !outcome.isExceeded) return false;
    const retryAfter = Math.max(1, outcome.ttlInSeconds);
    const resetAt = new Date(Date.now() + retryAfter * 1000);
    void reply
      .code(429)
      .headers({
        'content-type': 'text/plain',
        'retry-after': String(retryAfter),
        'ratelimit-name': name,
        // GitLab states the limit per minute, rounded up, whatever the period.
        'ratelimit-limit': String(Math.ceil((outcome.max * 60) / Math.max(1, outcome.timeWindow / 1000))),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(Math.floor(resetAt.getTime() / 1000)),
        'ratelimit-resettime': resetAt.toUTCString(),
      })
      .send(THROTTLED_BODY);
    return true;
  }

  /** As {@link refuse}, but false at once, without a promise, when the settings at hand turn the request's throttle off (GitLab's default). */
  refuseIfEnabled(request: FastifyRequest, reply: FastifyReply, area: ThrottledArea): Promise<boolean> | false {
    const values = this.settingsAtHand();
    if (values !== undefined && values[`${throttleFor(request, area)}_enabled`] !== true) return false;
    return this.refuse(request, reply, area);
  }

  private async rule(name: ThrottleName): Promise<Rule> {
    const values = await this.settings();
    return { limit: Number(values[`${name}_requests_per_period`]), periodSeconds: Number(values[`${name}_period_in_seconds`]) };
  }
}

function throttleFor(request: FastifyRequest, area: ThrottledArea): ThrottleName {
  if (request.credentialUser === null) return 'throttle_unauthenticated';
  return area === 'api' ? 'throttle_authenticated_api' : 'throttle_authenticated_web';
}

function throttleKey(request: FastifyRequest): string {
  return request.credentialUser === null ? `ip:${normalizeIP(request.ip)}` : `user:${request.credentialUser.id}`;
}

/**
 * @fastify/rate-limit's store over counters every coordinator of the database shares: one
 * upsert per counted request, so a caller gets the limit once across all coordinators, not
 * once per coordinator.
 */
export function sharedThrottleCounters(counters: ThrottleCountersStore): FastifyRateLimitStoreCtor {
  return class SharedThrottleCounters implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counters.hit(key, timeWindow).then(
        ({ hits, remainingMs }) => callback(null, { current: hits, ttl: remainingMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return new SharedThrottleCounters();
    }
  };
}
