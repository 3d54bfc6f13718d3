import type { BrowserContext, Frame, Request } from 'playwright-core';

import type { EgressPolicy } from '../../egress/egress-policy';
import type { ChangeGate, EgressBlock } from '../../egress/egress-proxy';
import { reportUnfinishedMessages } from '../../egress/fenced-context';
import { isReadOnlyRequest } from '../../egress/read-only';
import type { ProviderDefinition } from '../../providers/provider';
import type { BlockedDetail } from './block-cause';
import type { TraceStep } from './context';
import type { RunIntegrity } from './integrity';

/**
 * An agent run's fence is the context's egress proxy (server/egress/): it sees every connection of every realm (pages,
 * frames, popups, dedicated, shared and service workers, beacons, fetchLater, WebSockets, redirect hops), decides there
 * what a read-mode run may send (`changeGate`), and counts there the changes sent. Here, the page's view adds what
 * only it can see for the pages it knows (watchRefusals): the frame and kind of each refused request, so the trace says
 * what was refused and whether the run tried to leave the provider.
 */
export interface BlockedRequest extends BlockedDetail {
  url: string;
  resourceType: string;
  /** A navigation of the top frame (the run tried to leave the provider), not a sub-resource. */
  mainFrameNavigation: boolean;
  reason: string;
}

/** How much of a blocked request's body is kept to judge what it carried (block-cause.ts). */
const BODY_KEPT = 64 * 1024;

export type RunMode = 'read' | 'read_write';

const REPORTED_MAX = 500;

/**
 * One report per blocked URL (the proxy, the page and a retrying browser may each see the same refusal), except
 * that a report naming a top-frame navigation always goes through (it decides how the run fails), and so does the
 * first repeat the run caused after noise (a WebSocket's messages share one URL: the page's own subscribe at load is
 * listed as noise, a later message carrying a parameter as the taint it is). `judge` sees every report (one the run
 * caused taints it, whichever of the repeats says so); `onBlocked` is told what to list.
 */
export function blockReporter(
  onBlocked: (b: BlockedRequest, cause: string | null) => void,
  judge: (b: BlockedRequest) => string | null = () => 'blocked',
) {
  const seen = new Map<string, { navigation: boolean; caused: boolean }>();
  return (b: BlockedRequest) => {
    const cause = judge(b);
    const before = seen.get(b.url);
    if (before && (before.navigation || !b.mainFrameNavigation) && (before.caused || !cause)) return;
    if (seen.size < REPORTED_MAX || before) {
      seen.set(b.url, { navigation: !!before?.navigation || b.mainFrameNavigation, caused: !!before?.caused || !!cause });
    }
    onBlocked(b, cause);
  };
}

/**
 * A blocked request as the trace lists it: every one is listed; one the run did not cause says it is background noise
 * (the page's own request, blocked, not a taint).
 */
export function blockedStep(b: BlockedRequest, cause: string | null, url: string): TraceStep {
  return {
    tool: b.mainFrameNavigation ? 'navigate' : 'request',
    target: `${b.resourceType} ${b.url.slice(0, 300)}`,
    url,
    durationMs: 0,
    outcome: 'blocked',
    error: cause ? `blocked: ${b.reason}` : `blocked: ${b.reason} (the page's background request, not the run's: not a taint)`,
  };
}

/**
 * The proxy's refusals, in the trace's terms: a refused write or message names the realm that sent it. The body of a
 * held message is kept for the judge only: the trace's step (blockedStep) never shows it.
 */
export function fromProxy(block: EgressBlock): BlockedRequest {
  return {
    url: block.url,
    resourceType: block.realm ? `${block.kind} (${block.realm})` : block.kind,
    mainFrameNavigation: false,
    reason: block.reason,
    source: 'proxy',
    proxyKind: block.kind,
    offProvider: block.kind === 'request' || block.kind === 'tunnel',
    ...(block.method ? { method: block.method } : {}),
    // A message read mode held, with what it carried: judged by that (block-cause.ts), not refused blind.
    ...(block.message ? { heldMessage: true, body: block.message.text, ...(block.message.cut ? { bodyCut: true } : {}) } : {}),
  };
}

/** Whether a write is one the provider declared its session refresh needs (allowed even in read mode). */
function isSessionRefresh(refresh: ProviderDefinition['sessionRefresh'], method: string, url: string | URL): boolean {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return false;
  }
  return (refresh ?? []).some((r) => r.method.toUpperCase() === method && r.path === path);
}

const readModeRefusal = (method: string) => `read mode: ${method} requests are not sent`;

/**
 * What a run may change, for the egress proxy: in read mode, nothing but the provider's declared session-refresh
 * writes, and no WebSocket message; in read_write mode, anything the egress policy lets through, each write held for
 * the user's approval first when `approve` is given (the session-refresh writes excepted: they keep the session alive).
 */
export function changeGate(
  mode: RunMode | undefined,
  sessionRefresh?: ProviderDefinition['sessionRefresh'],
  approve?: ChangeGate['approve'],
): ChangeGate | undefined {
  if (mode === 'read') {
    return {
      request: (method, url) => (isSessionRefresh(sessionRefresh, method, url) ? null : readModeRefusal(method)),
      webSocketMessages: 'read mode: WebSocket messages are not sent',
    };
  }
  if (!approve) return undefined;
  return {
    request: () => null,
    webSocketMessages: null,
    approve: (write, signal) =>
      write.method !== 'WEBSOCKET' && isSessionRefresh(sessionRefresh, write.method, write.url)
        ? Promise.resolve(null)
        : approve(write, signal),
  };
}

/**
 * A run is judged (RunIntegrity: clean, taints, summary) only once `context`'s fence has reported every WebSocket
 * message its pages began and left unfinished, their sockets still open: read mode holds them, and one that cannot be
 * read whole taints the run (block-cause.ts). Without this a page could keep a socket open mid-message past the run's
 * end, be judged when it closes, after the run was recorded for replay. A kept context (warm-contexts.ts) reports to the
 * run holding it, the one being judged.
 */
export function judgeUnfinishedMessages(integrity: RunIntegrity, context: BrowserContext): void {
  integrity.beforeJudging(() => reportUnfinishedMessages(context));
}

/** A URL as the browser sends it: without the user name and password it may carry (used for HTTP auth, never sent). */
function asSent(text: string): string {
  try {
    const url = new URL(text);
    if (!url.username && !url.password) return text;
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return text;
  }
}

/**
 * The page's view of the requests the fence refuses: for each request a page, frame, popup or dedicated worker of
 * `context` sends that the egress proxy will refuse (the same policy and read-mode rule the proxy applies), a report
 * with what only the page knows: its frame (a top-frame navigation decides how the run fails), kind, method and body,
 * which say whether the run caused it (block-cause.ts). It watches and never intercepts: the proxy refuses. Routing
 * every request through Playwright (`context.route`) to refuse it there first cost each request a round trip between
 * the browser and this process, disabled the browser's cache, and refused nothing the proxy lets through.
 * Its reports and the proxy's meet in refusal-join.ts, so a refusal is listed once.
 */
export function watchRefusals(
  context: BrowserContext,
  opts: {
    policy: EgressPolicy;
    /** The provider's declared session-refresh writes (allowed in read mode). */
    sessionRefresh?: ProviderDefinition['sessionRefresh'];
    mode?: RunMode;
    mainFrame: () => Frame | undefined;
    report: (b: BlockedRequest) => void;
  },
): void {
  const readOnly = opts.mode === 'read';
  const isMainNavigation = (request: Request) => {
    try {
      return request.isNavigationRequest() && request.frame() === opts.mainFrame();
    } catch {
      return false; // a request of a worker or a closed frame
    }
  };
  const reason = (request: Request): { why: string; offProvider: boolean } | null => {
    const url = asSent(request.url());
    const verdict = opts.policy.checkUrl(url, { pageLocal: true, webSockets: true });
    if (!verdict.ok) return { why: verdict.reason, offProvider: true };
    const method = request.method().toUpperCase();
    if (!readOnly || isSessionRefresh(opts.sessionRefresh, method, url)) return null;
    // Playwright's headers leave out the body's length: the body itself says whether there is one.
    const body = request.postDataBuffer();
    const headers = { ...request.headers(), ...(body?.length ? { 'content-length': String(body.length) } : {}) };
    if (!isReadOnlyRequest(method, headers)) return { why: readModeRefusal(method), offProvider: false };
    return null;
  };
  /** What the page knows of a request: the judge of its cause reads its method, body and frame. */
  const detail = (request: Request): Omit<BlockedRequest, 'reason' | 'offProvider'> => {
    let body: string | undefined;
    let bodyCut = false;
    try {
      const buf = request.postDataBuffer();
      bodyCut = !!buf && buf.length > BODY_KEPT;
      body = buf?.subarray(0, BODY_KEPT).toString('utf8');
    } catch {
      body = undefined;
    }
    return {
      url: request.url(),
      resourceType: request.resourceType(),
      mainFrameNavigation: isMainNavigation(request),
      source: 'page',
      navigation: request.isNavigationRequest(),
      method: request.method(),
      ...(body ? { body } : {}),
      ...(bodyCut ? { bodyCut } : {}),
    };
  };

  context.on('request', (request) => {
    const refused = reason(request);
    if (!refused) return;
    // A redirect hop is a request of its own (the proxy refuses it too): the trace says it came from a redirect.
    const why = request.redirectedFrom() ? `redirect: ${refused.why}` : refused.why;
    opts.report({ ...detail(request), reason: why, offProvider: refused.offProvider });
  });
}
