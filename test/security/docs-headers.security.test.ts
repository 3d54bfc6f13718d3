import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';

import { createTestApp, type TestApp } from '../support/app';
import { freePort } from '../support/free-port';
import { createOrg } from '../support/helpers';
import { startBrowser } from '../support/live-server';

/**
 * The API docs (/docs, server/http/api-docs.ts): served with a Content-Security-Policy (scripts and requests to this
 * origin only, inline styles by hash) and frame protection, and without persistAuthorization. Before, /docs had no
 * CSP or frame protection, and a secret typed into "Authorize" stayed in localStorage on the dashboard's origin.
 * Checked in real Chromium on loopback, with a second loopback listener playing the other site.
 */
let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let other: http.Server;
let otherBase: string;
const otherHits: string[] = [];

beforeAll(async () => {
  // The docs call the API at the public URL: here, where this app listens.
  const port = await freePort();
  [t, browser] = await Promise.all([
    createTestApp('sqlite', { PORT: String(port), AGENTLINK_PUBLIC_URL: `http://127.0.0.1:${port}` }),
    startBrowser(),
  ]);
  // The other site: frames /docs, and serves a spec that `?url=` would try to load.
  other = http.createServer((req, res) => {
    otherHits.push(req.url ?? '');
    if (req.url === '/frame') {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><iframe id="docs" src="${t.baseUrl}/docs/" width="800" height="600"></iframe>`);
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.setHeader('access-control-allow-origin', '*');
    res.end(JSON.stringify({ openapi: '3.0.0', info: { title: 'EVIL SPEC', version: '1' }, paths: {} }));
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
}, 60_000);

beforeEach(async () => {
  context = await browser.newContext();
  otherHits.length = 0;
});

afterEach(async () => {
  await context?.close();
});

afterAll(async () => {
  await browser?.close();
  other?.closeAllConnections();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
  await t?.close();
});

// Swagger UI takes about 2.5 s to render this API's document on an idle machine, and several times that beside a
// loaded CI's other test files: the waits for it are bounded by a minute, not by what an idle run needs.
jest.setTimeout(90_000);
const RENDERED_MS = 45_000;

/** Opens /docs (plus `query`) and waits until Swagger UI lists the operations; collects CSP violations. */
async function openDocs(query = ''): Promise<{ page: Page; violations: string[] }> {
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${t.baseUrl}/docs/${query}`);
  await page.locator('.opblock-summary-path', { hasText: '/api/providers' }).first().waitFor({ timeout: RENDERED_MS });
  return { page, violations };
}

describe('API docs: headers and stored secrets', () => {
  it('blocks framing of /docs by another site (X-Frame-Options DENY, frame-ancestors none)', async () => {
    for (const path of ['/docs/', '/docs/swagger-ui-init.js']) {
      const res = await request(t.server).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    const page = await context.newPage();
    await page.goto(`${otherBase}/frame`);
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // The framed document never became the docs: Chromium leaves an error page (or nothing) in the frame.
    const framedTitle = frame ? await frame.title().catch(() => '') : '';
    expect(framedTitle).not.toBe('AgentLink API');
    expect(await (frame?.locator('.opblock').count() ?? 0)).toBe(0);
  });

  it('blocks inline and foreign scripts: the CSP allows scripts from this origin only, and Swagger UI still renders', async () => {
    const res = await request(t.server).get('/docs/');
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/.exec(csp)![1];
    expect(scriptSrc.trim()).toBe("'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    const { page, violations } = await openDocs();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    expect(violations).toStrictEqual([]);
  });

  it('refuses to keep a client secret typed into "Authorize" in localStorage', async () => {
    const secret = `sk_sandbox_${'Q'.repeat(43)}`;
    const { page } = await openDocs();
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    const secretBlock = page.locator('.modal-ux .auth-container', { hasText: 'clientSecret (apiKey)' });
    await secretBlock.locator('input').fill(secret);
    await secretBlock.locator('button[type=submit]').click();
    // Swagger UI now holds it (in memory) and sends it with "Try it out"; it must not be written anywhere lasting.
    await secretBlock.getByText('Authorized').waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).not.toContain(secret);
    await page.reload();
    await page.locator('.opblock').first().waitFor({ timeout: RENDERED_MS });
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(secret);
  });

  it('Authorize takes both credentials in one step (HTTP Basic), and "Try it out" then answers 200', async () => {
    const { clientId, sandboxSecret } = await createOrg(t, 'Docs Co');
    const { page } = await openDocs();
    await page
      .getByRole('button', { name: /Authorize/ })
      .first()
      .click();
    const basic = page.locator('.modal-ux .auth-container', { hasText: 'clientBasic' });
    await basic.locator('input').nth(0).fill(clientId);
    await basic.locator('input[type=password]').fill(sandboxSecret);
    await basic.locator('button[type=submit]').click();
    await basic.getByText('Authorized').waitFor();
    await page.locator('.modal-ux button.btn-done, .modal-ux .close-modal').first().click();
    const op = page.locator('.opblock', { hasText: '/api/providers' }).filter({ hasText: 'GET' }).first();
    await op.locator('.opblock-summary').click();
    await op.getByRole('button', { name: 'Try it out' }).click();
    await op.getByRole('button', { name: 'Execute' }).click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
  });

  it("blocks `?url=` from loading another site's spec into the docs", async () => {
    const { page } = await openDocs(`?url=${encodeURIComponent(`${otherBase}/evil.json`)}`);
    await page.waitForTimeout(300);
    expect(otherHits).toStrictEqual([]);
    expect(await page.getByText('EVIL SPEC').count()).toBe(0);
  });
});
