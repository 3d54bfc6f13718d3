import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { createRelayApp } from '../../examples/relay/server';
import { ORBIT_PROVIDER_ID } from '../support/helpers';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * The dashboard in a real Chromium against a real AgentLink: sign up → create an organization → copy its
 * credentials → run the example relay with them → the connection and the agent request show up (the request's
 * page updates live) → revoke the connection → rotate the sandbox secret.
 */
let live: LiveServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let relayServer: http.Server | undefined;
let receiver: http.Server | undefined;
let webDir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  [live, browser] = await Promise.all([startLiveServer(), startBrowser()]);
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-dashboard-web-'));
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(15_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.baseUrl });
  page = await context.newPage();
  // A CSP violation or a script error on any dashboard page fails the test.
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 60_000);

afterAll(async () => {
  for (const server of [relayServer, receiver]) {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
  await context?.close();
  await browser?.close();
  await live?.close();
  if (webDir) fs.rmSync(webDir, { recursive: true, force: true });
});

async function api(method: string, pathname: string, creds: { clientId: string; secret: string }, body?: unknown) {
  const res = await fetch(`${live.baseUrl}${pathname}`, {
    method,
    headers: { 'x-client-id': creds.clientId, 'x-client-secret': creds.secret, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function relayPost(base: string, pathname: string, body: unknown) {
  const res = await fetch(`${base}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

it('sign up → create org → copy credentials → relay → see the connection and the request; revoke; rotate', async () => {
  // Sign up.
  await page.goto(`${live.baseUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByRole('link', { name: 'Sign up' }).last().click();
  await page.getByLabel('Email').fill('founder@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { name: 'Your organizations' }).waitFor();

  // Create an organization: Client ID and both secrets, shown once.
  await page.getByLabel('Organization name').fill('Dashboard Demo Co');
  await page.getByRole('button', { name: 'Create organization' }).click();
  await page.getByText('Copy it now').first().waitFor();
  const clientId = await page.getByTestId('client-id').inputValue();
  const sandboxSecret = await page.getByTestId('sandbox-secret').inputValue();
  expect(clientId).toMatch(/^cli_/);
  expect(sandboxSecret).toMatch(/^sk_sandbox_/);
  expect(await page.getByTestId('production-secret').inputValue()).toMatch(/^sk_production_/);
  // The Copy button puts the secret on the clipboard.
  await page.getByTestId('sandbox-secret').locator('..').getByRole('button', { name: 'Copy' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(sandboxSecret);
  const orgUrl = new URL(
    await page
      .getByRole('link', { name: 'Credentials' })
      .getAttribute('href')
      .then((h) => h!),
    live.baseUrl,
  ).toString();

  // A webhook endpoint (a receiver on loopback that answers 503 once, then 200).
  const received: string[] = [];
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(received.length === 1 ? 503 : 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByLabel('URL').fill(hookUrl);
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByTestId('webhook-secret').waitFor();
  expect(await page.getByTestId('webhook-secret').inputValue()).not.toBe('');

  // The example relay runs with the copied credentials.
  const relay = createRelayApp(
    { AGENTLINK_CLIENT_ID: clientId, AGENTLINK_CLIENT_SECRET: sandboxSecret, AGENTLINK_BASE_URL: live.baseUrl },
    { webDir },
  );
  relayServer = http.createServer(relay);
  await new Promise<void>((resolve) => relayServer!.listen(0, '127.0.0.1', resolve));
  const relayUrl = `http://127.0.0.1:${(relayServer.address() as AddressInfo).port}`;

  const linkToken = await relayPost(relayUrl, '/api/link-token', { clientUserId: 'dash-user-1', providerId: ORBIT_PROVIDER_ID });
  expect(linkToken).toMatchObject({ status: 200, body: { linkToken: expect.stringMatching(/^link-sandbox-/) } });
  const creds = { clientId, secret: sandboxSecret };
  const publicToken = await api('POST', '/api/sandbox/public_token/create', creds, {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId: 'dash-user-1',
  });
  expect(publicToken.status).toBe(200);
  const exchanged = await relayPost(relayUrl, '/api/exchange', { publicToken: publicToken.body.publicToken });
  expect(exchanged.status).toBe(200);
  const connectionId = exchanged.body.connectionId as string;
  const created = await relayPost(relayUrl, '/api/agent-requests', {
    accessToken: exchanged.body.access_token,
    action: 'Read my profile',
    startingUrl: live.siteUrl('orbit', '/me'),
    parameters: { detail: 'full' },
    responseFormat: { name: 'string - Full name' },
  });
  expect(created).toMatchObject({ status: 202, body: { status: 'PENDING' } });
  const requestId = created.body.requestId as string;

  // The connection appears.
  await page.getByRole('link', { name: 'Connections' }).click();
  const row = page.locator(`tr[data-connection-id="${connectionId}"]`);
  await expect(row.textContent()).resolves.toContain('dash-user-1');
  expect(await row.textContent()).toContain('Orbit');
  expect(await row.textContent()).toContain('ACTIVE');

  // The agent request appears, with filters.
  await page.getByRole('link', { name: 'Agent requests' }).click();
  await page.locator(`tr[data-request-id="${requestId}"]`).waitFor();
  await page.getByLabel('Status').selectOption('COMPLETED');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No agent requests match.').waitFor();
  await page.getByLabel('Status').selectOption('PENDING');
  await page.getByLabel('Provider').selectOption(ORBIT_PROVIDER_ID);
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('link', { name: requestId }).click();

  // Its page: parameters and a live status while it waits; a worker's progress shows up without a reload.
  await page.getByRole('heading', { name: requestId }).waitFor();
  expect(await page.locator('main').textContent()).toContain('"detail": "full"');
  await expect(page.getByTestId('request-status').textContent()).resolves.toBe('PENDING');
  const repo = live.services.store.repos.agentRequests;
  const now = new Date();
  expect(await repo.claim(requestId, 'test-worker', now, new Date(now.getTime() + 60_000), 3)).toBe(true);
  await page.getByTestId('request-status').getByText('RUNNING').waitFor();
  const screenshot = (await page.screenshot({ type: 'jpeg', quality: 30, clip: { x: 0, y: 0, width: 200, height: 120 } })).toString(
    'base64',
  );
  await repo.finish(requestId, 'test-worker', {
    status: 'FAILED',
    result: null,
    error: { code: 'PROVIDER_CHANGED', message: 'The profile page looked different.' },
    completedAt: new Date(),
    executionTimeMs: 1234,
    method: 'PLANNER',
    modelUsage: { calls: 3, promptTokens: 1500, completionTokens: 120 },
    trace: [
      { tool: 'goto', url: live.siteUrl('orbit', '/me'), durationMs: 210, outcome: 'ok' },
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
  await page.getByTestId('request-status').getByText('FAILED').waitFor();
  const main = (await page.locator('main').textContent()) ?? '';
  expect(main).toContain('PROVIDER_CHANGED');
  expect(main).toContain('1234 ms');
  expect(main).toContain('3 calls · 1500 prompt + 120 completion tokens');
  expect(main).toContain('PLANNER');
  expect(await page.getByAltText('Screenshot of step 2').getAttribute('src')).toBe(`data:image/jpeg;base64,${screenshot}`);

  // Revoke the connection, with a confirmation step: the API says REVOKED.
  await page.getByRole('link', { name: 'Connections' }).click();
  await row.getByRole('link', { name: 'Revoke' }).click();
  await page.getByRole('heading', { name: 'Revoke this connection?' }).waitFor();
  await page.getByRole('button', { name: 'Yes, revoke' }).click();
  await row.getByText('REVOKED').waitFor();
  const connection = await api('GET', `/api/connections/${connectionId}`, creds);
  expect(connection).toMatchObject({ status: 200, body: { status: 'REVOKED' } });

  // Webhook deliveries (CONNECTION.CREATED, CONNECTION.REVOKED) with their response codes; re-send one.
  await live.services.webhookEvents.idle();
  await live.services.webhookDispatcher.tick();
  expect(received.length).toBeGreaterThanOrEqual(2);
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('link', { name: hookUrl }).click();
  const codes = page.getByTestId('response-code');
  await page.getByTestId('webhook-deliveries').waitFor();
  const before = (await codes.allTextContents()).map((c) => c.trim());
  expect(before).toEqual(expect.arrayContaining(['503', '200']));
  const failedRow = page.locator('tr[data-delivery-id]', { has: page.getByTestId('response-code').getByText('503', { exact: true }) });
  await failedRow.getByRole('button', { name: 'Re-send' }).click();
  await page.getByText('A new delivery was queued').waitFor();
  await live.services.webhookDispatcher.tick();
  await page.reload();
  const after = (await codes.allTextContents()).map((c) => c.trim());
  expect(after).toHaveLength(before.length + 1);
  expect(after.filter((c) => c === '200')).toHaveLength(before.filter((c) => c === '200').length + 1);

  // Rotate the sandbox secret, with a confirmation step: the old one gets 401, the new one works.
  await page.goto(orgUrl);
  await page.getByRole('button', { name: 'Rotate sandbox secret' }).click();
  await page.getByRole('heading', { name: /Rotate the sandbox secret/ }).waitFor();
  await page.getByRole('button', { name: 'Yes, rotate the sandbox secret' }).click();
  await page.getByText('The sandbox secret was rotated').waitFor();
  const newSecret = await page.getByTestId('sandbox-secret').inputValue();
  expect(newSecret).toMatch(/^sk_sandbox_/);
  expect(newSecret).not.toBe(sandboxSecret);
  expect((await api('GET', '/api/providers', creds)).status).toBe(401);
  expect((await api('GET', '/api/providers', { clientId, secret: newSecret })).status).toBe(200);
  expect((await relayPost(relayUrl, '/api/link-token', { clientUserId: 'dash-user-2' })).status).toBe(401);
  // Shown once: the overview does not show it again.
  await page.goto(orgUrl);
  expect(await page.content()).not.toContain(newSecret);
  expect(pageErrors).toEqual([]);
}, 90_000);
