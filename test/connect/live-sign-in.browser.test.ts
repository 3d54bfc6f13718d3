import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { BrowserContext, Locator, Page } from 'playwright-core';

import { hashToken } from '../../server/domain/tokens';
import { VISUAL_CHALLENGE_KIND } from '../../server/integrations/lumen/idp/site';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * Live sign-in: Lumen has no login recipe, and its sign-in passes through an SSO hop to the simulated identity
 * provider and a visual challenge. The test plays the person: it looks at the live page to know where things are
 * (inspect), but acts only through the widget's streamed view, pointing and typing on its canvas. The challenge's
 * code is drawn as pixels, so the "person" reads it from the identity provider's records (what they would see).
 */
jest.setTimeout(180_000);

const IDLE_SECONDS = 10;
let server: LiveServer;
let org: { clientId: string; sandboxSecret: string };
let context: BrowserContext;

beforeAll(async () => {
  server = await startLiveServer({
    worker: true,
    env: { AGENTLINK_LIVE_MAX_SESSIONS: '2', AGENTLINK_LIVE_IDLE_SECONDS: String(IDLE_SECONDS) },
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

const api = (p: string) => `${server.baseUrl}${p}`;
const clientHeaders = () => ({ 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret });

async function createLinkToken(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(api('/api/link-token'), {
    method: 'POST',
    headers: clientHeaders(),
    body: JSON.stringify({ clientUserId: 'reader-1', providerId: LUMEN_PROVIDER_ID, ...body }),
  });
  const json = (await res.json()) as { linkToken: string };
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(json)}`);
  return json.linkToken;
}

async function linkSessionOf(linkToken: string) {
  const token = (await server.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
  const sessions = await server.services.store.repos.linkSessions.listForLinkToken(token.id);
  return sessions[sessions.length - 1];
}

/** Opens the widget at /link?token=…, agrees, and waits until the live view streams the provider's page. */
async function openLiveWidget(linkToken: string, viewport = { width: 420, height: 820 }): Promise<{ widget: Page; id: string }> {
  const widget = await context.newPage();
  await widget.setViewportSize(viewport);
  await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
  await widget.getByRole('button', { name: 'Continue' }).click();
  await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
  await expectStatus(widget, 'LIVE');
  await waitForFrames(widget, 1);
  return { widget, id: (await linkSessionOf(linkToken)).id };
}

async function expectStatus(widget: Page, code: string, timeout = 30_000): Promise<void> {
  await widget.locator(`#al-live-status[data-code="${code}"]`).waitFor({ state: 'attached', timeout });
}

async function frames(widget: Page): Promise<number> {
  return widget.evaluate(() => (window as unknown as { __agentlinkLive: { frames: number } }).__agentlinkLive.frames);
}

async function waitForFrames(widget: Page, atLeast: number): Promise<void> {
  await widget.waitForFunction(
    (n) => (window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive!.frames >= n,
    atLeast,
  );
}

/** The live page (what the person sees); only for knowing where to point. */
function livePage(id: string): Page {
  const page = server.services.liveSignIn.inspect(id);
  if (!page) throw new Error(`no live page for ${id}`);
  return page;
}

/** Points at what `selector` matches on the live page, through the widget's canvas (scaled), and clicks. */
async function clickOnStream(widget: Page, id: string, selector: string): Promise<void> {
  await clickOnStreamIn(widget, widget.locator('#al-live-canvas'), id, selector);
}

async function clickOnStreamIn(page: Page, canvasLocator: Locator, id: string, selector: string): Promise<void> {
  const target = livePage(id).locator(selector).first();
  await target.waitFor({ state: 'visible' });
  const box = (await target.boundingBox())!;
  const viewport = livePage(id).viewportSize()!;
  const canvas = (await canvasLocator.boundingBox())!;
  const x = canvas.x + ((box.x + box.width / 2) * canvas.width) / viewport.width;
  const y = canvas.y + ((box.y + box.height / 2) * canvas.height) / viewport.height;
  await page.mouse.click(x, y);
}

/** Polls `read` until `ok` holds (then returns the value) or fails with the last value seen. */
async function eventually<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
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

  it('closing the widget mid-sign-in ends the live session and its browser context', async () => {
    const linkToken = await createLinkToken();
    const contextsBefore = server.services.browsers.openContexts;
    const { widget, id } = await openLiveWidget(linkToken);
    await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
    await widget.getByRole('button', { name: 'Close', exact: true }).click();
    await eventually(
      () => server.services.liveSignIn.has(id),
      (v) => v === false,
    );
    await eventually(
      () => server.services.browsers.openContexts,
      (v) => v === contextsBefore,
    );
    expect(await linkSessionOf(linkToken)).toMatchObject({ status: 'EXITED', errorCode: 'USER_CLOSED' });
  });

  it('the socket drops and the widget reconnects to the same live page', async () => {
    const linkToken = await createLinkToken();
    const widget = await context.newPage();
    let sockets = 0;
    const routes: { close(o: { code: number }): Promise<void> }[] = [];
    await widget.routeWebSocket(/\/live$/, (ws) => {
      sockets++;
      ws.connectToServer();
      routes.push(ws);
    });
    await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
    await widget.getByRole('button', { name: 'Continue' }).click();
    await expectStatus(widget, 'LIVE');
    const id = (await linkSessionOf(linkToken)).id;
    const page = livePage(id);
    await routes[0].close({ code: 4000 });
    await eventually(
      () => sockets,
      (v) => v === 2,
      20_000,
    );
    await expectStatus(widget, 'LIVE');
    // The same live page, not a new one; and input flows again.
    expect(livePage(id)).toBe(page);
    await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
    await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
  });

  it('one live session per link session: a second socket joins (and replaces) the first, without a second browser', async () => {
    const linkToken = await createLinkToken();
    const { widget, id } = await openLiveWidget(linkToken);
    const contexts = server.services.browsers.openContexts;
    const other = await context.newPage();
    await other.goto(api('/link'));
    const answer = await other.evaluate(
      ({ id, linkToken }) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/link/api/sessions/${id}/live`);
          ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', linkToken, width: 400, height: 600 }));
          ws.onmessage = (e) => {
            if (typeof e.data === 'string' && JSON.parse(e.data).type === 'viewport') resolve('joined');
          };
          ws.onclose = (e) => resolve(`closed ${e.code}`);
        }),
      { id, linkToken },
    );
    expect(answer).toBe('joined');
    await expectStatus(widget, 'LIVE_REPLACED');
    expect(server.services.browsers.openContexts).toBe(contexts);
    expect(server.services.liveSignIn.openCount).toBe(1);
    expect(await (await fetch(api('/metrics'))).text()).toMatch(/^agentlink_live_sessions_open 1$/m);
  });

  it('a socket without the link token, or from another origin, gets nothing', async () => {
    const linkToken = await createLinkToken();
    const { id } = await openLiveWidget(linkToken);
    const other = await context.newPage();
    await other.goto(api('/link'));
    const wrong = await other.evaluate(
      (id) =>
        new Promise<number>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/link/api/sessions/${id}/live`);
          ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', linkToken: 'link-sandbox-nope', width: 400, height: 600 }));
          ws.onclose = (e) => resolve(e.code);
        }),
      id,
    );
    expect(wrong).toBe(4401);
    const upgradeFrom = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(api(`/link/api/sessions/${id}/live`), {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            origin,
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('upgrade', (_res, socket) => {
          socket.destroy();
          resolve(101);
        });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
      });
    expect(await upgradeFrom('http://evil.example')).toBe(403);
    expect(await upgradeFrom(server.baseUrl)).toBe(101);
  });

  it('the process holds at most AGENTLINK_LIVE_MAX_SESSIONS live sessions; the next widget shows LIVE_SESSIONS_FULL', async () => {
    await openLiveWidget(await createLinkToken({ clientUserId: 'reader-a' }));
    await openLiveWidget(await createLinkToken({ clientUserId: 'reader-b' }));
    const widget = await context.newPage();
    await widget.goto(api(`/link?token=${encodeURIComponent(await createLinkToken({ clientUserId: 'reader-c' }))}`));
    await widget.getByRole('button', { name: 'Continue' }).click();
    await expectStatus(widget, 'LIVE_SESSIONS_FULL');
    expect(await widget.locator('#al-live-status').innerText()).toMatch(/too many people/i);
    expect(await widget.getByRole('button', { name: 'Open the sign-in page again' }).isVisible()).toBe(true);
    expect(server.services.liveSignIn.openCount).toBe(2);
  });

  it('an idle live session times out: its browser closes and the widget says so', async () => {
    const linkToken = await createLinkToken();
    const contextsBefore = server.services.browsers.openContexts;
    const { widget, id } = await openLiveWidget(linkToken);
    await expectStatus(widget, 'LIVE_SESSION_TIMED_OUT', (IDLE_SECONDS + 20) * 1000);
    expect(server.services.liveSignIn.has(id)).toBe(false);
    await eventually(
      () => server.services.browsers.openContexts,
      (v) => v === contextsBefore,
    );
    // Recorded for the organization to see; the flow stays at the sign-in step.
    await eventually(
      () => linkSessionOf(linkToken),
      (s) => s.errorCode === 'LIVE_SESSION_TIMED_OUT',
    );
    expect((await linkSessionOf(linkToken)).status).toBe('CREDENTIALS');
    // Opening it again starts a fresh live page.
    await widget.getByRole('button', { name: 'Open the sign-in page again' }).click();
    await expectStatus(widget, 'LIVE');
    expect(server.services.liveSignIn.has(id)).toBe(true);
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
