import { createHash } from 'node:crypto';

import type { BrowserContext } from 'playwright-core';

import type { DeviceProfile } from '../browser/device-profile';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderDefinition } from '../providers/catalogue';
import type { ContextWiring } from './context-wiring';
import type { RunMode } from './network-guard';
import { stopWatchingTabs } from './tabs/run-tabs';

/**
 * Browser contexts kept warm between runs of the same connection, as a person's browser stays open between two
 * visits. A fresh context costs Chromium a new storage partition and a page per origin to load localStorage into, then
 * the fence and the device are installed; a warm one skips all of that and keeps the provider's cached scripts and
 * styles. Only a context whose state is exactly the connection's stored session is reused (the digest of the session
 * it was sealed back with equals the stored one), so a session changed anywhere else (a re-link, a health check,
 * another process's run) is never overridden by an older one; and only for runs alike in everything its fence and
 * device were built from (`warmKey`). Between runs it has no page and its fence refuses every change
 * (context-wiring.ts); it is closed after `idleMs` unused, and the oldest goes first beyond `max`.
 */
export interface WarmContext {
  context: BrowserContext;
  wiring: ContextWiring;
  key: string;
}

export interface WarmSettings {
  /** How long an unused context is kept (0: never kept, every run opens its own). */
  idleMs: number;
  /** Contexts kept unused at once in this process. */
  max: number;
}

interface Idle {
  warm: WarmContext;
  digest: string;
  timer: NodeJS.Timeout;
}

const PAGES_CLOSE_MS = 5_000;

/** What a context is opened for: runs that differ in any of these never share one. */
export function warmKey(parts: {
  connectionId: string;
  environment: string;
  mode: RunMode | undefined;
  provider: Pick<ProviderDefinition, 'providerId' | 'homeUrl' | 'allowedOrigins' | 'identityProviders' | 'source' | 'sessionRefresh'>;
  device: DeviceProfile | null;
  exitProxy: UpstreamProxy | null;
}): string {
  const { provider } = parts;
  const fence = [
    provider.providerId,
    provider.homeUrl,
    provider.allowedOrigins,
    provider.identityProviders,
    provider.source,
    provider.sessionRefresh,
  ];
  return createHash('sha256')
    .update(JSON.stringify([parts.connectionId, parts.environment, parts.mode ?? 'read_write', fence, parts.device, parts.exitProxy]))
    .digest('base64');
}

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

export class WarmContexts {
  /** Oldest first. */
  private readonly idle: Idle[] = [];
  private readonly watched = new WeakSet<BrowserContext>();
  private closed = false;

  constructor(private readonly settings: WarmSettings) {}

  get enabled(): boolean {
    return !this.closed && this.settings.idleMs > 0 && this.settings.max > 0;
  }

  /** Contexts waiting unused now. */
  get size(): number {
    return this.idle.length;
  }

  /**
   * An unused context opened for `key` whose state is the session of `digest`, taken out of the pool; null when none.
   * Those of `key` left with another session are closed: the stored session moved on without them.
   */
  take(key: string, digest: string): WarmContext | null {
    let found: WarmContext | null = null;
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const entry = this.idle[i];
      if (entry.warm.key !== key) continue;
      const stale = entry.digest !== digest || !isOpen(entry.warm.context);
      if (!stale && found) continue; // another one of the same session: left for a run alongside
      this.idle.splice(i, 1);
      clearTimeout(entry.timer);
      if (stale) void closeQuietly(entry.warm.context);
      else found = entry.warm; // the newest: the fewest contexts stay in use
    }
    return found;
  }

  /**
   * Keeps a context for the next run of its key, its state being the session of `digest`: its pages are closed first
   * (while the run still holds its fence: whatever they send as they go is the run's), then the run lets go of it.
   * A context whose pages do not close in time, or that the pool has no room or use for, is closed instead.
   */
  async keep(warm: WarmContext, digest: string): Promise<void> {
    const { context } = warm;
    try {
      if (!this.enabled || !isOpen(context)) throw new Error('not kept');
      await withTimeout(Promise.all(context.pages().map((p) => p.close())), PAGES_CLOSE_MS);
      if (context.pages().length > 0) throw new Error('a page opened while closing');
    } catch {
      warm.wiring.detach();
      await closeQuietly(context);
      return;
    }
    warm.wiring.detach();
    stopWatchingTabs(context);
    if (!this.enabled) return void (await closeQuietly(context));
    if (!this.watched.has(context)) {
      this.watched.add(context);
      // The browser went away (or something closed it): nothing to keep.
      context.once('close', () => this.forget(context));
    }
    const entry: Idle = { warm, digest, timer: undefined as unknown as NodeJS.Timeout };
    this.rearm(entry);
    this.idle.push(entry);
    while (this.idle.length > this.settings.max) {
      const oldest = this.idle.shift()!;
      clearTimeout(oldest.timer);
      void closeQuietly(oldest.warm.context);
    }
  }

  /** Keeps contexts again (the worker starts). */
  open(): void {
    this.closed = false;
  }

  /** Closes every unused context and keeps none until `open` (the worker is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    const all = this.idle.splice(0);
    for (const entry of all) clearTimeout(entry.timer);
    await Promise.all(all.map((entry) => closeQuietly(entry.warm.context)));
  }

  private rearm(entry: Idle) {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      const at = this.idle.indexOf(entry);
      if (at < 0) return;
      this.idle.splice(at, 1);
      void closeQuietly(entry.warm.context);
    }, this.settings.idleMs);
    entry.timer.unref();
  }

  private forget(context: BrowserContext) {
    const at = this.idle.findIndex((entry) => entry.warm.context === context);
    if (at < 0) return;
    clearTimeout(this.idle[at].timer);
    this.idle.splice(at, 1);
  }
}

function isOpen(context: BrowserContext): boolean {
  const browser = context.browser();
  return !browser || browser.isConnected();
}

async function closeQuietly(context: BrowserContext): Promise<void> {
  await withTimeout(context.close(), PAGES_CLOSE_MS).catch(() => undefined);
}
