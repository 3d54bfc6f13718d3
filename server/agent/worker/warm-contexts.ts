import { createHmac, randomBytes } from 'node:crypto';

import type { BrowserContext, Page } from 'playwright-core';

import type { DeviceProfile } from '../../browser/device-profile';
import { timeBound } from '../../browser/time-bound';
import { hadServiceWorker } from '../../egress/fenced-context';
import type { UpstreamProxy } from '../../egress/upstream-proxy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { ContextWiring } from '../run/context-wiring';
import type { RunMode } from '../run/network-guard';
import { stopWatchingTabs } from '../tabs/run-tabs';

/**
 * Browser contexts kept warm between runs of the same connection, as a person's browser stays open between two
 * visits. A fresh context costs Chromium a new storage partition and a page per origin to load localStorage into, then
 * the fence and the device are installed; a warm one skips all of that and keeps the provider's cached scripts and
 * styles. Only a context whose state is exactly the connection's stored session is reused (the digest of the session
 * it was sealed back with equals the stored one), so a session changed anywhere else (a re-link, a health check,
 * another process's run) is never overridden by an older one; and only for runs alike in everything its fence and
 * device were built from (`warmKey`). Between runs it has no page and its fence refuses every request
 * (context-wiring.ts); it is closed after `idleMs` unused, and the oldest goes first beyond `max`. A context a service
 * worker ran in is never kept: the worker outlives the pages and would act, with the session, in the next run.
 */
export interface WarmContext {
  context: BrowserContext;
  wiring: ContextWiring;
  key: string;
  /** Whose session it holds: closed at once when that connection is revoked here (dropConnection). */
  connectionId?: string;
  /**
   * A context prepared ahead (fresh mode) has its run's tab opened with it, blank (no site's document was ever in it):
   * Chromium's page and renderer set-up, the largest part of opening a context, is then done before the run too.
   */
  page?: Page;
}

/** Pages in a kept context other than the blank tab it was prepared with: any is a page something else opened. */
const strayPages = (warm: WarmContext) => warm.context.pages().some((p) => p !== warm.page) || !!warm.page?.isClosed();

export interface WarmSettings {
  /** How long an unused context is kept (0: never kept, every run opens its own). */
  idleMs: number;
  /** Contexts kept unused at once in this process. */
  max: number;
  /**
   * `fresh`: a run's own context is never kept; a new one, which no page has ever run in, is opened for the next run of the
   * key as the run ends, loaded with the session just sealed (prepare). `reuse` (default here): the run's context is kept.
   */
  mode?: 'reuse' | 'fresh';
}

interface Idle {
  warm: WarmContext;
  digest: string;
  timer: NodeJS.Timeout;
  /** Not handed out before: what the closed pages still send (an unload beacon) must reach no run. */
  readyAt: number;
  /** A page appeared in it (a popup opened as the pages closed): it is never handed out. */
  spoiled: boolean;
  offPage: () => void;
}

const PAGES_CLOSE_MS = 5_000;
/**
 * How long a kept context rests before a run may take it, and how quiet its fence must have been: a page's unload
 * handlers (sendBeacon, keep-alive fetch) send after the page is gone, and those requests must be refused as no run's,
 * not judged and counted as the next run's. 400 ms let none through in the review's trials; 500 ms leaves a margin.
 */
const REST_MS = 500;
const QUIET_MS = 250;
/** The key is an HMAC under a key of this process: it hashes the exit proxy's settings (credentials included). */
const KEY_SECRET = randomBytes(32);

/** What a context is opened for: runs that differ in any of these never share one. */
export function warmKey(parts: {
  connectionId: string;
  environment: string;
  mode: RunMode | undefined;
  provider: Pick<ProviderDefinition, 'providerId' | 'homeUrl' | 'allowedOrigins' | 'identityProviders' | 'source' | 'sessionRefresh'>;
  device: DeviceProfile | null;
  exitProxy: UpstreamProxy | null;
  /** Whether its requests are signed (Web Bot Auth): a context of the other kind never serves the run. */
  signed?: boolean;
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
  return createHmac('sha256', KEY_SECRET)
    .update(
      JSON.stringify([
        parts.connectionId,
        parts.environment,
        parts.mode ?? 'read_write',
        fence,
        parts.device,
        parts.exitProxy,
        parts.signed ?? false,
      ]),
    )
    .digest('base64');
}

export class WarmContexts {
  /** Oldest first. */
  private readonly idle: Idle[] = [];
  private readonly watched = new WeakSet<BrowserContext>();
  /** Contexts whose pages are closing on their way into the pool: a connection's session ending meanwhile spoils them. */
  private readonly arriving = new Set<Idle>();
  /** Contexts being opened ahead for a key (prepare): a connection's session ending meanwhile spoils them. */
  private readonly preparing = new Map<string, { connectionId?: string; spoiled: boolean; done: Promise<unknown> }>();
  private closed = false;

  constructor(private readonly settings: WarmSettings) {}

  /** Whether runs hand their context back (keep) or a fresh one is prepared for the next run (prepare). */
  get fresh(): boolean {
    return this.settings.mode === 'fresh';
  }

  /**
   * Opens, beside the run that just ended, a context for the next run of `key` holding the session of `digest` (what the
   * connection has stored now), and keeps it unused: the next run skips the context's opening, the session's loading and
   * the fence's installation. No page has run in it and no run's state is in it: it is what that run would open itself,
   * opened earlier. Its fence refuses every request until a run takes it (context-wiring.ts). At most one at a time per key.
   */
  prepare(key: string, digest: string, connectionId: string | undefined, open: () => Promise<WarmContext>): void {
    if (!this.enabled || !key || this.preparing.has(key)) return;
    const ticket = { connectionId, spoiled: false, done: Promise.resolve() as Promise<unknown> };
    this.preparing.set(key, ticket);
    ticket.done = open().then(
      (warm) => {
        this.preparing.delete(key);
        if (ticket.spoiled || !this.enabled || !isOpen(warm.context) || strayPages(warm)) return void closeQuietly(warm.context);
        const entry: Idle = {
          warm,
          digest,
          timer: undefined as unknown as NodeJS.Timeout,
          readyAt: Date.now(),
          spoiled: false,
          offPage: () => {},
        };
        const onPage = () => {
          entry.spoiled = true;
          const at = this.idle.indexOf(entry);
          if (at >= 0) this.drop(at);
        };
        warm.context.on('page', onPage);
        entry.offPage = () => warm.context.off('page', onPage);
        this.watched.add(warm.context);
        warm.context.once('close', () => this.forget(warm.context));
        this.rearm(entry);
        this.idle.push(entry);
        while (this.idle.length > this.settings.max) this.drop(0);
      },
      () => this.preparing.delete(key), // the next run opens its own
    );
  }

  get enabled(): boolean {
    return !this.closed && this.settings.idleMs > 0 && this.settings.max > 0;
  }

  /** Contexts waiting unused now. */
  get size(): number {
    return this.idle.length;
  }

  /**
   * Waits for a context being prepared for `key` (a run that comes as the last one ends would otherwise open a second one
   * beside it), at most `maxMs`.
   */
  async prepared(key: string, maxMs = PAGES_CLOSE_MS): Promise<void> {
    const ticket = this.preparing.get(key);
    if (ticket) await timeBound(ticket.done, maxMs).catch(() => undefined);
  }

  /**
   * An unused context opened for `key` whose state is the session of `digest`, taken out of the pool; null when none.
   * Those of `key` left with another session are closed: the stored session moved on without them.
   */
  take(key: string, digest: string): WarmContext | null {
    const now = Date.now();
    let found: Idle | null = null;
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const entry = this.idle[i];
      if (entry.warm.key !== key) continue;
      const { context, wiring } = entry.warm;
      const stale = entry.digest !== digest || entry.spoiled || !isOpen(context) || strayPages(entry.warm) || hadServiceWorker(context);
      if (stale) {
        this.drop(i);
        continue;
      }
      // Resting, or something of the last run still reached its fence lately: left for a later run.
      if (found || now < entry.readyAt || now - wiring.lastIdleActivity < QUIET_MS) continue;
      found = entry; // the newest ready one: the fewest contexts stay in use
    }
    if (!found) return null;
    this.idle.splice(this.idle.indexOf(found), 1);
    clearTimeout(found.timer);
    found.offPage();
    return found.warm;
  }

  /**
   * Keeps a context for the next run of its key, its state being the session of `digest`: its pages are closed first
   * (while the run still holds its fence: whatever they send as they go is the run's), then the run lets go of it.
   * A context whose pages do not close in time, or that the pool has no room or use for, is closed instead.
   */
  async keep(warm: WarmContext, digest: string, stillUsable: () => boolean = () => true): Promise<void> {
    const { context } = warm;
    warm.page = undefined; // the tab it was prepared with (fresh mode) was the run's, and closes with the others
    // Watched from before the pages close: a popup that opens meanwhile is listed only once set up, after the check below.
    const entry: Idle = { warm, digest, timer: undefined as unknown as NodeJS.Timeout, readyAt: 0, spoiled: false, offPage: () => {} };
    const onPage = () => {
      entry.spoiled = true;
      const at = this.idle.indexOf(entry);
      if (at >= 0) this.drop(at);
    };
    context.on('page', onPage);
    entry.offPage = () => context.off('page', onPage);
    this.arriving.add(entry);
    try {
      if (!this.enabled || !warm.key || !isOpen(context) || hadServiceWorker(context)) throw new Error('not kept');
      await timeBound(Promise.all(context.pages().map((p) => p.close())), PAGES_CLOSE_MS);
      // What the pages did as they closed (an unload write refused in read mode) still counts against the run. From this
      // check to the pool nothing waits: a connection revoked meanwhile has spoiled the entry (dropConnection).
      // A service worker outlives the pages and would act in the next run with the session: never kept, closed.
      if (context.pages().length > 0 || entry.spoiled || !stillUsable() || hadServiceWorker(context)) throw new Error('not kept');
    } catch {
      this.arriving.delete(entry);
      entry.offPage();
      warm.wiring.detach();
      stopWatchingTabs(context);
      await closeQuietly(context);
      return;
    }
    this.arriving.delete(entry);
    warm.wiring.detach();
    stopWatchingTabs(context);
    if (!this.enabled) {
      entry.offPage();
      return void (await closeQuietly(context));
    }
    if (!this.watched.has(context)) {
      this.watched.add(context);
      // The browser went away (or something closed it): nothing to keep.
      context.once('close', () => this.forget(context));
    }
    entry.readyAt = Date.now() + REST_MS;
    this.rearm(entry);
    this.idle.push(entry);
    while (this.idle.length > this.settings.max) this.drop(0);
  }

  /** How many unused contexts hold the session of `connectionId`. */
  heldFor(connectionId: string): number {
    return this.idle.filter((entry) => entry.warm.connectionId === connectionId).length;
  }

  /** Closes the unused contexts of a connection whose session ended (revoked, LOGIN_REQUIRED). */
  dropConnection(connectionId: string): void {
    for (const entry of this.arriving) if (entry.warm.connectionId === connectionId) entry.spoiled = true;
    for (const ticket of this.preparing.values()) if (ticket.connectionId === connectionId) ticket.spoiled = true;
    for (let i = this.idle.length - 1; i >= 0; i--) if (this.idle[i].warm.connectionId === connectionId) this.drop(i);
  }

  /** Keeps contexts again (the worker starts). */
  open(): void {
    this.closed = false;
  }

  /** Closes every unused context and keeps none until `open` (the worker is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    for (const ticket of this.preparing.values()) ticket.spoiled = true;
    const all = this.idle.splice(0);
    for (const entry of all) {
      clearTimeout(entry.timer);
      entry.offPage();
    }
    await Promise.all(all.map((entry) => closeQuietly(entry.warm.context)));
  }

  /** Takes entry `at` out of the pool and closes its context. */
  private drop(at: number) {
    const [entry] = this.idle.splice(at, 1);
    clearTimeout(entry.timer);
    entry.offPage();
    void closeQuietly(entry.warm.context);
  }

  private rearm(entry: Idle) {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      const at = this.idle.indexOf(entry);
      if (at >= 0) this.drop(at);
    }, this.settings.idleMs);
    entry.timer.unref();
  }

  private forget(context: BrowserContext) {
    const at = this.idle.findIndex((entry) => entry.warm.context === context);
    if (at < 0) return;
    const [entry] = this.idle.splice(at, 1);
    clearTimeout(entry.timer);
    entry.offPage();
  }
}

function isOpen(context: BrowserContext): boolean {
  const browser = context.browser();
  return !browser || browser.isConnected();
}

async function closeQuietly(context: BrowserContext): Promise<void> {
  await timeBound(context.close(), PAGES_CLOSE_MS).catch(() => undefined);
}
