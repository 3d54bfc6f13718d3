import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { authenticator } from 'otplib';
import type { BrowserContext, Frame, Page } from 'playwright-core';

import { createRelayApp } from '../../examples/relay/server';
import { buildWebApp } from '../../examples/web/build';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { SANDBOX_TOTP_SECRET } from '../../server/sandbox/test-users';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { closeWidgetPopup } from '../support/widget-popup';

/**
 * The whole caller side in Chromium: the example app (examples/web, served by the example relay on its own
 * loopback origin) → useAgentLink → the hosted widget at AgentLink /link (popup, or the in-page iframe when
 * popups are blocked) → a real login through the login engine → onSuccess → exchange through the relay →
 * the connection on screen → an agent request accepted through the relay.
 */
jest.setTimeout(90_000);

let live: LiveServer;
let relayServer: http.Server;
let appUrl: string;
let webDir: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-example-e2e-'));
  const [server] = await Promise.all([startLiveServer(), buildWebApp(webDir)]);
  live = server;
  const org = await live.services.organizations.create('Example Co');
  const relay = createRelayApp(
    { AGENTLINK_CLIENT_ID: org.clientId, AGENTLINK_CLIENT_SECRET: org.sandboxSecret, AGENTLINK_BASE_URL: live.baseUrl },
    { webDir },
  );
  relayServer = http.createServer(relay);
  await new Promise<void>((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(relayServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  relayServer?.closeAllConnections();
  await new Promise<void>((resolve) => (relayServer ? relayServer.close(() => resolve()) : resolve()));
  await live?.services.loginEngine.close();
  await live?.services.browsers.close();
  await live?.close();
  if (webDir) fs.rmSync(webDir, { recursive: true, force: true });
});

beforeEach(async () => {
  context = await live.services.browsers.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

const heading = (p: Page | Frame, name: string | RegExp) => p.getByRole('heading', { name, level: 1 });

async function freshTotp(): Promise<string> {
  // At least 10 s left of the code's 30: the sandbox takes only the current one (no window), and a loaded machine can
  // spend several seconds between here and the site's check.
  if (authenticator.timeRemaining() < 10) await new Promise((r) => setTimeout(r, (authenticator.timeRemaining() + 0.5) * 1000));
  return authenticator.generate(SANDBOX_TOTP_SECRET);
}

/** The app is up with a link token: the Connect button is enabled. */
async function openApp(query = '') {
  await page.goto(`${appUrl}/${query}`);
  const connect = page.getByRole('button', { name: 'Connect account' });
  await page.waitForFunction(() => {
    const b = [...document.querySelectorAll('button')].find((x) => x.textContent === 'Connect account');
    return !!b && !b.disabled;
  });
  return connect;
}

async function clickConnectForPopup(): Promise<Page> {
  const connect = await openApp();
  const [popup] = await Promise.all([context.waitForEvent('page'), connect.click()]);
  return popup;
}

/** Consent → Orbit → user_mfa / pass_good → TOTP. */
async function connectOrbitAsMfaUser(w: Page | Frame) {
  await heading(w, 'Example Co uses AgentLink to connect your account').waitFor();
  await w.getByRole('button', { name: 'Continue' }).click();
  await heading(w, 'Select your account provider').waitFor();
  await w
    .getByRole('list', { name: 'Providers' })
    .getByRole('button', { name: /^Orbit/ })
    .click();
  await heading(w, 'Sign in to Orbit').waitFor();
  await w.getByLabel('Username or email').fill('user_mfa');
  await w.getByLabel('Password').fill('pass_good');
  await w.getByRole('button', { name: 'Sign in', exact: true }).click();
  await heading(w, 'Enter your authenticator code').waitFor();
  await w.getByLabel('Verification code').fill(await freshTotp());
  await w.getByRole('button', { name: 'Verify' }).click();
}

async function expectConnected(clientUserId = 'demo-user') {
  const section = page.getByTestId('connection');
  await section.waitFor();
  expect(await page.getByTestId('connection-status').textContent()).toBe('ACTIVE');
  const connectionId = (await page.getByTestId('connection-id').textContent())!;
  const connection = await live.services.store.repos.connections.findById(connectionId);
  expect(connection).toMatchObject({ status: 'ACTIVE', providerId: ORBIT_PROVIDER_ID, clientUserId });
  expect(connection!.sealedSession).toMatch(/^v1\./);
  return connectionId;
}

it('popup: connect Orbit as user_mfa, exchange through the relay, see the connection, run an agent request', async () => {
  const popup = await clickConnectForPopup();
  expect(popup.url()).toBe(`${live.baseUrl}/link`);
  const closed = popup.waitForEvent('close', { timeout: 30_000 });
  await connectOrbitAsMfaUser(popup);
  await closed;

  await expectConnected();
  expect(await page.getByText(/Widget events: OPEN → CONSENT_GIVEN → SELECT_PROVIDER → SUBMIT_CREDENTIALS/).count()).toBe(1);
  expect(await page.getByTestId('link-error').count()).toBe(0);

  // The agent request form is prefilled for the sandbox Orbit profile page; the relay answers 202 and the app polls.
  await page.waitForFunction(() => (document.getElementById('startingUrl') as HTMLInputElement | null)?.value);
  expect(await page.getByLabel('startingUrl').inputValue()).toBe(live.siteUrl('orbit', '/me'));
  await page.getByLabel(/Ask me before it changes anything/).check();
  await page.getByRole('button', { name: 'Run agent request' }).click();
  await page.getByTestId('agent-status').waitFor();
  const requestId = (await page.getByTestId('agent-request').locator('code').first().textContent())!;
  const record = await live.services.store.repos.agentRequests.findById(requestId);
  expect(record).toMatchObject({ action: 'Read my profile', startingUrl: live.siteUrl('orbit', '/me'), approval: 'writes' });
  expect(['PENDING', 'RUNNING', 'NEEDS_USER', 'COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT']).toContain(
    await page.getByTestId('agent-status').textContent(),
  );

  // The run pauses NEEDS_USER (written as a worker writes it; no worker runs here): the app, polling, shows what it
  // waits for and opens the widget with the request's userAction.linkToken. No run holds this page in this process,
  // so the widget says the step is over, and the app shows that.
  const repo = live.services.store.repos.agentRequests;
  const now = new Date();
  expect(await repo.claim(requestId, 'test-worker', now, new Date(now.getTime() + 60_000), 3)).toBe(true);
  const expiresAt = new Date(now.getTime() + 10 * 60_000);
  const linkToken = await live.services.linkTokens.createForUserAction(record!, expiresAt);
  const userAction = {
    reason: 'APPROVAL' as const,
    message: 'Approve sending the message to Priya.',
    since: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
    linkToken,
    url: `${live.baseUrl}/link?token=${linkToken}`,
    write: {
      id: 'hw_test',
      method: 'POST',
      url: live.siteUrl('orbit', '/api/messages'),
      fields: [{ name: 'text', value: 'Running late' }],
      bodyBytes: 17,
    },
  };
  expect(await repo.pauseForUser(requestId, 'test-worker', live.services.userActions.seal(requestId, userAction))).toBe(true);
  await page.getByTestId('agent-status').getByText('NEEDS_USER').waitFor();
  expect(await page.getByTestId('user-action').textContent()).toContain(
    'The task needs you (APPROVAL): Approve sending the message to Priya.',
  );
  expect(await page.getByTestId('held-write').textContent()).toContain('text: Running late');
  const [taskPopup] = await Promise.all([context.waitForEvent('page'), page.getByRole('button', { name: 'Continue the task' }).click()]);
  expect(taskPopup.url()).toBe(`${live.baseUrl}/link`);
  await page.getByTestId('user-action-error').waitFor();
  expect(await page.getByTestId('user-action-error').textContent()).toContain('USER_ACTION_ENDED');
});

it('closing the widget with its Close button shows USER_CLOSED in the app', async () => {
  const popup = await clickConnectForPopup();
  await heading(popup, /uses AgentLink/).waitFor();
  await closeWidgetPopup(popup);
  const alert = page.getByTestId('link-error');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/^USER_CLOSED: /);
  // The link token was not used: the button stays usable.
  expect(await page.getByRole('button', { name: 'Connect account' }).isEnabled()).toBe(true);
});

it('closing the popup window itself shows USER_CLOSED in the app', async () => {
  const popup = await clickConnectForPopup();
  await heading(popup, /uses AgentLink/).waitFor();
  await popup.close();
  const alert = page.getByTestId('link-error');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/^USER_CLOSED: /);
});

it('popup blocked: the widget opens in the in-page dialog and connects the same way', async () => {
  await page.addInitScript(() => {
    window.open = () => null;
  });
  const connect = await openApp('?user=iframe-user');
  await connect.click();
  const dialog = page.getByRole('dialog', { name: 'Connect your account' });
  await dialog.waitFor();
  const frame = page.frameLocator('iframe[title^="AgentLink"]');
  await frame.getByRole('heading', { level: 1 }).first().waitFor();
  const widget = page.frames().find((f) => f.url() === `${live.baseUrl}/link`)!;
  expect(widget).toBeDefined();
  await connectOrbitAsMfaUser(widget);
  await expectConnected('iframe-user');
  expect(await dialog.count()).toBe(0);
});

it('env mismatch: a sandbox link token with ?env=production is refused by the hook before anything opens', async () => {
  await page.goto(`${appUrl}/?env=production`);
  const alert = page.getByTestId('link-error');
  await alert.waitFor();
  expect(await alert.textContent()).toBe(
    'ENVIRONMENT_MISMATCH: The link token belongs to the sandbox environment, but env is "production".',
  );
  expect(await page.getByRole('button', { name: 'Connect account' }).isDisabled()).toBe(true);
});
