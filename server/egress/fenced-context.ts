import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

import type { EgressPolicy } from './egress-policy';
import { type ChangeGate, type ChangeSent, type EgressBlock, type EgressProxy, PROXY_BYPASS, startEgressProxy } from './egress-proxy';
import type { RequestSigner } from './request-signing';
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
 * Who the context says it is (a connection's device, server/browser/device-identity.ts): its context options, the
 * script every realm runs first (each document, through the context's init script; each worker script, through the
 * egress proxy), and the identity headers the egress proxy sets on every request of every realm. Nothing goes through a
 * DevTools session of its own, which another session (the observation's, the live view's) could undo.
 */
export interface ContextIdentity {
  options: BrowserContextOptions;
  rewriteHeaders(headers: Record<string, string | string[]>): void;
  script: string;
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
  /** Signs every request the context sends (Web Bot Auth): only where its organization and provider opted in. */
  signer?: RequestSigner;
  /** Destinations the proxy answers 403 without sending (EgressProxyOptions.skipDestinations). */
  skipDestinations?: ReadonlySet<string>;
  options?: BrowserContextOptions;
}

/** Fenced contexts in which a service worker has run (it may run again, woken by its registration). */
const withServiceWorkers = new WeakSet<BrowserContext>();

/**
 * Whether a service worker runs or has run in `context`: such a context must not serve another run (warm-contexts.ts),
 * since its worker lives on between runs and would act, with the session, during the next one.
 */
export function hadServiceWorker(context: BrowserContext): boolean {
  return withServiceWorkers.has(context) || context.serviceWorkers().length > 0;
}

/** Each fenced context's egress proxy, for reportUnfinishedMessages. */
const proxies = new WeakMap<BrowserContext, EgressProxy>();

/**
 * A browser context whose every connection goes through its own egress proxy (closed with the context). The proxy
 * is where what leaves is decided, for every realm of the context: service workers are allowed, as in any browser
 * (Playwright's "block" replaces `register` with a script stub a site can see), since their requests leave through
 * the same proxy and they end with the context; downloads are refused; popups and new tabs are pages of the same
 * context, so the same proxy fences them and the same init script gives them the device.
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
    ...(identity
      ? { rewriteHeaders: (headers: Record<string, string | string[]>) => identity.rewriteHeaders(headers), workerPrelude: identity.script }
      : {}),
    ...(opts.upstreamProxy ? { upstreamProxy: opts.upstreamProxy } : {}),
    ...(opts.signer ? { signer: opts.signer } : {}),
    ...(opts.skipDestinations ? { skipDestinations: opts.skipDestinations } : {}),
  });
  let context: BrowserContext;
  try {
    context = await source.newContext({
      ...identity?.options,
      ...opts.options,
      proxy: { server: proxy.server, bypass: PROXY_BYPASS },
      serviceWorkers: 'allow',
      acceptDownloads: false,
      ...(source.trustsInterceptionCa === false ? { ignoreHTTPSErrors: true } : {}),
    });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  context.once('close', () => void proxy.close());
  context.on('serviceworker', () => withServiceWorkers.add(context));
  proxies.set(context, proxy);
  try {
    // Once, for the context: every document of every page, popup and frame runs it before its own scripts.
    if (identity) await context.addInitScript({ content: identity.script });
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
  return context;
}

/** A new page of a fenced context (its device is the context's: nothing to wait for per page). */
export async function openPage(context: BrowserContext): Promise<Page> {
  return context.newPage();
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
