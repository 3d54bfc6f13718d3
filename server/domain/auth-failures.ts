import type { Clock } from './clock';

export interface AuthFailureSettings {
  /** Failed authentications one client id may have per window from one source address before it is answered 429. */
  perClientId: number;
  /** Failed authentications one source address may have per window before it is answered 429. */
  perAddress: number;
  windowSeconds: number;
}

export const DEFAULT_AUTH_FAILURE_SETTINGS: AuthFailureSettings = { perClientId: 10, perAddress: 30, windowSeconds: 60 };

interface Window {
  count: number;
  startedAtMs: number;
}

/** Bounds the memory a flood of made-up client ids or addresses can take. */
const MAX_KEYS = 20_000;

/**
 * Counts failed authentications per client id and per source address in fixed windows, in memory.
 *
 * It is consulted before any slow hash, so a flood of bad secrets costs a map lookup, not a scrypt.
 * Per process on purpose: the thing it protects (this process's libuv pool) is per process too, and a
 * shared counter would put a database write on every failure, which is what an attacker wants.
 */
export class AuthFailureThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly settings: AuthFailureSettings = DEFAULT_AUTH_FAILURE_SETTINGS,
  ) {}

  /** Seconds to wait when the client id or the address is over its budget, else null. */
  retryAfter(clientId: string | undefined, address: string | undefined): number | null {
    const nowMs = this.clock.now().getTime();
    let wait = 0;
    for (const [key, limit] of this.keys(clientId, address)) {
      const w = this.live(key, nowMs);
      if (w && w.count >= limit) wait = Math.max(wait, w.startedAtMs + this.settings.windowSeconds * 1000 - nowMs);
    }
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : null;
  }

  recordFailure(clientId: string | undefined, address: string | undefined): void {
    const nowMs = this.clock.now().getTime();
    for (const [key] of this.keys(clientId, address)) {
      const w = this.live(key, nowMs);
      if (w) w.count += 1;
      else this.put(key, { count: 1, startedAtMs: nowMs }, nowMs);
    }
  }

  /**
   * The failure recorded (in advance) for a verification that then succeeded is taken back: the client id's count
   * is cleared (its owner holds the secret) and the address gets its one back.
   */
  recordSuccess(clientId: string, address: string | undefined): void {
    this.windows.delete(this.idKey(clientId, address));
    const w = address ? this.windows.get(`ip:${address}`) : undefined;
    if (w && w.count > 0) w.count -= 1;
  }

  /**
   * A client id's budget is per source address: client ids are not secret, so a budget of the id alone would let
   * anyone lock its owner out (ten junk secrets a minute). Guessing a 256-bit secret is hopeless anyway; what the
   * budgets protect is this process's CPU, which the per-address budget and the bounded hashing already do.
   */
  private idKey(clientId: string, address: string | undefined): string {
    return address ? `id:${clientId}@${address}` : `id:${clientId}`;
  }

  private keys(clientId: string | undefined, address: string | undefined): [string, number][] {
    const keys: [string, number][] = [];
    if (clientId) keys.push([this.idKey(clientId, address), this.settings.perClientId]);
    if (address) keys.push([`ip:${address}`, this.settings.perAddress]);
    return keys;
  }

  private live(key: string, nowMs: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && (nowMs - w.startedAtMs >= this.settings.windowSeconds * 1000 || nowMs < w.startedAtMs)) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private put(key: string, w: Window, nowMs: number) {
    if (this.windows.size >= MAX_KEYS) {
      for (const [k, old] of this.windows) if (nowMs - old.startedAtMs >= this.settings.windowSeconds * 1000) this.windows.delete(k);
      // Still full: the oldest entries go (Map keeps insertion order).
      for (const k of this.windows.keys()) {
        if (this.windows.size < MAX_KEYS) break;
        this.windows.delete(k);
      }
    }
    this.windows.set(key, w);
  }
}
