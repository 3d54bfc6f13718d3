import type { Browser, BrowserContext, Page } from 'playwright-core';

import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * The live sign-in, where a site's "Add a passkey" used to kill AgentLink's whole browser: its page's WebAuthn calls
 * now end with NotAllowedError and the sign-in goes on. And a browser that dies anyway is noticed by the live sign-in: the person is told at once ("The sign-in page stopped; try
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

async function openLive(): Promise<{ widget: Page; linkSessionId: string }> {
  const widget = await widgetContext.newPage();
  await widget.goto(`${server.baseUrl}/link?token=${encodeURIComponent(await linkToken())}`);
  await widget.getByRole('button', { name: 'Continue' }).click();
  await status(widget, 'LIVE');
  await widget.waitForFunction(() => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1);
  const open = [...(server.services.liveSignIn as unknown as { sessions: Map<string, unknown> }).sessions.keys()];
  return { widget, linkSessionId: open[open.length - 1] };
}

it('the live sign-in page’s navigator.credentials calls end with NotAllowedError, and the sign-in goes on', async () => {
  const { widget, linkSessionId } = await openLive();
  const live = server.services.liveSignIn.inspect(linkSessionId)!;
  // What the site's own "Add a passkey" and "Sign in with a passkey" buttons do.
  const outcomes = await live.evaluate(async () => {
    const challenge = new Uint8Array(32);
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (e: Error) => e.name,
      );
    return [
      await settle(
        navigator.credentials.create({
          publicKey: {
            challenge,
            rp: { name: 'Lumen' },
            user: { id: new Uint8Array(8), name: 'user_good', displayName: 'Grace' },
            pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
            authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
          },
        }),
      ),
      await settle(
        navigator.credentials.get({ publicKey: { challenge, allowCredentials: [{ type: 'public-key', id: new Uint8Array(16) }] } }),
      ),
      await settle(navigator.credentials.get({ publicKey: { challenge } })),
    ];
  });
  expect(outcomes).toEqual(['NotAllowedError', 'NotAllowedError', 'NotAllowedError']);
  expect(live.context().browser()!.isConnected()).toBe(true);
  expect(server.services.liveSignIn.has(linkSessionId)).toBe(true);
  expect(await widget.locator('#al-live-status').getAttribute('data-code')).toBe('LIVE');
  await server.services.liveSignIn.close(linkSessionId);
  await widget.close();
});

it('tells the person at once when AgentLink’s browser dies, counts it, and a retry signs in on a fresh browser', async () => {
  const { widget, linkSessionId } = await openLive();
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
