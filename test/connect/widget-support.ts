import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { authenticator } from 'otplib';
import type { BrowserContext, Page } from 'playwright-core';

import { ManualClock } from '../../server/domain/clock';
import { hashToken } from '../../server/domain/tokens';
import { SANDBOX_TOTP_SECRET } from '../../server/sandbox/test-users';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * What widget.browser.test.ts drives the connect widget with: a live server on a manual clock with an organization,
 * an app on another origin that opens the widget as a popup and a page on a third origin that only records messages
 * (their HTML is below), a browser context and page per test, all started by `useWidgetBrowser()` (the bindings
 * below are set by its hooks); link tokens and what the store recorded of them; and the steps a person takes in the
 * widget.
 */
export let server: LiveServer;
export let clock: ManualClock;
export let org: { organizationId: string; name: string; clientId: string; sandboxSecret: string };
let openerServer: http.Server;
export let openerOrigin: string;
let elsewhereServer: http.Server;
export let elsewhereOrigin: string;
let context: BrowserContext;
export let page: Page;
/** Where the phone-width test saves its screenshots. */
export const SCREENSHOTS = path.join(os.tmpdir(), 'agentlink-widget-screens');

/** A tiny app on another loopback origin: opens the widget as a popup and answers its ready with init. */
const OPENER_HTML = `<!doctype html><html><head><title>Example app</title></head><body>
<h1>Example app</h1><button id="connect">Connect an account</button>
<script>
var q = new URLSearchParams(location.search), backend = q.get('backend'), token = q.get('token');
window.__messages = [];
window.addEventListener('message', function (e) {
  window.__messages.push({ origin: e.origin, data: e.data });
  if (e.origin === backend && e.data && e.data.type === 'agentlink:ready' && !window.__initSent) {
    window.__initSent = true;
    e.source.postMessage({ type: 'agentlink:init', linkToken: token, env: 'sandbox' }, backend);
  }
});
document.getElementById('connect').addEventListener('click', function () {
  window.open(backend + '/link', 'agentlink', 'popup,width=420,height=760');
});
</script></body></html>`;

/** Another origin that only records what reaches it. */
const ELSEWHERE_HTML = `<!doctype html><html><head><title>Elsewhere</title></head><body><h1>Elsewhere</h1>
<script>window.__messages = []; window.addEventListener('message', function (e) { window.__messages.push({ origin: e.origin, data: e.data }); });</script></body></html>`;

async function serve(html: string): Promise<{ server: http.Server; origin: string }> {
  const s = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

/**
 * Starts the server (on a manual clock, with an organization) and the two other-origin pages for the calling test
 * file; opens a browser context and a page for each test.
 */
export function useWidgetBrowser(): void {
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    server = await startLiveServer({ clock });
    const created = await server.services.organizations.create('Acme Assistant');
    org = {
      organizationId: created.organization.id,
      name: 'Acme Assistant',
      clientId: created.clientId,
      sandboxSecret: created.sandboxSecret,
    };
    ({ server: openerServer, origin: openerOrigin } = await serve(OPENER_HTML));
    ({ server: elsewhereServer, origin: elsewhereOrigin } = await serve(ELSEWHERE_HTML));
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    openerServer?.close();
    elsewhereServer?.close();
    await server?.services.loginEngine.close();
    await server?.services.browsers.close();
    await server?.close();
  });

  beforeEach(async () => {
    context = await server.services.browsers.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();
  });

  afterEach(async () => {
    await context?.close();
  });
}

export const api = (p: string) => `${server.baseUrl}${p}`;

/** A link token of the organization's, for end-user-1 unless the body says otherwise. */
export async function createLinkToken(body: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(api('/api/link-token'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret },
    body: JSON.stringify({ clientUserId: 'end-user-1', ...body }),
  });
  const json = (await res.json()) as { linkToken: string };
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(json)}`);
  return json.linkToken;
}

export async function tokenRecord(linkToken: string) {
  return (await server.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
}

export async function sessionsOf(linkToken: string) {
  return server.services.store.repos.linkSessions.listForLinkToken((await tokenRecord(linkToken)).id);
}

export const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { name, level: 1 });

/** The sandbox's current TOTP code, with at least 4 s of its validity left. */
export async function freshTotp(): Promise<string> {
  // At least 10 s left of the code's 30: the sandbox takes only the current one (no window), and a loaded machine can
  // spend several seconds between here and the site's check.
  if (authenticator.timeRemaining() < 10) await new Promise((r) => setTimeout(r, (authenticator.timeRemaining() + 0.5) * 1000));
  return authenticator.generate(SANDBOX_TOTP_SECRET);
}

/** Consent → picker → the provider's sign-in form. */
export async function throughConsentAndPicker(p: Page, providerName: RegExp = /^Orbit/) {
  await heading(p, `${org.name} uses AgentLink to connect your account`).waitFor();
  await p.getByRole('button', { name: 'Continue' }).click();
  await heading(p, 'Select your account provider').waitFor();
  await p.getByRole('list', { name: 'Providers' }).getByRole('button', { name: providerName }).click();
}

export async function signIn(p: Page, username: string, password = 'pass_good') {
  await p.getByLabel('Username or email').fill(username);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

export async function expectNoHorizontalScroll(p: Page) {
  const [scrollWidth, clientWidth] = await p.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

/** Polls a condition (up to 20 s: a bound for a loaded machine, never a wait when it holds). */
export async function expect_(condition: () => Promise<boolean>, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
