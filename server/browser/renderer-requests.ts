import type { CDPSession, Page } from 'playwright-core';

/**
 * A page's requests as its renderer announces them (DevTools Network.requestWillBeSent, sent as the page's script calls
 * fetch()), for settling after an action (page-quiet.ts).
 *
 * Why not Playwright's 'request' event alone: while a context has a route (page.route, context.route), Playwright
 * reports a request only once Chromium's browser process has also paused it for the route (Fetch.requestPaused). On a
 * loaded machine that came after the DOM had been still for the quiet window: a filter chip that fetches, then renders,
 * was read as settled with the old list in place (a wrong count, once, in CI). The renderer's own announcement comes
 * while the click's handler runs, before any quiet window can end.
 */
export interface RequestSink {
  started(page: Page, id: string): void;
  ended(page: Page, id: string): void;
}

/** The renderer's resource types waited for: what a page's content comes from (page-quiet.ts's TRACKED_TYPES). */
const TRACKED = new Set(['Document', 'Fetch', 'XHR']);

/**
 * Buffers of our own session kept at their smallest: it reads no bodies (Playwright's session keeps its own).
 * maxPostDataSize 0: no request body is copied into our events.
 */
const ENABLE = { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 };

const watched = new WeakSet<Page>();

/**
 * Follows `page`'s renderer-announced requests into `sink` (idempotent per page). The session is never detached, it
 * ends with the page: a detach would take the page's WebAuthn environment with it (webauthn-environment.ts). A page
 * that closes first, or a browser that is not Chromium, is simply not followed: Playwright's events still are.
 */
export function watchRendererRequests(page: Page, sink: RequestSink): void {
  if (watched.has(page) || page.isClosed()) return;
  watched.add(page);
  void page
    .context()
    .newCDPSession(page)
    .then((cdp) => follow(page, cdp, sink))
    .catch(() => undefined);
}

async function follow(page: Page, cdp: CDPSession, sink: RequestSink): Promise<void> {
  /** Open requests, by id, with the document (loader) they belong to. */
  const open = new Map<string, string>();
  const end = (id: string) => {
    if (open.delete(id)) sink.ended(page, id);
  };
  // A page target's main frame has the target's id.
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  cdp.on('Network.requestWillBeSent', (e) => {
    // A new document in the top frame: what the old one still had open ends with it. Ended here, at the navigation's
    // start, not left to the old document's own events: those may never come once another process takes the page.
    if (e.type === 'Document' && e.frameId === targetInfo.targetId) for (const [id, loader] of open) if (loader !== e.loaderId) end(id);
    // A redirect hop keeps its id: one request until its last hop ends. A frame's document is not followed: a
    // cross-site frame's load ends in that frame's own session, never seen here (Playwright's events cover frames).
    if (!TRACKED.has(e.type ?? '') || open.has(e.requestId)) return;
    if (e.type === 'Document' && e.frameId !== targetInfo.targetId) return;
    open.set(e.requestId, e.loaderId);
    sink.started(page, e.requestId);
  });
  cdp.on('Network.loadingFinished', (e) => end(e.requestId));
  cdp.on('Network.loadingFailed', (e) => end(e.requestId));
  page.once('close', () => {
    for (const id of [...open.keys()]) end(id);
  });
  await cdp.send('Network.enable', ENABLE);
}
