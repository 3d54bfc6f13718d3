import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Page } from 'playwright-core';

import { chooseDevice } from '../../server/browser/device-profile';
import { VISUAL_CHALLENGE_KIND } from '../../server/integrations/lumen/idp/site';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { canvasColourAt, coverPage, pageWindow, stageWidth, widgetFrames, zoomInAtRightEdge } from '../support/live-view-probes';
import {
  api,
  clickOnStream,
  clickOnStreamIn,
  clientHeaders,
  context,
  createLinkToken,
  eventually,
  expectStatus,
  linkSessionOf,
  livePage,
  openLiveWidget,
  pageMetrics,
  server,
  useLiveSignInServer,
  waitForFrames,
} from './live-sign-in-support';

/**
 * Live sign-in: Lumen has no login recipe, and its sign-in passes through an SSO hop to the simulated identity
 * provider and a visual challenge. The test plays the person: it looks at the live page to know where things are
 * (inspect), but acts only through the widget's streamed view, pointing and typing on its canvas. The challenge's
 * code is drawn as pixels, so the "person" reads it from the identity provider's records (what they would see).
 * The live session's lifecycle and its socket: live-sign-in-sessions.browser.test.ts.
 */
jest.setTimeout(180_000);

useLiveSignInServer();

async function frames(widget: Page): Promise<number> {
  return widget.evaluate(() => (window as unknown as { __agentlinkLive: { frames: number } }).__agentlinkLive.frames);
}

async function latestChallengeCode(): Promise<string> {
  const docs = await server.services.store.repos.sandboxDocs.list('__auth', 'idp', VISUAL_CHALLENGE_KIND);
  const newest = docs.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  return String(newest.data.code);
}

/** Continue with Idp → the identity provider's form, filled in by pointing and typing on the stream. */
async function signInAtIdp(widget: Page, id: string, password: string): Promise<number> {
  await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
  await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
  await clickOnStream(widget, id, 'input[name="username"]');
  await widget.keyboard.type('user_good', { delay: 15 });
  await eventually(
    () => livePage(id).locator('input[name="username"]').inputValue(),
    (v) => v === 'user_good',
  );
  await clickOnStream(widget, id, 'input[name="password"]');
  await widget.keyboard.type(password, { delay: 15 });
  const framesBeforeSubmit = await frames(widget);
  await widget.keyboard.press('Enter');
  return framesBeforeSubmit;
}

describe('live sign-in in the connect widget (Lumen, no recipe)', () => {
  it('signs in through the SSO hop and the visual challenge on the streamed view, then runs an agent request on the new connection', async () => {
    const linkToken = await createLinkToken();
    const contextsBefore = server.services.browsers.openContexts;
    const { widget, id } = await openLiveWidget(linkToken);
    // One fenced context for the live page, beside the test's own.
    expect(server.services.browsers.openContexts).toBe(contextsBefore + 1);
    expect(livePage(id).url()).toMatch(/^http:\/\/lumen\.sandbox\.localhost:\d+\/login\?tenant_token=/);

    await signInAtIdp(widget, id, 'pass_good');
    await livePage(id).waitForURL(/\/authorize\?/);
    await livePage(id).locator('img[src^="/authorize/challenge.png"]').waitFor({ state: 'visible' });
    const code = await latestChallengeCode();
    expect(code).toMatch(/^[A-Z0-9]{5}$/);
    // The code is nowhere in the page a script could read.
    expect(await livePage(id).content()).not.toContain(code);

    const finished = widget.waitForResponse((r) => r.url().endsWith('/live/finish'));
    await clickOnStream(widget, id, 'input[name="code"]');
    await widget.keyboard.type(code.toLowerCase(), { delay: 15 });
    await widget.keyboard.press('Enter');
    const finish = await finished;
    expect(finish.status()).toBe(200);
    const step = (await finish.json()) as { success: { publicToken: string; metadata: { providerId: string } } };
    expect(step.success.metadata.providerId).toBe(LUMEN_PROVIDER_ID);
    await widget.getByRole('heading', { name: 'Connected!' }).waitFor();
    // The stream closed and its browser context is gone.
    expect(server.services.liveSignIn.has(id)).toBe(false);
    await eventually(
      () => server.services.browsers.openContexts,
      (v) => v === contextsBefore,
    );
    expect((await linkSessionOf(linkToken)).status).toBe('SUCCEEDED');

    const exchanged = await fetch(api('/api/connections/public_token/exchange'), {
      method: 'POST',
      headers: clientHeaders(),
      body: JSON.stringify({ publicToken: step.success.publicToken }),
    });
    expect(exchanged.status).toBe(200);
    const { access_token: accessToken } = (await exchanged.json()) as { access_token: string };
    const created = await fetch(api('/api/agent-requests'), {
      method: 'POST',
      headers: clientHeaders(),
      body: JSON.stringify({
        accessToken,
        action: 'Read my reading list',
        startingUrl: server.siteUrl('lumen', '/library'),
        playbook: 'lumen.read-reading-list',
        responseFormat: { articles: [{ title: 'string', author: 'string', minutes: 'integer' }], count: 'integer' },
        mode: 'read',
      }),
    });
    expect([created.status, created.status === 202 ? '' : await created.text()]).toEqual([202, '']);
    const { requestId } = (await created.json()) as { requestId: string };
    let run: { status: string; result?: { articles: { title: string }[] }; error?: unknown } = { status: 'PENDING' };
    for (let i = 0; i < 6 && !['COMPLETED', 'FAILED', 'CANCELLED'].includes(run.status); i++) {
      const res = await fetch(api(`/api/agent-requests/${requestId}?waitMs=30000`), { headers: clientHeaders() });
      run = (await res.json()) as typeof run;
    }
    expect(run).toMatchObject({ status: 'COMPLETED' });
    expect(run.result!.articles.map((a) => a.title)).toContain('The Quiet Art of Reading Slowly');
  });

  it('the identity provider refuses a wrong password: shown in the stream, still in the live view', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    const beforeSubmit = await signInAtIdp(widget, id, 'not-the-password');
    await livePage(id).getByRole('alert').filter({ hasText: 'Incorrect username or password' }).waitFor();
    // The refusal reaches the widget as frames: the page the form's submission answered was painted there.
    await waitForFrames(widget, beforeSubmit + 1);
    await expectStatus(widget, 'LIVE');
    expect(await widget.locator('#al-live-canvas').isVisible()).toBe(true);
    expect(server.services.liveSignIn.has(id)).toBe(true);
  });

  it('a page off the allowed origins is blocked and shown; the live page goes back to the provider', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    await clickOnStream(widget, id, 'a:has-text("Trouble signing in?")');
    await expectStatus(widget, 'NAVIGATION_BLOCKED');
    expect(await widget.locator('#al-live-status').innerText()).toContain('help.lumen.example');
    await eventually(
      () => livePage(id).url(),
      (v) => /^http:\/\/lumen\.sandbox\.localhost:\d+\/login/.test(String(v)),
    );
  });

  it('the live page may not read the clipboard nor keep another window open', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    const read = await livePage(id).evaluate(() =>
      navigator.clipboard.readText().then(
        () => 'read',
        () => 'refused',
      ),
    );
    expect(read).toBe('refused');
    const contexts = server.services.browsers.openContexts;
    await livePage(id).evaluate((url) => void window.open(url, '_blank'), server.siteUrl('lumen', '/login'));
    await expectStatus(widget, 'POPUP_BLOCKED');
    await eventually(
      () => livePage(id).context().pages().length,
      (n) => n === 1,
    );
    expect(server.services.browsers.openContexts).toBe(contexts);
  });

  it('the caller asks for the live view on a provider with a recipe (signIn: live), and update mode renews a LOGIN_REQUIRED connection the same way', async () => {
    const signInLive = async (linkToken: string, consent: string) => {
      const widget = await context.newPage();
      await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
      await widget.getByRole('button', { name: consent }).click();
      await expectStatus(widget, 'LIVE');
      const id = (await linkSessionOf(linkToken)).id;
      expect(livePage(id).url()).toMatch(/^http:\/\/orbit\.sandbox\.localhost:\d+\/login\?tenant_token=/);
      await clickOnStream(widget, id, 'input[name="username"]');
      await widget.keyboard.type('user_good', { delay: 15 });
      await clickOnStream(widget, id, 'input[name="password"]');
      await widget.keyboard.type('pass_good', { delay: 15 });
      const finished = widget.waitForResponse((r) => r.url().endsWith('/live/finish'));
      await widget.keyboard.press('Enter');
      const finish = await finished;
      expect(finish.status()).toBe(200);
      return ((await finish.json()) as { success: { publicToken: string } }).success.publicToken;
    };
    const publicToken = await signInLive(
      await createLinkToken({ providerId: ORBIT_PROVIDER_ID, clientUserId: 'orbit-reader', signIn: 'live' }),
      'Continue',
    );
    const exchanged = await fetch(api('/api/connections/public_token/exchange'), {
      method: 'POST',
      headers: clientHeaders(),
      body: JSON.stringify({ publicToken }),
    });
    const { connectionId } = (await exchanged.json()) as { connectionId: string };
    await server.services.connections.markLoginRequired(connectionId);
    expect((await server.services.store.repos.connections.findById(connectionId))?.status).toBe('LOGIN_REQUIRED');

    const update = await createLinkToken({ providerId: ORBIT_PROVIDER_ID, clientUserId: 'orbit-reader', connectionId, signIn: 'live' });
    await signInLive(update, 'Continue');
    expect((await server.services.store.repos.connections.findById(connectionId))?.status).toBe('ACTIVE');
    expect((await linkSessionOf(update)).mode).toBe('update');
  });

  it('a recipe that meets a step it does not know (a device prompt) hands its page over to the live view, where the person finishes', async () => {
    const linkToken = await createLinkToken({ providerId: ORBIT_PROVIDER_ID, clientUserId: 'device-reader' });
    const widget = await context.newPage();
    await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
    await widget.getByRole('button', { name: 'Continue' }).click();
    await widget.getByLabel('Username or email').fill('user_device');
    await widget.getByLabel('Password').fill('pass_good');
    await widget.getByRole('button', { name: 'Sign in' }).click();
    // The engine waits for a page it knows (its step budget), then hands the page over as it is.
    await expectStatus(widget, 'LIVE', 60_000);
    const id = (await linkSessionOf(linkToken)).id;
    expect(livePage(id).url()).toMatch(/\/login\/device$/);
    expect(server.services.loginEngine.pendingCount).toBe(0);
    // Resized to the view, the page keeps the screen it had from the engine (the connection's device, if it has one).
    const [screenWidth, screenHeight, width, height] = await pageMetrics(id);
    const view = await widget.evaluate(() => [
      (document.getElementById('al-live-canvas') as HTMLCanvasElement).width,
      (document.getElementById('al-live-canvas') as HTMLCanvasElement).height,
    ]);
    expect([width, height]).toEqual(view);
    expect([screenWidth, screenHeight]).not.toEqual(view);
    expect(await widget.getByText('asked for a step AgentLink cannot fill in').isVisible()).toBe(true);
    const finished = widget.waitForResponse((r) => r.url().endsWith('/live/finish'));
    await clickOnStream(widget, id, 'button:has-text("I approved it on my phone")');
    expect((await finished).status()).toBe(200);
    await widget.getByRole('heading', { name: 'Connected!' }).waitFor();
    expect((await linkSessionOf(linkToken)).status).toBe('SUCCEEDED');
  });

  it('is usable by keyboard: Tab reaches the view, keys go to the page, Escape then Tab leaves it', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    for (let i = 0; i < 5 && (await widget.evaluate(() => document.activeElement?.id)) !== 'al-live-canvas'; i++)
      await widget.keyboard.press('Tab');
    expect(await widget.evaluate(() => document.activeElement?.id)).toBe('al-live-canvas');
    // Tab inside the page moves to its first control ("Continue with Idp"); Enter presses it.
    await widget.keyboard.press('Tab');
    await eventually(
      () => livePage(id).evaluate(() => document.activeElement?.textContent ?? ''),
      (v) => v.includes('Continue with Idp'),
    );
    await widget.keyboard.press('Enter');
    await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
    await widget.keyboard.press('Escape');
    await widget.keyboard.press('Tab');
    expect(await widget.evaluate(() => document.activeElement?.id)).not.toBe('al-live-canvas');
  });

  it('works in iframe mode: an app on another origin embeds the widget, and the stream takes pointer and keys inside the frame', async () => {
    const linkToken = await createLinkToken();
    const app = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body style="margin:0"><iframe id="w" src="${api('/link')}" width="400" height="760" style="border:0"></iframe>
<script>window.addEventListener('message', function (e) {
  if (e.data && e.data.type === 'agentlink:ready' && !window.__sent) { window.__sent = true;
    e.source.postMessage({ type: 'agentlink:init', linkToken: ${JSON.stringify(linkToken)}, env: 'sandbox' }, ${JSON.stringify(server.baseUrl)}); }
});</script></body></html>`);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`);
      const frame = page.frameLocator('#w');
      await frame.getByRole('button', { name: 'Continue' }).click();
      await frame.locator('#al-live-status[data-code="LIVE"]').waitFor({ state: 'attached' });
      const id = (await linkSessionOf(linkToken)).id;
      expect((await frame.locator('#al-live-canvas').boundingBox())!.width).toBeLessThanOrEqual(400);
      await clickOnStreamIn(page, frame.locator('#al-live-canvas'), id, 'button:has-text("Continue with Idp")');
      await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
      await clickOnStreamIn(page, frame.locator('#al-live-canvas'), id, 'input[name="username"]');
      await page.keyboard.type('user_good', { delay: 15 });
      await eventually(
        () => livePage(id).locator('input[name="username"]').inputValue(),
        (v) => v === 'user_good',
      );
    } finally {
      app.close();
    }
  });

  it('presents the connection’s device in the sign-in as in its runs: its screen and pixel ratio, at the view’s size', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    const device = chooseDevice(id, await server.services.browsers.browserVersion());
    const view = await widget.evaluate(() => {
      const canvas = document.getElementById('al-live-canvas') as HTMLCanvasElement;
      return [canvas.width, canvas.height];
    });
    const ratio = device.deviceScaleFactor ?? (device.platform === 'macOS' ? 2 : 1);
    expect(await pageMetrics(id)).toEqual([device.screen.width, device.screen.height, ...view, ratio]);
    expect(device.screen.width).not.toBe(view[0]); // the view's size is not taken for the screen's
  });

  it('zoomed in, is sent only the part of the page in view, as the person pans, and the page sees nothing of it', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken());
    const page = livePage(id);
    const before = await pageWindow(page);
    const probe = () => widgetFrames(widget);
    const canvasAt = (x: number, y: number) => canvasColourAt(widget, x, y);
    await coverPage(page, '#0000ff');
    await eventually(
      () => canvasAt(100, 400),
      (c) => c === 'blue',
    );
    const whole = await probe();
    // Zoomed to one page pixel per screen pixel, panned to the page's right edge.
    await zoomInAtRightEdge(widget);
    await coverPage(page, '#00ff00');
    // The frames come of the part at the page's right edge, and are painted there: the left of the canvas keeps the
    // picture it had (no frame of it came), the right shows the page now.
    await eventually(
      () => canvasAt(1200, 400),
      (c) => c === 'green',
    );
    expect(await canvasAt(100, 400)).toBe('blue');
    const zoomed = await eventually(
      probe,
      (p) => p.region !== null && p.region.x + p.region.width === before[0] && p.frames > whole.frames,
    );
    expect(zoomed.width).toBeLessThanOrEqual(await stageWidth(widget)); // the part in view, not the whole zoomed canvas
    expect(zoomed.region!.x).toBeGreaterThan(0);
    // Panned back to the left: the next frames show that part.
    await widget.evaluate(() => (document.getElementById('al-live-scroll')!.scrollLeft = 0));
    const left = await eventually(probe, (p) => p.region !== null && p.region.x === 0);
    await coverPage(page, '#ff0000');
    await eventually(probe, (p) => p.frames > left.frames);
    await eventually(
      () => canvasAt(100, 400),
      (c) => c === 'red',
    );
    expect(await canvasAt(1200, 400)).toBe('green');
    // Fit: the whole page again.
    await widget.locator('#al-live-zoom-fit').click();
    await coverPage(page, '#0000ff');
    await eventually(probe, (p) => p.region === null);
    await eventually(
      () => canvasAt(1200, 400),
      (c) => c === 'blue',
    );
    // The page saw none of it: its window, screen, visual viewport and pixel ratio are as they were, never resized.
    expect(await pageWindow(page)).toEqual(before);
  });

  it('fits a 375 px phone screen: the streamed view is scaled into the widget and taps land where they point', async () => {
    const { widget, id } = await openLiveWidget(await createLinkToken(), { width: 375, height: 740 });
    const canvas = (await widget.locator('#al-live-canvas').boundingBox())!;
    expect(canvas.x).toBeGreaterThanOrEqual(0);
    expect(canvas.x + canvas.width).toBeLessThanOrEqual(375);
    expect(await widget.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
    await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
  });
});
