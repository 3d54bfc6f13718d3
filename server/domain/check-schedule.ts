import type { ConnectionCheckOutcome } from '../store';

/**
 * When a connection's session is checked next. Every interval is jittered by ±JITTER so that connections created
 * together (an import, a sign-up burst) spread out instead of coming due in the same second forever after.
 */
export const JITTER = 0.1;

/** A check that could not decide (timed out, provider unreachable) is tried again sooner than the interval: at most this. */
export const RETRY_INCONCLUSIVE_SECONDS = 15 * 60;

/** Checks turned off for a connection: the scheduler looks at it again after this (a setting may have changed meanwhile). */
export const OFF_RECHECK_SECONDS = 24 * 3600;

/** `now` plus `seconds` × a factor drawn uniformly from [1 − JITTER, 1 + JITTER]. */
export function jittered(now: Date, seconds: number, random: () => number = Math.random): Date {
  const factor = 1 - JITTER + 2 * JITTER * Math.min(1, Math.max(0, random()));
  return new Date(now.getTime() + Math.round(seconds * 1000 * factor));
}

/**
 * The next scheduled check after a check with `outcome`, for a connection whose interval is `intervalSeconds` (0: off).
 * Null: none (the connection is no longer ACTIVE; it is planned again when it is).
 */
export function nextCheckAfter(
  now: Date,
  outcome: ConnectionCheckOutcome,
  intervalSeconds: number,
  random: () => number = Math.random,
): Date | null {
  if (outcome === 'LOGIN_REQUIRED') return null;
  if (intervalSeconds <= 0) return new Date(now.getTime() + OFF_RECHECK_SECONDS * 1000);
  const inconclusive = outcome === 'TIMED_OUT' || outcome === 'UNREACHABLE';
  return jittered(now, inconclusive ? Math.min(intervalSeconds, RETRY_INCONCLUSIVE_SECONDS) : intervalSeconds, random);
}

/** The first scheduled check of a connection that has none planned. */
export function firstCheckAt(now: Date, intervalSeconds: number, random: () => number = Math.random): Date {
  return intervalSeconds > 0 ? jittered(now, intervalSeconds, random) : new Date(now.getTime() + OFF_RECHECK_SECONDS * 1000);
}
