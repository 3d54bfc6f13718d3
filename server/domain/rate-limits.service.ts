import type { Caller } from './context';
import type { Clock } from './clock';
import type { RateLimitBucketRepository } from '../store/api-limits.repository';

export interface RateLimitSettings {
  /** Tokens added per second (may be fractional). */
  perSecond: number;
  /** Bucket size: how many requests may arrive at once. */
  burst: number;
}

/** What the API answers in the RateLimit-* headers, and whether the request may run. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one request is allowed again (Retry-After of a 429). */
  retryAfterSeconds: number;
}

/**
 * Token bucket per organization and environment: a sandbox test run cannot starve production traffic.
 * The bucket lives in the database (one conditional UPDATE per request), so every API process sharing the
 * database shares the limit.
 */
export class RateLimitService {
  constructor(
    private readonly buckets: RateLimitBucketRepository,
    /** Wall time even under tests: a manual test clock would never refill. */
    private readonly clock: Clock,
    private readonly settings: RateLimitSettings | null,
  ) {}

  get enabled(): boolean {
    return this.settings !== null;
  }

  async take(caller: Caller): Promise<RateLimitDecision | null> {
    const s = this.settings;
    if (!s) return null;
    const key = `api:${caller.organizationId}:${caller.environment}`;
    const { allowed, tokens } = await this.buckets.take(key, { nowMs: this.clock.now().getTime(), ratePerSecond: s.perSecond, burst: s.burst });
    const left = Math.max(0, Math.min(s.burst, tokens));
    return {
      allowed,
      limit: s.burst,
      remaining: Math.floor(left),
      resetSeconds: Math.ceil((s.burst - left) / s.perSecond),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - left) / s.perSecond)),
    };
  }
}
