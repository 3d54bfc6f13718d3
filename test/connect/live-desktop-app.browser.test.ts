import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Locator, Page } from 'playwright-core';

import { hashToken } from '../../server/domain/tokens';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * Desktop apps in the live view: the live page is drawn at a desktop size (the provider's declared liveViewport, else
 * 1280×800) and scaled to the widget's canvas, so a wide app (a 1200 px layout, its sign-in dialog at the left) is
 * shown whole; a click on the canvas lands on the element under it at the scaled coordinates, also zoomed in and
 * panned; on a 390×844 phone the widget still fits, its zoom buttons are tappable, and two fingers zoom the view
 * without touching the page.
 */
jest.setTimeout(120_000);

const SESSION = 'wide_session';

/** A desktop app: a 1200 px wide layout, a header across it, and a sign-in dialog at its left edge. */
function startWideApp(): Promise<{ server: http.Server; origin: string }> {
  const login = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wide Editor</title>
<style>
  body { margin: 0; font: 14px sans-serif; }
  .layout { width: 1200px; min-width: 1200px; }
  header { height: 48px; background: #8c101c; color: #fff; display: flex; justify-content: space-between; align-items: center; padding: 0 16px; }
  .dialog { position: absolute; left: 12px; top: 80px; width: 360px; padding: 16px; border: 1px solid #999; background: #fff; }
  .dialog input { display: block; width: 300px; margin: 6px 0 12px; }
  .palette { position: absolute; left: 1000px; top: 80px; width: 180px; }
</style></head><body><div class="layout">
<header><span id="brand">Wide Editor</span><span id="header-right">v4.0.2</span></header>
<div class="dialog" role="dialog" aria-label="Sign in">
  <form method="post" action="/login">
    <label for="username">Username</label><input id="username" name="username">
    <label for="password">Password</label><input id="password" name="password" type="password">
    <button id="login" type="submit">Login</button>
  </form>
</div>
<aside class="palette"><button id="far-right">Deploy</button></aside>
</div>
<script>
  window.__clicks = [];
  document.addEventListener('click', (e) => window.__clicks.push(e.target.id || e.target.tagName));
</script></body></html>`;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/login' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const f = new URLSearchParams(raw);
        if (f.get('username') === 'admin' && f.get('password') === 'wide-pass') {
          res.writeHead(303, { location: '/editor', 'set-cookie': `${SESSION}=s1; Path=/; HttpOnly` }).end();
        } else res.writeHead(303, { location: '/login' }).end();
      });
      return;
    }
    if (url.pathname === '/editor' && (req.headers.cookie ?? '').includes(`${SESSION}=`)) {
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<main id="editor"><h1>Flows</h1></main>');
    }
    if (url.pathname === '/login') return void res.writeHead(200, { 'content-type': 'text/html' }).end(login);
    res.writeHead(302, { location: '/login' }).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

let service: LiveServer;
let app: Awaited<ReturnType<typeof startWideApp>>;
let creds: Record<string, string>;

beforeAll(async () => {
  [service, app] = await Promise.all([startLiveServer(), startWideApp()]);
  const org = await service.services.organizations.create('Desktop Apps Co');
  creds = { 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret };
});

afterAll(async () => {
  await service?.services.liveSignIn.closeAll();
  await service?.services.browsers.close();
  await service?.close();
  app?.server.closeAllConnections();
  await new Promise((resolve) => app?.server.close(resolve));
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${service.baseUrl}${path}`, { method: 'POST', headers: creds, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function declare(slug: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await post('/api/providers', {
    name: `Wide Editor ${slug}`,
    slug,
    category: 'developer',
    homeUrl: `${app.origin}/editor`,
    loginUrl: `${app.origin}/login`,
    allowedOrigins: [app.origin],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
    signedIn: { cookies: [SESSION], element: '#editor' },
    ...extra,
  });
  return created.providerId as string;
}

interface Opened {
  widget: Page;
  canvas: Locator;
  live: Page;
  close(): Promise<void>;
}

/** The person's browser at `viewport`, the widget on its live view of the app's sign-in page. */
async function openWidget(
  providerId: string,
  viewport: { width: number; height: number },
  screen: { deviceScaleFactor?: number; hasTouch?: boolean } = {},
): Promise<Opened> {
  const { linkToken } = (await post('/api/link-token', { clientUserId: `u-${Date.now()}`, providerId })) as { linkToken: string };
  const person = await service.services.browsers.newContext({ viewport, ...screen });
  const widget = await person.newPage();
  widget.setDefaultTimeout(30_000);
  await widget.goto(`${service.baseUrl}/link?token=${encodeURIComponent(linkToken)}`);
  await widget.getByRole('button', { name: 'Continue' }).click();
  const canvas = widget.locator('#al-live-canvas');
  await canvas.waitFor({ state: 'visible' });
  await widget.locator('#al-live-status[data-code="LIVE"]').waitFor({ state: 'attached' });
  await widget.waitForFunction(() => (window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive!.frames >= 1);
  const token = (await service.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
  const sessions = await service.services.store.repos.linkSessions.listForLinkToken(token.id);
  const live = service.services.liveSignIn.inspect(sessions[sessions.length - 1]!.id)!;
  return { widget, canvas, live, close: () => person.close() };
}

/** Where the centre of `selector` on the live page is on the widget's screen, through the canvas's scale (and zoom, and pan). */
async function onCanvas(o: Opened, selector: string): Promise<{ x: number; y: number }> {
  const box = (await o.live.locator(selector).boundingBox())!;
  const viewport = o.live.viewportSize()!;
  const c = (await o.canvas.boundingBox())!;
  return {
    x: c.x + ((box.x + box.width / 2) * c.width) / viewport.width,
    y: c.y + ((box.y + box.height / 2) * c.height) / viewport.height,
  };
}

/** Waits until `read` gives `want` (deep-equal), failing with the last value after 15 s. */
async function until<T>(read: () => Promise<T>, want: T): Promise<void> {
  const end = Date.now() + 15_000;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(want)) {
    if (Date.now() > end) expect(last).toEqual(want);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
}

const clicks = (live: Page) => live.evaluate(() => (window as unknown as { __clicks: string[] }).__clicks.slice());

describe('a desktop app in the live view', () => {
  it('is drawn at 1280×800 and shown whole in the canvas; clicks at the scaled coordinates land on the right element, zoomed too', async () => {
    const o = await openWidget(await declare('wide-default'), { width: 420, height: 820 });
    try {
      expect(o.live.viewportSize()).toEqual({ width: 1280, height: 800 });
      // Nothing of the app is cut off: no sideways scroll on the live page, the dialog and the far right inside it.
      expect(await o.live.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
      expect((await o.live.locator('.dialog').boundingBox())!.x).toBeGreaterThanOrEqual(0);
      expect((await o.live.locator('#far-right').boundingBox())!.x).toBeLessThan(1280);
      // The canvas holds the whole frame, at the page's aspect, inside the widget.
      expect(await o.canvas.evaluate((c: HTMLCanvasElement) => [c.width, c.height])).toEqual([1280, 800]);
      const c = (await o.canvas.boundingBox())!;
      expect(c.x).toBeGreaterThanOrEqual(0);
      expect(c.x + c.width).toBeLessThanOrEqual(420);
      expect(Math.abs(c.width / c.height - 1.6)).toBeLessThan(0.02);

      // Fitted: a click on the canvas lands on the element under it.
      let p = await onCanvas(o, '#far-right');
      await o.widget.mouse.click(p.x, p.y);
      await until(() => clicks(o.live), ['far-right']);

      // Zoomed in twice and panned to the username field: the click still lands there, and typing goes into it.
      await o.widget.locator('#al-live-zoom-in').click();
      await o.widget.locator('#al-live-zoom-in').click();
      expect(await o.widget.locator('#al-live-zoom-fit').innerText()).toBe('225%');
      expect((await o.canvas.boundingBox())!.width).toBeGreaterThan(c.width * 2);
      const box = (await o.live.locator('#username').boundingBox())!;
      await o.widget.locator('#al-live-scroll').evaluate((s, b) => {
        const canvas = s.querySelector('canvas')!;
        const scale = canvas.getBoundingClientRect().width / canvas.width;
        s.scrollLeft = b.x * scale - 20;
        s.scrollTop = b.y * scale - 20;
      }, box);
      p = await onCanvas(o, '#username');
      const scroll = (await o.widget.locator('#al-live-scroll').boundingBox())!;
      expect(p.x).toBeGreaterThan(scroll.x);
      expect(p.x).toBeLessThan(scroll.x + scroll.width);
      await o.widget.mouse.click(p.x, p.y);
      await until(() => clicks(o.live), ['far-right', 'username']);
      await o.widget.keyboard.type('admin', { delay: 10 });
      await until(() => o.live.locator('#username').inputValue(), 'admin');

      // Back to the whole page, and signed in by clicks and keys on the canvas.
      await o.widget.locator('#al-live-zoom-fit').click();
      expect(await o.widget.locator('#al-live-zoom-fit').innerText()).toBe('100%');
      p = await onCanvas(o, '#password');
      await o.widget.mouse.click(p.x, p.y);
      await o.widget.keyboard.type('wide-pass', { delay: 10 });
      p = await onCanvas(o, '#login');
      await o.widget.mouse.click(p.x, p.y);
      await o.widget.getByRole('heading', { name: 'Connected!' }).waitFor();
    } finally {
      await o.close();
    }
  });

  it('sends frames no larger than the canvas shows them (device pixels) while the page is 1280×800; a tap lands on the element under it', async () => {
    const o = await openWidget(await declare('wide-frames'), { width: 420, height: 820 }, { deviceScaleFactor: 2, hasTouch: true });
    type Probe = { frameWidth?: number; frameHeight?: number; firstFrameWidth?: number };
    const deviceSize = () =>
      o.canvas.evaluate((c: HTMLCanvasElement) => {
        const r = c.getBoundingClientRect();
        return { width: Math.floor(r.width * devicePixelRatio), height: Math.floor(r.height * devicePixelRatio) };
      });
    /** Repaints the live page until the widget has painted a frame within `d` and wider than `above` (one at the new size). */
    const frameWithin = async (d: { width: number; height: number }, above = 0) => {
      for (let i = 0; ; i++) {
        await o.live.evaluate((n) => (document.getElementById('header-right')!.textContent = `v4.0.${n}`), i);
        const within = await o.widget
          .waitForFunction(
            (b) => {
              const p = (window as unknown as { __agentlinkLive: Probe }).__agentlinkLive;
              return !!p.frameWidth && p.frameWidth > b.above && p.frameWidth <= b.width && p.frameHeight! <= b.height && p;
            },
            { ...d, above },
            { timeout: 1_000 },
          )
          .then((h) => h.jsonValue() as Promise<Probe>)
          .catch(() => null);
        if (within) return within;
        if (i >= 15)
          throw new Error(
            `no frame within ${JSON.stringify(d)}: ${JSON.stringify(await o.widget.evaluate(() => (window as unknown as { __agentlinkLive: Probe }).__agentlinkLive))}`,
          );
      }
    };
    try {
      expect(o.live.viewportSize()).toEqual({ width: 1280, height: 800 });
      expect(await o.canvas.evaluate((c: HTMLCanvasElement) => [c.width, c.height])).toEqual([1280, 800]);
      // The very first frame too: sized from the hello (the widget's width × its pixel ratio, at most 420 × 2), before the
      // widget measured its canvas (it used to come at the page's 1280 px, the slowest frame of the view).
      const first = await o.widget.evaluate(() => (window as unknown as { __agentlinkLive: Probe }).__agentlinkLive.firstFrameWidth);
      expect(first).toBeLessThanOrEqual(840);
      const fitted = await deviceSize();
      expect(fitted.width).toBeLessThan(1280);
      const small = await frameWithin(fitted);
      // Sized to the canvas, not a stamp: about its width (Chromium keeps the page's aspect inside the bounds).
      expect(small.frameWidth!).toBeGreaterThan(fitted.width * 0.9);

      // A tap on the canvas lands on the element under it, though the frames are smaller than the page.
      const p = await onCanvas(o, '#far-right');
      await o.widget.touchscreen.tap(p.x, p.y);
      await until(() => clicks(o.live), ['far-right']);

      // Zoomed in: the canvas shows more device pixels, and the frames grow with it (up to the page's own size).
      await o.widget.locator('#al-live-zoom-in').click();
      const zoomed = await deviceSize();
      expect(zoomed.width).toBeGreaterThan(fitted.width);
      const larger = await frameWithin(zoomed, small.frameWidth!);
      expect(larger.frameWidth!).toBeGreaterThan(small.frameWidth!);
    } finally {
      await o.close();
    }
  });

  it("uses the provider's declared liveViewport", async () => {
    const o = await openWidget(await declare('wide-declared', { liveViewport: { width: 1440, height: 900 } }), { width: 420, height: 820 });
    try {
      expect(o.live.viewportSize()).toEqual({ width: 1440, height: 900 });
      expect(await o.canvas.evaluate((c: HTMLCanvasElement) => [c.width, c.height])).toEqual([1440, 900]);
    } finally {
      await o.close();
    }
  });

  it('stays usable on a 390×844 phone: it fits, the zoom buttons are tappable, a tap lands, two fingers zoom the view', async () => {
    const o = await openWidget(await declare('wide-phone'), { width: 390, height: 844 });
    try {
      expect(await o.widget.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const c = (await o.canvas.boundingBox())!;
      expect(c.x + c.width).toBeLessThanOrEqual(390);
      for (const id of ['#al-live-zoom-out', '#al-live-zoom-fit', '#al-live-zoom-in']) {
        const b = (await o.widget.locator(id).boundingBox())!;
        expect(b.width).toBeGreaterThanOrEqual(36);
        expect(b.height).toBeGreaterThanOrEqual(36);
        expect(b.x + b.width).toBeLessThanOrEqual(390);
      }
      const p = await onCanvas(o, '#brand');
      await o.widget.mouse.click(p.x, p.y);
      await until(() => clicks(o.live), ['brand']);

      // Two fingers spread apart on the canvas: the view zooms in; the page gets no click from it.
      await o.canvas.evaluate((canvas: HTMLCanvasElement) => {
        const r = canvas.getBoundingClientRect();
        const cy = r.top + r.height / 2;
        const fire = (type: string, id: number, x: number) =>
          canvas.dispatchEvent(
            new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: x, clientY: cy, bubbles: true, isPrimary: id === 1 }),
          );
        const cx = r.left + r.width / 2;
        fire('pointerdown', 1, cx - 20);
        fire('pointerdown', 2, cx + 20);
        for (let d = 20; d <= 80; d += 10) {
          fire('pointermove', 1, cx - d);
          fire('pointermove', 2, cx + d);
        }
        fire('pointerup', 1, cx - 80);
        fire('pointerup', 2, cx + 80);
      });
      expect(parseInt(await o.widget.locator('#al-live-zoom-fit').innerText(), 10)).toBeGreaterThan(200);
      expect(await clicks(o.live)).toEqual(['brand']);
    } finally {
      await o.close();
    }
  });
});
