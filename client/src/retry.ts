/**
 * When to retry a call and how long to wait: exponential backoff with full jitter (the AWS architecture blog's
 * recommendation: spreads retries of many clients the most), and the server's Retry-After when it gives one.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2: three attempts in all). */
  maxRetries: number;
  /** The backoff before retry n is random in [0, min(maxDelayMs, baseDelayMs * 2^n)]. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown instead (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** Statuses worth another attempt: the rate limit and our side's failures. Everything else answers the same again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After as milliseconds: delay-seconds or an HTTP date (RFC 9110); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0 for the first retry), or null not to retry. A Retry-After is
 * honoured as given (never shortened); without one, full jitter.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  if (retry >= policy.maxRetries) return null;
  if (retryAfterMs !== null) return retryAfterMs > policy.maxRetryAfterMs ? null : retryAfterMs;
  return Math.round(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
}
