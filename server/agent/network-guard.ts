import type { BrowserContext, Frame, Page, Request } from 'playwright-core';

import type { EgressPolicy } from '../egress/egress-policy';
import type { EgressBlock } from '../egress/egress-proxy';
import type { ProviderDefinition } from '../providers/provider';

/**
 * The page-level half of an agent run's fence. The guarantee is the context's egress proxy (server/egress/), which
 * sees every connection, redirect hops included. Here, Playwright's routing adds what only it can see: the frame and
 * kind of each request, so the trace says what was refused and whether the run tried to leave the provider; and in
 * read mode, the method of every request (also inside https tunnels) and each WebSocket message the page sends.
 */
export interface BlockedRequest {
  url: string;
  resourceType: string;
  /** A navigation of the top frame (the run tried to leave the provider), not a sub-resource. */
  mainFrameNavigation: boolean;
  reason: string;
}

export type RunMode = 'read' | 'read_write';

/** Requests that only read: everything else is a write in read mode. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REPORTED_MAX = 500;

/**
 * One report per blocked URL (the proxy, the router and a retrying browser may each see the same refusal), except
 * that a report naming a top-frame navigation always goes through: it decides how the run fails.
 */
export function blockReporter(onBlocked: (b: BlockedRequest) => void) {
  const seen = new Map<string, boolean>();
  return (b: BlockedRequest) => {
    const before = seen.get(b.url);
    if (before !== undefined && (before || !b.mainFrameNavigation)) return;
    if (seen.size < REPORTED_MAX) seen.set(b.url, b.mainFrameNavigation);
    onBlocked(b);
  };
}

/** The proxy's refusals, in the trace's terms. */
export function fromProxy(block: EgressBlock): BlockedRequest {
  return { url: block.url, resourceType: block.kind, mainFrameNavigation: false, reason: block.reason };
}

/** Whether a write is one the provider declared its session refresh needs (allowed even in read mode). */
function isSessionRefresh(refresh: ProviderDefinition['sessionRefresh'], method: string, url: string): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  return (refresh ?? []).some((r) => r.method.toUpperCase() === method && r.path === path);
}

export async function installNetworkGuard(
  context: BrowserContext,
  opts: {
    policy: EgressPolicy;
    /** The provider's declared session-refresh writes (allowed in read mode). */
    sessionRefresh?: ProviderDefinition['sessionRefresh'];
    mode?: RunMode;
    mainFrame: () => Frame | undefined;
    report: (b: BlockedRequest) => void;
    /** Told of every request let through that may change something, and of every WebSocket message a page sends. */
    onChangeSent?: () => void;
  },
): Promise<void> {
  const readOnly = opts.mode === 'read';
  const isMainNavigation = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === opts.mainFrame();
    } catch {
      return false; // a request of a worker or a closed frame
    }
  };
  const reason = (request: Request): string | null => {
    const url = request.url();
    const verdict = opts.policy.checkUrl(url, { pageLocal: true, webSockets: true });
    if (!verdict.ok) return verdict.reason;
    const method = request.method().toUpperCase();
    if (readOnly && !READ_METHODS.has(method) && !isSessionRefresh(opts.sessionRefresh, method, url)) {
      return `read mode: ${method} requests are not sent`;
    }
    return null;
  };

  await context.route('**/*', async (route) => {
    const request = route.request();
    const why = reason(request);
    if (!why) {
      if (!READ_METHODS.has(request.method().toUpperCase())) opts.onChangeSent?.();
      await route.fallback().catch(() => undefined);
      return;
    }
    opts.report({ url: request.url(), resourceType: request.resourceType(), mainFrameNavigation: isMainNavigation(request), reason: why });
    await route.abort('blockedbyclient').catch(() => undefined);
  });

  // Redirect hops never reach the router; the proxy refuses them, and this names them in the trace with their frame.
  context.on('request', (request) => {
    if (!request.redirectedFrom()) return;
    const verdict = opts.policy.checkUrl(request.url(), { pageLocal: true, webSockets: true });
    if (!verdict.ok) {
      opts.report({
        url: request.url(),
        resourceType: request.resourceType(),
        mainFrameNavigation: isMainNavigation(request),
        reason: `redirect: ${verdict.reason}`,
      });
    }
  });

  // In read mode no page message reaches the provider (below), so none can change anything.
  if (opts.onChangeSent && !readOnly) {
    const onChange = opts.onChangeSent;
    const watch = (page: Page) => page.on('websocket', (ws) => ws.on('framesent', onChange));
    context.pages().forEach(watch);
    context.on('page', watch);
  }

  if (readOnly) {
    // The page may open WebSockets (reading a feed) but nothing it sends on them reaches the provider.
    await context.routeWebSocket(/.*/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => ws.send(message));
      ws.onMessage(() => {
        opts.report({
          url: `${ws.url()}#send`,
          resourceType: 'websocket',
          mainFrameNavigation: false,
          reason: 'read mode: WebSocket messages are not sent',
        });
      });
    });
  }
}
