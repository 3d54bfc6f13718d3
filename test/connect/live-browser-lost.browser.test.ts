import type { Browser, BrowserContext, Page } from 'playwright-core';

import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * A browser that dies is noticed by the live sign-in: the person is told at once ("The sign-in page stopped; try
 * again"), the view ends (no frozen picture that answers nothing), a metric counts it, and trying again opens the
 * sign-in page in a fresh browser. The widget runs in a browser of its own: the one killed is AgentLink's.
 */
jest.setTimeout(90_000);

let server: LiveServer;
let widgetBrowser: Browser;
let widgetContext: BrowserContext;
let org: { clientId: string; sandboxSecret: string };

beforeAll(async () => {
  server = await startLiveServer({ worker: true });
  const created = await server.services.organizations.create('Reading Buddy');
  org = { clientId: created.clientId, sandboxSecret: created.sandboxSecret };
  widgetBrowser = await startBrowser();
  widgetContext = await widgetBrowser.newContext({ viewport: { width: 420, height: 820 } });
  widgetContext.setDefaultTimeout(30_000);
});

afterAll(async () => {
  await widgetBrowser?.close();
  await server?.services.liveSignIn.closeAll();
  await server?.close();
});

async function linkToken(): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/link-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret },
    body: JSON.stringify({ clientUserId: 'reader-1', providerId: LUMEN_PROVIDER_ID }),
  });
  return ((await res.json()) as { linkToken: string }).linkToken;
}

const status = (widget: Page, code: string) => widget.locator(`#al-live-status[data-code="${code}"]`).waitFor({ state: 'attached' });
const frames = (widget: Page) =>
  widget.evaluate(() => (window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0);
const lostCount = async () => {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(/^agentlink_browser_lost_total (\d+)$/m.exec(text)?.[1]);
};

it('tells the person at once when AgentLink’s browser dies, counts it, and a retry signs in on a fresh browser', async () => {
  const widget = await widgetContext.newPage();
  await widget.goto(`${server.baseUrl}/link?token=${encodeURIComponent(await linkToken())}`);
  await widget.getByRole('button', { name: 'Continue' }).click();
  await status(widget, 'LIVE');
  await widget.waitForFunction(() => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1);
  const [linkSessionId] = [...(server.services.liveSignIn as unknown as { sessions: Map<string, unknown> }).sessions.keys()];
  const live = server.services.liveSignIn.inspect(linkSessionId)!;
  const before = await lostCount();

  // A real crash of the browser process (what a page's navigator.credentials call did before it had an environment).
  const cdp = await live.context().browser()!.newBrowserCDPSession();
  void cdp.send('Browser.crash').catch(() => undefined);

  await status(widget, 'LIVE_PAGE_STOPPED');
  expect(await widget.locator('#al-live-status').textContent()).toBe('The sign-in page stopped; try again.');
  await widget.locator('#al-live-retry').waitFor({ state: 'visible' });
  expect(server.services.liveSignIn.has(linkSessionId)).toBe(false);
  expect(await lostCount()).toBe(before + 1);

  // Trying again opens the sign-in page in a new browser (the dead one was let go).
  await widget.locator('#al-live-retry').click();
  await status(widget, 'LIVE');
  await widget.waitForFunction(() => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1);
  expect(await frames(widget)).toBeGreaterThan(0);
  const again = server.services.liveSignIn.inspect(linkSessionId)!;
  expect(again.context().browser()!.isConnected()).toBe(true);
  expect(again.context().browser()).not.toBe(live.context().browser());
});
