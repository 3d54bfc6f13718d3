import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

import type { EgressPolicy } from './egress-policy';
import { type ChangeGate, type ChangeSent, type EgressBlock, type EgressProxy, PROXY_BYPASS, startEgressProxy } from './egress-proxy';
import type { Resolver } from './resolve';
import type { UpstreamProxy } from './upstream-proxy';

/** What opening a fenced context needs of the browser manager. */
export interface ContextSource {
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /**
   * False for a browser this process did not launch (BROWSER_WS_ENDPOINT): it cannot be told to accept the proxy's
   * interception CA alone, so its fenced contexts skip the browser's own certificate check. Nothing is lost: every
   * connection of such a context ends at the proxy, which verifies the upstream certificate itself.
   */
  readonly trustsInterceptionCa?: boolean;
  /** Extra roots for upstream certificates (AGENTLINK_UPSTREAM_CA_FILE). */
  readonly upstreamCa?: readonly string[];
  /** The running Chromium's version (browser.version()), which a device's user agent must report. */
  browserVersion?(): Promise<string>;
}

/**
 * Who the context says it is (a connection's device, server/browser/device-identity.ts): its context options, what it
 * sets on each page, and the identity headers the egress proxy sets on every request of every realm.
 */
export interface ContextIdentity {
  options: BrowserContextOptions;
  rewriteHeaders(headers: Record<string, string | string[]>): void;
  preparePage(page: Page): Promise<void>;
}

export interface FenceOptions {
  policy: EgressPolicy;
  onBlocked(block: EgressBlock): void;
  /** What the context may change (read mode); default: anything the policy lets through. */
  gate?: ChangeGate;
  /** Every request that may change something and every WebSocket message sent, in every realm. */
  onChangeSent?(change: ChangeSent): void;
  resolver?: Resolver;
  upstreamCa?: readonly string[];
  /** The device the context presents; `options` still win over its own (the live view keeps the widget's size). */
  identity?: ContextIdentity;
  /** The proxy the context's traffic leaves through (a connection's exit); each destination is still the policy's. */
  upstreamProxy?: UpstreamProxy;
  options?: BrowserContextOptions;
}

/** Each fenced context's identity, and each page's, being applied: openPage waits for it. */
const identities = new WeakMap<BrowserContext, ContextIdentity>();
const pagesReady = new WeakMap<Page, Promise<void>>();
/** Each fenced context's egress proxy, for reportUnfinishedMessages. */
const proxies = new WeakMap<BrowserContext, EgressProxy>();

/**
 * A browser context whose every connection goes through its own egress proxy (closed with the context). The proxy
 * is where what leaves is decided, for every realm of the context; service workers are blocked anyway (they would
 * outlive the run's pages) and downloads refused; popups and new tabs are pages of the same context, so the same
 * proxy fences them. Open its pages with openPage, so a page is used only once it presents the context's device.
 */
export async function openFencedContext(source: ContextSource, opts: FenceOptions): Promise<BrowserContext> {
  const identity = opts.identity;
  const proxy = await startEgressProxy({
    policy: opts.policy,
    onBlocked: opts.onBlocked,
    gate: opts.gate,
    onChangeSent: opts.onChangeSent,
    resolver: opts.resolver,
    upstreamCa: opts.upstreamCa ?? source.upstreamCa,
    ...(identity ? { rewriteHeaders: (headers: Record<string, string | string[]>) => identity.rewriteHeaders(headers) } : {}),
    ...(opts.upstreamProxy ? { upstreamProxy: opts.upstreamProxy } : {}),
  });
  let context: BrowserContext;
  try {
    context = await source.newContext({
      ...identity?.options,
      ...opts.options,
      proxy: { server: proxy.server, bypass: PROXY_BYPASS },
      serviceWorkers: 'block',
      acceptDownloads: false,
      ...(source.trustsInterceptionCa === false ? { ignoreHTTPSErrors: true } : {}),
    });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  context.once('close', () => void proxy.close());
  proxies.set(context, proxy);
  if (identity) {
    identities.set(context, identity);
    // Popups and tabs the pages open get the page-level identity too (their first request already has it: the proxy).
    context.on('page', (page) => void prepare(page, identity));
  }
  return context;
}

function prepare(page: Page, identity: ContextIdentity): Promise<void> {
  let ready = pagesReady.get(page);
  if (!ready) {
    // A page that closes first, or a browser that goes away, leaves nothing to apply: the page is not used anyway.
    ready = identity.preparePage(page).catch(() => undefined);
    pagesReady.set(page, ready);
  }
  return ready;
}

/** A new page of a fenced context, once it presents the context's device (at once without one). */
export async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const identity = identities.get(context);
  if (identity) await prepare(page, identity);
  return page;
}

/**
 * Read mode: every WebSocket message a page of `context` began and has not finished, its socket still open, is reported
 * now to the fence's `onBlocked` as unreadable (EgressProxy.reportUnfinishedMessages). Called before a run is judged:
 * a page that keeps a socket open mid-message would otherwise be judged only when the socket closes, after the run.
 */
export function reportUnfinishedMessages(context: BrowserContext): void {
  const proxy = proxies.get(context);
  // Fails closed: a context with no fence of ours cannot say what its sockets hold (the run is then judged unclean).
  if (!proxy) throw new Error('the context has no egress proxy of this process');
  proxy.reportUnfinishedMessages();
}
