import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { UserAction } from '../../contract/schemas';
import { signedUpWithOrg } from '../support/dashboard-session';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';
import { insertPausedRequest, PAUSED_OWNER } from '../support/paused-request';

/**
 * A NEEDS_USER request's page in a real Chromium: the page's words show as text (never as markup, no script runs), the
 * masked link's Copy button copies the whole link, "Show link" stays open while the live part refreshes every 2 s,
 * the panel goes once the run ends, and the page fits a phone.
 */
let live: LiveServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  [live, browser] = await Promise.all([startLiveServer(), startBrowser()]);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await live?.close();
});

const MESSAGE = '<img src=x onerror="window.__pwned=1"> Approve sending the message to Priya';

function ask(linkToken: string): UserAction {
  const now = Date.now();
  return {
    reason: 'APPROVAL',
    message: MESSAGE,
    since: new Date(now - 90_000).toISOString(),
    expiresAt: new Date(now + 8 * 60_000).toISOString(),
    linkToken,
    url: `${live.baseUrl}/link?token=${linkToken}`,
    write: {
      id: 'hw_test',
      method: 'POST',
      url: live.siteUrl('orbit', '/api/messages'),
      fields: [
        { name: 'to', value: 'Priya Nair' },
        { name: 'text', value: '<script>window.__pwned=2</script>Running late' },
      ],
      bodyBytes: 58,
    },
  };
}

async function signedIn(viewport: { width: number; height: number }): Promise<{ orgId: string }> {
  const { cookie, orgId } = await signedUpWithOrg(live.baseUrl, 'Waiting Co');
  const [name, value] = cookie.split('=');
  context = await browser.newContext({ viewport });
  context.setDefaultTimeout(15_000);
  await context.addCookies([{ name: name!, value: value!, url: `${live.baseUrl}/dashboard` }]);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.baseUrl });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return { orgId };
}

it('shows what the run waits for as text, copies the whole link, keeps "Show link" open across refreshes', async () => {
  const { orgId } = await signedIn({ width: 1280, height: 900 });
  const linkToken = `link-sandbox-${'e5'.repeat(32)}`;
  const id = await insertPausedRequest(live.services, orgId, () => ask(linkToken));
  await page.goto(`${live.baseUrl}/dashboard/orgs/${orgId}/requests/${id}`);

  const panel = page.getByTestId('user-action');
  await expect(panel.getByText('Waiting for the user').isVisible()).resolves.toBe(true);
  await expect(page.getByTestId('user-action-message').textContent()).resolves.toBe(MESSAGE);
  await expect(page.getByTestId('held-write-fields').textContent()).resolves.toContain('<script>window.__pwned=2</script>Running late');
  await expect(page.getByTestId('user-action-since').textContent()).resolves.toMatch(/^(1|2) min ago · /);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

  // Masked on screen; Copy puts the whole link on the clipboard.
  const masked = await page.getByTestId('user-action-link-masked').inputValue();
  expect(masked).toBe(`${live.baseUrl}/link?token=•••`);
  await expect(page.getByTestId('user-action-url').isVisible()).resolves.toBe(false);
  // "Copied" shows for 1.5 s, and htmx replaces the live part (the button with it) every 2 s: its answers wait while
  // the label is looked for, and the look starts before the click, so a slow machine cannot miss it.
  const live_ = `**/requests/${id}/live`;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(live_, async (route) => {
    await held;
    await route.continue();
  });
  const copied = panel.getByRole('button', { name: 'Copied' }).waitFor();
  await panel.getByRole('button', { name: 'Copy' }).click();
  await copied;
  release();
  await page.unroute(live_);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${live.baseUrl}/link?token=${linkToken}`);

  // "Show link" opens, and stays open while htmx swaps the live part (twice).
  await panel.getByText('Show link').click();
  await expect(page.getByTestId('user-action-url').textContent()).resolves.toBe(`${live.baseUrl}/link?token=${linkToken}`);
  for (let i = 0; i < 2; i++) await page.waitForResponse((r) => r.url().endsWith(`/requests/${id}/live`) && r.status() === 200);
  await page.waitForTimeout(200);
  await expect(page.getByTestId('user-action-url').isVisible()).resolves.toBe(true);

  // The run goes on and ends: the panel and the link go without a reload.
  await live.services.store.repos.agentRequests.finish(id, PAUSED_OWNER, {
    status: 'FAILED',
    result: null,
    error: { code: 'DENIED_BY_USER', message: 'The user denied the write; nothing was sent.' },
    completedAt: new Date(),
    executionTimeMs: 1200,
  });
  await page.getByTestId('request-status').getByText('FAILED').waitFor();
  await expect(panel.count()).resolves.toBe(0);
  expect(await page.content()).not.toContain(linkToken);
  expect(pageErrors).toEqual([]);
  await context.close();
}, 60_000);

it('fits a phone', async () => {
  const { orgId } = await signedIn({ width: 375, height: 812 });
  const id = await insertPausedRequest(live.services, orgId, () => ask(`link-sandbox-${'f6'.repeat(32)}`));
  await page.goto(`${live.baseUrl}/dashboard/orgs/${orgId}/requests/${id}`);
  await page.getByTestId('user-action').waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(375);
  expect(pageErrors).toEqual([]);
}, 60_000);
