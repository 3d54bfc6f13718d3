import type { BrowserContext, Locator, Page } from 'playwright-core';

import { hashToken } from '../../server/domain/tokens';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * What the live sign-in tests (live-sign-in*.browser.test.ts) share: a live server with its worker (at most two live
 * sessions, a short idle timeout and step budget) and an organization, started for the calling file by `useLiveSignInServer()`, with a
 * fresh browser context per test (the bindings below are set by its hooks); link tokens and their sessions; the widget
 * opened on its live view; pointing and clicking on the live page through the widget's canvas.
 */
export const IDLE_SECONDS = 10;
export let server: LiveServer;
let org: { clientId: string; sandboxSecret: string };
export let context: BrowserContext;

/** Starts the server for the calling test file; a browser context for each test, closed with its live sessions after it. */
export function useLiveSignInServer(): void {
  beforeAll(async () => {
    server = await startLiveServer({
      worker: true,
      env: {
        AGENTLINK_LIVE_MAX_SESSIONS: '2',
        AGENTLINK_LIVE_IDLE_SECONDS: String(IDLE_SECONDS),
        // A recipe that meets a page it does not know hands it over after this (20 s by default): half, still ample
        // for a sandbox page on a busy machine.
        AGENTLINK_LOGIN_STEP_SECONDS: '10',
      },
    });
    const created = await server.services.organizations.create('Reading Buddy');
    org = { clientId: created.clientId, sandboxSecret: created.sandboxSecret };
  });

  afterAll(async () => {
    await server?.services.loginEngine.close();
    await server?.close();
  });

  beforeEach(async () => {
    context = await server.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
    context.setDefaultTimeout(30_000);
  });

  afterEach(async () => {
    await context?.close();
    await server.services.liveSignIn.closeAll();
  });
}

export const api = (p: string) => `${server.baseUrl}${p}`;
export const clientHeaders = () => ({
  'content-type': 'application/json',
  'x-client-id': org.clientId,
  'x-client-secret': org.sandboxSecret,
});

export async function createLinkToken(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(api('/api/link-token'), {
    method: 'POST',
    headers: clientHeaders(),
    body: JSON.stringify({ clientUserId: 'reader-1', providerId: LUMEN_PROVIDER_ID, ...body }),
  });
  const json = (await res.json()) as { linkToken: string };
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(json)}`);
  return json.linkToken;
}

export async function linkSessionOf(linkToken: string) {
  const token = (await server.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
  const sessions = await server.services.store.repos.linkSessions.listForLinkToken(token.id);
  return sessions[sessions.length - 1];
}

/** Opens the widget at /link?token=…, agrees, and waits until the live view streams the provider's page. */
export async function openLiveWidget(linkToken: string, viewport = { width: 420, height: 820 }): Promise<{ widget: Page; id: string }> {
  const widget = await context.newPage();
  await widget.setViewportSize(viewport);
  await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
  await widget.getByRole('button', { name: 'Continue' }).click();
  await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
  await expectStatus(widget, 'LIVE');
  await waitForFrames(widget, 1);
  return { widget, id: (await linkSessionOf(linkToken)).id };
}

export async function expectStatus(widget: Page, code: string, timeout = 30_000): Promise<void> {
  await widget.locator(`#al-live-status[data-code="${code}"]`).waitFor({ state: 'attached', timeout });
}

export async function waitForFrames(widget: Page, atLeast: number): Promise<void> {
  await widget.waitForFunction(
    (n) => (window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive!.frames >= n,
    atLeast,
  );
}

/** The live page (what the person sees); only for knowing where to point. */
export function livePage(id: string): Page {
  const page = server.services.liveSignIn.inspect(id);
  if (!page) throw new Error(`no live page for ${id}`);
  return page;
}

/** Points at what `selector` matches on the live page, through the widget's canvas (scaled), and clicks. */
export async function clickOnStream(widget: Page, id: string, selector: string): Promise<void> {
  await clickOnStreamIn(widget, widget.locator('#al-live-canvas'), id, selector);
}

export async function clickOnStreamIn(page: Page, canvasLocator: Locator, id: string, selector: string): Promise<void> {
  const target = livePage(id).locator(selector).first();
  await target.waitFor({ state: 'visible' });
  const box = (await target.boundingBox())!;
  const viewport = livePage(id).viewportSize()!;
  const canvas = (await canvasLocator.boundingBox())!;
  const x = canvas.x + ((box.x + box.width / 2) * canvas.width) / viewport.width;
  const y = canvas.y + ((box.y + box.height / 2) * canvas.height) / viewport.height;
  await page.mouse.click(x, y);
}

/**
 * What the live page shows its scripts of its screen, window and pixel ratio, read in an isolated world (where neither
 * the page's scripts nor the device's own can answer): [screen.width, screen.height, innerWidth, innerHeight, ratio].
 */
export async function pageMetrics(id: string): Promise<number[]> {
  const cdp = await livePage(id).context().newCDPSession(livePage(id));
  try {
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id });
    const { result } = await cdp.send('Runtime.evaluate', {
      expression: '[screen.width, screen.height, innerWidth, innerHeight, devicePixelRatio]',
      contextId: executionContextId,
      returnByValue: true,
    });
    return result.value as number[];
  } finally {
    await cdp.detach().catch(() => undefined); // this session set nothing: its detach takes nothing from the page
  }
}

/** Polls `read` until `ok` holds (then returns the value) or fails with the last value seen. */
export async function eventually<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
