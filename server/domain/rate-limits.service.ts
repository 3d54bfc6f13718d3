import type { RateLimitBucketRepository } from '../store/repositories/rate-limit-bucket.repository';
import type { Clock } from './clock';
import type { Caller } from './context';

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

/** Tokens this process took from the shared bucket and has not spent yet. */
interface Lease {
  tokens: number;
  /** The shared bucket's tokens right after the lease was taken (for RateLimit-Remaining). */
  bucketTokens: number;
  expiresAtMs: number;
}

/** A lease is at most this many tokens, and at most a tenth of the burst (small bursts stay exact). */
const LEASE_MAX = 10;
/** Unspent leased tokens are dropped after this long, so an idle process does not sit on them. */
const LEASE_TTL_MS = 1000;
const LEASES_MAX = 10_000;

/**
 * Token bucket per organization and environment: a sandbox test run cannot starve production traffic.
 *
 * The bucket lives in the database, so every API process sharing the database shares the limit. Writing
 * it on every request was a large share of a request's cost (bench/api.bench.ts), so a process takes
 * tokens in leases of up to 10 (one conditional UPDATE per lease) and spends them locally. Leased tokens
 * were already taken from the shared bucket, so all processes together never admit more than the bucket
 * gives; a process may only hold back up to 9 tokens for at most a second. When fewer than a lease are
 * left, tokens are taken one at a time, so the last requests before a 429 are counted exactly.
 */
export class RateLimitService {
  private readonly leases = new Map<string, Lease>();
  /** One bucket round trip per key at a time; concurrent requests wait for it and then spend its lease. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

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
    for (;;) {
      const nowMs = this.clock.now().getTime();
      const lease = this.leases.get(key);
      if (lease && lease.tokens >= 1 && nowMs < lease.expiresAtMs) {
        lease.tokens -= 1;
        return this.decision(true, lease.bucketTokens + lease.tokens);
      }
      const pending = this.inFlight.get(key);
      if (pending) {
        await pending.catch(() => undefined);
        continue;
      }
      const taking = this.takeFromBucket(key, nowMs, lease);
      this.inFlight.set(key, taking);
      try {
        const taken = await taking;
        // Remembered even when denied: it tells the next request whether a whole lease is worth asking for.
        const left = taken.allowed ? taken.count - 1 : 0;
        this.remember(key, { tokens: left, bucketTokens: taken.bucketTokens, expiresAtMs: nowMs + LEASE_TTL_MS });
        return this.decision(taken.allowed, taken.bucketTokens + left);
      } finally {
        this.inFlight.delete(key);
      }
    }
  }

  /** A whole lease when the bucket (as last seen, refilled since) likely holds one, else a single token. */
  private async takeFromBucket(key: string, nowMs: number, previous: Lease | undefined) {
    const s = this.settings!;
    const opts = { nowMs, ratePerSecond: s.perSecond, burst: s.burst };
    const leaseSize = Math.max(1, Math.min(LEASE_MAX, Math.floor(s.burst / 10)));
    const seen = previous
      ? Math.min(s.burst, previous.bucketTokens + ((nowMs - (previous.expiresAtMs - LEASE_TTL_MS)) * s.perSecond) / 1000)
      : s.burst;
    if (leaseSize > 1 && seen >= leaseSize) {
      const lease = await this.buckets.take(key, { ...opts, count: leaseSize });
      if (lease.allowed) return { allowed: true, count: leaseSize, bucketTokens: lease.tokens };
    }
    const single = await this.buckets.take(key, opts);
    return { allowed: single.allowed, count: 1, bucketTokens: single.tokens };
  }

  private remember(key: string, lease: Lease) {
    if (!this.leases.has(key) && this.leases.size >= LEASES_MAX) {
      const nowMs = this.clock.now().getTime();
      for (const [k, l] of this.leases) if (l.expiresAtMs <= nowMs || l.tokens < 1) this.leases.delete(k);
      if (this.leases.size >= LEASES_MAX) this.leases.delete(this.leases.keys().next().value!);
    }
    this.leases.set(key, lease);
  }

  private decision(allowed: boolean, tokensLeft: number): RateLimitDecision {
    const s = this.settings!;
    const left = Math.max(0, Math.min(s.burst, tokensLeft));
    return {
      allowed,
      limit: s.burst,
      remaining: Math.floor(left),
      resetSeconds: Math.ceil((s.burst - left) / s.perSecond),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - left) / s.perSecond)),
    };
  }
}
