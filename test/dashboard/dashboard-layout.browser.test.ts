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

async function shot(page: Page, name: string): Promise<number> {
  const png = await page.screenshot({ fullPage: true, path: path.join(shotsDir, `${name}.png`) });
  return pngWidth(png);
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
  expect(await shot(page, 'requests-1280')).toBeLessThanOrEqual(1280);

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

it('on a 375 px phone no page scrolls sideways, and rows read as labelled cards', async () => {
  const page = await signedInPage({ width: 375, height: 740 }, true);
  const pages = ['', '/connections', '/requests', `/requests/${requestIds[0]}`, `/connections/${connectionId}`, '/webhooks'];
  for (const p of pages) {
    await page.goto(`${live.baseUrl}${orgPath}${p}`);
    await page.locator('main h1').first().waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    const name = `phone${p.replace(/\//g, '-') || '-credentials'}`;
    const shotWidth = await shot(page, name);
    if (width > 375 || shotWidth > 375) throw new Error(`${p || '/'} is ${width}px wide on a 375px screen (see ${shotsDir}/${name}.png)`);
  }
  await page.goto(`${live.baseUrl}${orgPath}/requests`);
  const firstRow = page.getByTestId('agent-requests').locator('tbody tr').first();
  const labels = await firstRow.locator('td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td, '::before').content));
  expect(labels.slice(0, 3)).toEqual(['"Request"', '"Status"', '"Provider"']);
  await page.context().close();
}, 90_000);
