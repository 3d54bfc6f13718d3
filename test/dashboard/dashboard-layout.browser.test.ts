import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { ORBIT_PROVIDER_ID } from '../support/helpers';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * The dashboard as an operator sees it at 1280 px and on a 375 px phone: tables fit (ids clipped but whole in
 * the text, times on one line, no page-wide horizontal scroll), ids link to their pages, and the "shown once"
 * notice reads as a warning. Full-page screenshots are written to a temp dir (their paths are logged when a
 * check fails) and their pixel width is what the phone checks read: a page wider than the screen shows there.
 */
let live: LiveServer;
let browser: Browser;
const shotsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-dashboard-shots-'));
const LONG_ACTION =
  'Open my profile, read my name, my headline, how many people follow me and how many I follow, then list my five latest posts with their reactions';

let orgPath = '';
let requestIds: string[] = [];
let connectionId = '';
let webhookId = '';

beforeAll(async () => {
  [live, browser] = await Promise.all([startLiveServer(), startBrowser()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await live?.close();
  if (process.env.KEEP_SCREENSHOTS) console.log(`dashboard screenshots in ${shotsDir}`);
  else fs.rmSync(shotsDir, { recursive: true, force: true });
});

/** Width in pixels of a PNG (its IHDR chunk). */
const pngWidth = (png: Buffer) => png.readUInt32BE(16);

/** Writes a full-page PNG of the page to the screenshots folder; its width. */
async function saveShot(page: Page, name: string): Promise<number> {
  const png = await page.screenshot({ fullPage: true, path: path.join(shotsDir, `${name}.png`) });
  return pngWidth(png);
}

/**
 * The width a full-page screenshot of the page has: its content's, as DevTools measures it (what a full-page
 * screenshot is sized from). The PNG itself is written when that is wider than `limit`, or with KEEP_SCREENSHOTS:
 * encoding a dozen full pages on every run cost this file more CPU than the rest of its checks.
 */
async function shot(page: Page, name: string, limit: number): Promise<number> {
  if (process.env.KEEP_SCREENSHOTS) return saveShot(page, name);
  const cdp = await page.context().newCDPSession(page);
  try {
    const metrics = (await cdp.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number } };
    const width = Math.ceil(metrics.cssContentSize.width);
    return width > limit ? saveShot(page, name) : width;
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

async function api(method: string, pathname: string, creds: { clientId: string; secret: string }, body?: unknown) {
  const res = await fetch(`${live.baseUrl}${pathname}`, {
    method,
    headers: { 'x-client-id': creds.clientId, 'x-client-secret': creds.secret, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function signedInPage(viewport: { width: number; height: number }, isMobile = false): Promise<Page> {
  const context = await browser.newContext({ viewport, isMobile, hasTouch: isMobile });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(`${live.baseUrl}/dashboard/sign-in`);
  await page.getByLabel('Email').fill('operator@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your organizations' }).waitFor();
  return page;
}

it('sets up an organization with a connection and requests through the dashboard and the API', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${live.baseUrl}/dashboard/sign-up`);
  await page.getByLabel('Email').fill('operator@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByLabel('Organization name').fill('Layout Check Co');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByText('Copy it now').first().waitFor();

  // The secret shown once is a warning to act on, not a success message.
  const noticeLook = await page
    .getByText('Copy it now')
    .first()
    .evaluate((el) => ({ className: el.className, background: getComputedStyle(el).backgroundColor }));
  expect(noticeLook.className).toContain('warn');
  expect(noticeLook.background).not.toBe('rgb(232, 245, 233)'); // the green of .notice.ok

  const creds = {
    clientId: await page.getByTestId('client-id').inputValue(),
    secret: await page.getByTestId('sandbox-secret').inputValue(),
  };
  orgPath = new URL((await page.getByRole('link', { name: 'Credentials' }).getAttribute('href'))!, live.baseUrl).pathname;
  // A webhook endpoint (nothing listens there: its deliveries fail, and list Re-send buttons).
  const hook = await api('POST', '/api/webhooks', creds, { url: 'http://127.0.0.1:9/hooks', events: ['CONNECTION.CREATED'] });
  webhookId = hook.webhookId;
  expect(webhookId).toBeTruthy();
  const pt = await api('POST', '/api/sandbox/public_token/create', creds, {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId: 'layout-user-with-a-long-id-0001',
  });
  const exchanged = await api('POST', '/api/connections/public_token/exchange', creds, { publicToken: pt.publicToken });
  connectionId = exchanged.connectionId;
  expect(connectionId).toMatch(/^conn_/);
  requestIds = [];
  for (let i = 0; i < 3; i++) {
    const created = await api('POST', '/api/agent-requests', creds, {
      accessToken: exchanged.access_token,
      action: `${LONG_ACTION} (${i})`,
      startingUrl: live.siteUrl('orbit', '/me'),
      parameters: {},
      responseFormat: { name: 'string' },
    });
    expect(created.requestId).toMatch(/^areq_/);
    requestIds.push(created.requestId);
  }
  // The first request ends with a trace whose step has a full-width screenshot (as a worker stores them).
  await page.setViewportSize({ width: 1280, height: 800 });
  const screenshot = (await page.screenshot({ type: 'jpeg', quality: 30 })).toString('base64');
  const repo = live.services.store.repos.agentRequests;
  const now = new Date();
  expect(await repo.claim(requestIds[0], 'test-worker', now, new Date(now.getTime() + 60_000), 3)).toBe(true);
  await repo.finish(requestIds[0], 'test-worker', {
    status: 'FAILED',
    result: null,
    error: { code: 'PROVIDER_CHANGED', message: 'The profile page looked different.' },
    completedAt: new Date(),
    executionTimeMs: 1234,
    method: 'PLANNER',
    trace: [
      { tool: 'goto', url: live.siteUrl('orbit', `/me?${'long-query-parameter='.repeat(8)}`), durationMs: 210, outcome: 'ok' },
      {
        tool: 'click',
        target: '[7] Profile',
        url: live.siteUrl('orbit', '/me'),
        durationMs: 95,
        outcome: 'error',
        error: 'element gone',
        screenshot,
      },
    ],
  });
  await context.close();
}, 60_000);

it('at 1280 px the requests table fits, times stay on one line, and ids link to their pages', async () => {
  const page = await signedInPage({ width: 1280, height: 900 });
  await page.goto(`${live.baseUrl}${orgPath}/requests`);
  const table = page.getByTestId('agent-requests');
  await table.waitFor();
  const fit = await table.evaluate((t) => ({
    table: t.scrollWidth,
    box: (t.parentElement as HTMLElement).clientWidth,
    page: document.documentElement.scrollWidth,
    timeLines: [...t.querySelectorAll('time')].map((el) => el.getClientRects().length),
    timeHeights: [...t.querySelectorAll('time')].map((el) => el.getBoundingClientRect().height),
    lineHeight: parseFloat(getComputedStyle(t).lineHeight) || 24,
  }));
  expect(fit.table).toBeLessThanOrEqual(fit.box);
  expect(fit.page).toBeLessThanOrEqual(1280);
  expect(fit.timeLines.every((n) => n === 1)).toBe(true);
  expect(Math.max(...fit.timeHeights)).toBeLessThan(fit.lineHeight * 1.5);
  expect(await shot(page, 'requests-1280', 1280)).toBeLessThanOrEqual(1280);

  // The whole id is in the text (search, copy) even though it is clipped on screen; it links to the request.
  await table.getByText(requestIds[0], { exact: true }).click();
  await page.getByRole('heading', { name: requestIds[0] }).waitFor();
  // The request's connection links to the connection's page, which lists its requests.
  await page.getByRole('link', { name: connectionId }).click();
  await page.getByRole('heading', { name: connectionId }).waitFor();
  for (const id of requestIds) await page.getByTestId('connection-requests').getByText(id, { exact: true }).waitFor();
  // And the connections list links each id to that page.
  await page.getByRole('link', { name: '← Connections' }).click();
  await page.getByTestId('connections').getByRole('link', { name: connectionId }).click();
  await page.getByRole('heading', { name: connectionId }).waitFor();
  await page.context().close();
}, 60_000);

/** The element is wholly inside the visible part of its table's box and of the window (not scrolled or cut off). */
async function expectInView(page: Page, element: ReturnType<Page['locator']>, width: number, name: string) {
  const box = (await element.boundingBox())!;
  const wrap = (await element.evaluate((el) => {
    const r = el.closest('.table-wrap')!.getBoundingClientRect();
    return { x: r.x, width: r.width };
  }))!;
  const inside = box.x >= wrap.x - 0.5 && box.x + box.width <= wrap.x + wrap.width + 0.5 && box.x + box.width <= width;
  if (!inside) {
    await saveShot(page, name);
    throw new Error(`${name}: ${JSON.stringify({ box, wrap, width })} (see ${shotsDir}/${name}.png)`);
  }
  expect(inside).toBe(true);
}

it('at 1280 px the connections table shows its Revoke column and a webhook shows its Re-send buttons', async () => {
  const page = await signedInPage({ width: 1280, height: 900 });
  await page.goto(`${live.baseUrl}${orgPath}/connections?env=sandbox`);
  const revoke = page.getByTestId('connections').getByRole('link', { name: 'Revoke' }).first();
  await revoke.waitFor();
  await expectInView(page, revoke, 1280, 'connections-1280');
  expect(await shot(page, 'connections-1280', 1280)).toBeLessThanOrEqual(1280);

  await page.goto(`${live.baseUrl}${orgPath}/webhooks/${webhookId}`);
  const resend = page.getByTestId('webhook-deliveries').getByRole('button', { name: 'Re-send' });
  await resend.first().waitFor();
  for (let i = 0; i < (await resend.count()); i++) await expectInView(page, resend.nth(i), 1280, 'deliveries-1280');
  expect(await shot(page, 'deliveries-1280', 1280)).toBeLessThanOrEqual(1280);

  // Each delivery links to its payload: the event body as it was signed and sent, and its attempts.
  await page.getByTestId('webhook-deliveries').locator('tbody tr').first().getByRole('link').click();
  const payload = JSON.parse((await page.getByTestId('delivery-payload').textContent())!) as {
    type: string;
    object: unknown;
  };
  expect(payload.type).toBe('CONNECTION.CREATED');
  expect(JSON.stringify(payload.object)).toContain(connectionId);
  expect(await shot(page, 'delivery-1280', 1280)).toBeLessThanOrEqual(1280);
  await page.context().close();
}, 60_000);

it('on a 390 px phone the trace table and its screenshot fit the screen', async () => {
  const page = await signedInPage({ width: 390, height: 844 }, true);
  await page.goto(`${live.baseUrl}${orgPath}/requests/${requestIds[0]}`);
  const trace = page.getByTestId('trace');
  await trace.waitFor();
  const img = page.getByAltText('Screenshot of step 2');
  await img.waitFor();
  const fit = await page.evaluate(() => {
    const t = document.querySelector('[data-testid="trace"]')!;
    const i = document.querySelector('img.screenshot') as HTMLImageElement;
    const wrap = t.closest('.table-wrap') as HTMLElement;
    return {
      page: document.documentElement.scrollWidth,
      table: t.getBoundingClientRect().right,
      tableScroll: wrap.scrollWidth - wrap.clientWidth,
      img: i.getBoundingClientRect().right,
      imgWidth: i.getBoundingClientRect().width,
      loaded: i.complete && i.naturalWidth > 0,
    };
  });
  const shotWidth = await shot(page, 'trace-390', 390);
  if (fit.page > 390 || fit.table > 390 || fit.img > 390 || fit.tableScroll > 0 || shotWidth > 390) {
    throw new Error(`trace does not fit 390 px: ${JSON.stringify(fit)} (see ${shotsDir}/trace-390.png)`);
  }
  expect(fit.loaded).toBe(true);
  expect(fit.imgWidth).toBeGreaterThan(300); // shown at the screen's width, not shrunk to a thumbnail
  await page.context().close();
}, 60_000);

it('on a 375 px phone no page scrolls sideways, and rows read as labelled cards', async () => {
  const page = await signedInPage({ width: 375, height: 740 }, true);
  const pages = [
    '',
    '/members',
    '/connections',
    '/requests',
    `/requests/${requestIds[0]}`,
    `/connections/${connectionId}`,
    '/webhooks',
    `/webhooks/${webhookId}`,
  ];
  for (const p of pages) {
    await page.goto(`${live.baseUrl}${orgPath}${p}`);
    await page.locator('main h1').first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    const name = `phone${p.replace(/\//g, '-') || '-credentials'}`;
    const shotWidth = await shot(page, name, 375);
    if (width > 375 || shotWidth > 375) throw new Error(`${p || '/'} is ${width}px wide on a 375px screen (see ${shotsDir}/${name}.png)`);
  }
  await page.goto(`${live.baseUrl}${orgPath}/requests`);
  const firstRow = page.getByTestId('agent-requests').locator('tbody tr').first();
  const labels = await firstRow.locator('td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td, '::before').content));
  expect(labels.slice(0, 3)).toEqual(['"Request"', '"Status"', '"Provider"']);
  await page.context().close();
}, 90_000);
