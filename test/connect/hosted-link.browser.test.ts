import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { type LinkSessionEvent, verifyWebhook } from '@agentlink/client/webhooks';
import type { BrowserContext, Page } from 'playwright-core';

import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { api, awaitRequest, createRequest, eventually, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { watchScreens } from '../support/screen-watch';

/**
 * Hosted links end-to-end in Chromium, as an end user who got the link by e-mail would live it: a plain /link?token=…
 * opened in a fresh browser (no app page, no SDK, no popup) → sign-in on the sandbox Orbit → the browser lands on the
 * app's registered redirect URI with the public token in its query → the LINK.SESSION_FINISHED webhook reaches the
 * app's backend with the same token → the backend exchanges it → an agent request on the access token completes.
 * Then the exit the same way, and the SDK's popup, which answers its page by postMessage and does not redirect.
 */
jest.setTimeout(90_000);

interface Landing {
  query: Record<string, string>;
}

let live: LiveServer;
let org: LiveOrg;
let app: http.Server;
let appOrigin: string;
let redirectUri: string;
let webhookSecret: string;
const landings: Landing[] = [];
const hooks: { headers: Record<string, string>; body: string }[] = [];
let context: BrowserContext;
let page: Page;

/** The caller's app on its own loopback origin: the redirect URI's page, its webhook receiver, and an SDK-like opener. */
function appHandler(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', appOrigin);
  if (req.method === 'POST' && url.pathname === '/hooks') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
    return;
  }
  if (url.pathname === '/agentlink/done') {
    landings.push({ query: Object.fromEntries(url.searchParams) });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Example app</title><h1>Back in the app</h1>');
    return;
  }
  if (url.pathname === '/opener') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(OPENER_HTML);
    return;
  }
  res.writeHead(404).end();
}

/** Opens the widget as a popup and answers its ready with init, as the React SDK does. */
const OPENER_HTML = `<!doctype html><html><head><title>Example app</title></head><body>
<button id="connect">Connect an account</button>
<script>
var q = new URLSearchParams(location.search), backend = q.get('backend'), token = q.get('token');
window.__messages = [];
window.addEventListener('message', function (e) {
  if (e.origin !== backend) return;
  window.__messages.push(e.data);
  if (e.data && e.data.type === 'agentlink:ready' && !window.__initSent) {
    window.__initSent = true;
    e.source.postMessage({ type: 'agentlink:init', linkToken: token, env: 'sandbox' }, backend);
  }
});
document.getElementById('connect').addEventListener('click', function () {
  window.open(backend + '/link', 'agentlink', 'popup,width=420,height=760');
});
</script></body></html>`;

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  // The webhook dispatcher runs in the worker role; here it runs in this process, as `serve`'s embedded worker does.
  live.services.webhookDispatcher.start();
  org = await liveOrg(live, 'Hosted Link Co');
  app = http.createServer(appHandler);
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  redirectUri = `${appOrigin}/agentlink/done?app=acme`;
  expect((await api(live, org, 'POST', '/api/redirect-uris', { uri: redirectUri })).status).toBe(201);
  const hook = await api(live, org, 'POST', '/api/webhooks', { url: `${appOrigin}/hooks`, events: ['LINK.SESSION_FINISHED'] });
  expect(hook.status).toBe(201);
  webhookSecret = hook.body.secret;
});

afterAll(async () => {
  await live?.services.webhookDispatcher.stop();
  app?.closeAllConnections();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  await live?.services.loginEngine.close();
  await live?.close();
});

beforeEach(async () => {
  // A fresh browser: no cookies, no app page, nothing but the link.
  context = await live.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { name, level: 1 });

async function linkToken(clientUserId: string, completionRedirectUri = redirectUri): Promise<string> {
  const res = await api(live, org, 'POST', '/api/link-token', { clientUserId, completionRedirectUri });
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.linkToken;
}

/** The verified LINK.SESSION_FINISHED delivery of a link session, once it arrived. */
async function finishedEvent(linkSessionId: string): Promise<LinkSessionEvent> {
  const find = async () => {
    for (const h of hooks) {
      const event = await verifyWebhook({ payload: h.body, headers: h.headers, secret: webhookSecret });
      if (event.type === 'LINK.SESSION_FINISHED' && event.object.linkSessionId === linkSessionId) return event;
    }
    return null;
  };
  return (await eventually(find, (e) => e !== null, 20_000))!;
}

async function signInOnOrbit(p: Page) {
  await heading(p, 'Hosted Link Co uses AgentLink to connect your account').waitFor();
  await p.getByRole('button', { name: 'Continue' }).click();
  await heading(p, 'Select your account provider').waitFor();
  await p
    .getByRole('list', { name: 'Providers' })
    .getByRole('button', { name: /^Orbit/ })
    .click();
  await heading(p, 'Sign in to Orbit').waitFor();
  await p.getByLabel('Username or email').fill('user_good');
  await p.getByLabel('Password').fill('pass_good');
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const landedOn = (p: Page) => p.waitForURL((u) => u.origin === appOrigin && u.pathname === '/agentlink/done', { timeout: 30_000 });

it('a plain link: sign in → the redirect URI gets the public token → the webhook brings the same → exchange → an agent request completes', async () => {
  const token = await linkToken('hosted-user-1');
  const seen = await watchScreens(page, { heading: 'Connected!', text: 'Returning you to Hosted Link Co…' });
  await page.goto(`${live.baseUrl}/link?token=${token}`);
  await signInOnOrbit(page);
  await landedOn(page);
  // The widget said so before it left: "Connected!", then where it returns the person.
  expect(seen).toEqual({ heading: true, text: true });
  await heading(page, 'Back in the app').waitFor();

  // The landing's query: the registered URI's own parameter kept, the outcome added (nothing else).
  const landing = landings.at(-1)!;
  expect(Object.keys(landing.query).sort()).toEqual(['app', 'link_session_id', 'public_token', 'status']);
  expect(landing.query).toMatchObject({ app: 'acme', status: 'success' });
  expect(landing.query.public_token).toMatch(/^public-sandbox-/);
  expect(landing.query.link_session_id).toMatch(/^lses_/);
  // The widget's page is out of the history: Back does not return to a finished flow.
  expect(await page.evaluate(() => history.length)).toBe(2);

  // The webhook reached the backend with the same token, and the backend exchanges it.
  const event = await finishedEvent(landing.query.link_session_id);
  expect(event.object).toMatchObject({
    status: 'SUCCESS',
    publicToken: landing.query.public_token,
    linkSessionId: landing.query.link_session_id,
    clientUserId: 'hosted-user-1',
    providerId: ORBIT_PROVIDER_ID,
    connectionId: expect.stringMatching(/^conn_/),
    error: null,
  });
  const exchanged = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: event.object.publicToken });
  expect(exchanged.status).toBe(200);
  expect(exchanged.body).toMatchObject({ connectionId: event.object.connectionId, clientUserId: 'hosted-user-1', status: 'ACTIVE' });
  // Single use, as always: the token from the URL cannot be exchanged a second time.
  const replay = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: landing.query.public_token });
  expect(replay.body.error.code).toBe('PUBLIC_TOKEN_ALREADY_USED');

  // The access token works: an agent request on the connected account completes (a playbook, no model).
  const requestId = await createRequest(live, org, {
    accessToken: exchanged.body.access_token,
    action: 'Read my profile',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { name: 'string - full name', followers: 'integer - number of followers' },
  });
  const record = await awaitRequest(live, org, requestId);
  expect(record).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', connectionId: exchanged.body.connectionId });
  expect(record.result).toMatchObject({ name: expect.any(String), followers: expect.any(Number) });
});

it('a plain link the person closes: the redirect URI gets status=exited and USER_CLOSED, and so does the webhook', async () => {
  const token = await linkToken('hosted-user-2');
  await page.goto(`${live.baseUrl}/link?token=${token}`);
  await heading(page, /uses AgentLink to connect your account/).waitFor();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await landedOn(page);
  const landing = landings.at(-1)!;
  expect(landing.query).toEqual({
    app: 'acme',
    link_session_id: expect.stringMatching(/^lses_/),
    status: 'exited',
    error_code: 'USER_CLOSED',
  });
  const event = await finishedEvent(landing.query.link_session_id);
  expect(event.object).toMatchObject({
    status: 'EXITED',
    publicToken: null,
    error: { code: 'USER_CLOSED' },
    clientUserId: 'hosted-user-2',
  });
});

it('the same link token in the SDK popup: the app gets the token by postMessage, the popup closes without redirecting, the webhook still comes', async () => {
  const token = await linkToken('hosted-user-3');
  const before = landings.length;
  await page.goto(`${appOrigin}/opener?backend=${encodeURIComponent(live.baseUrl)}&token=${encodeURIComponent(token)}`);
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Connect an account' }).click()]);
  const closed = popup.waitForEvent('close', { timeout: 30_000 });
  await signInOnOrbit(popup);
  await closed;
  const success = await eventually(
    () =>
      page.evaluate(() => (window as unknown as { __messages: { type: string }[] }).__messages.find((m) => m.type === 'agentlink:success')),
    (m) => m !== undefined,
  );
  const { publicToken, metadata } = success as unknown as { publicToken: string; metadata: { linkSessionId: string } };
  expect(landings.length).toBe(before);
  const event = await finishedEvent(metadata.linkSessionId);
  expect(event.object).toMatchObject({ status: 'SUCCESS', publicToken, clientUserId: 'hosted-user-3' });
});
