import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { ManualClock } from '../../server/domain/clock';
import { requestLike, type Verdict, verifyAgentRequest } from '../support/bot-auth-verifier';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { writeOperatorProviders } from '../support/operator-providers';
import { createLinkToken, widgetSession } from '../support/widget-api';
import { api, type LiveOrg, liveOrg } from './agent-support';

/**
 * Signed agent requests (Web Bot Auth) end to end: a live AgentLink (its API, its key directory, its health checks in
 * real Chromium) and a provider site the operator declared (AGENTLINK_PROVIDERS_FILE) on loopback that verifies every request it receives with
 * Cloudflare's verifier, fetching the keys from the live AgentLink's /.well-known directory. A check, a check's silent
 * re-login, and the widget's sign-ins (the login engine's form path and the live view) are signed only when the
 * organization (connection settings) and the provider (declaration) both opted in; either off, nothing is.
 */
jest.setTimeout(90_000);

let live: LiveServer;
/** Moved past the gap between two checks of a connection asked through the API. */
const clock = new ManualClock(Date.now());
let org: LiveOrg;
let site: http.Server;
let providersDir = '';
const SIGNED_ID = '7b0c1e52-3a57-4c61-9a55-0e3a1c0f5a01';
const PLAIN_ID = '7b0c1e52-3a57-4c61-9a55-0e3a1c0f5a02';
let origin = '';
const verdicts: { path: string; verdict: Verdict }[] = [];
const pending: Promise<void>[] = [];
/** Told when the site has judged a request to a path (the live view's page loads on its own). */
const judged = new Map<string, () => void>();

const PAGE =
  '<!doctype html><html><head><title>Invoices</title></head><body><nav id="account">Ada</nav><img src="/logo.png">' +
  '<script>fetch("/api/me"); new Worker("/worker.js");</script></body></html>';
const LOGIN_PAGE =
  '<!doctype html><html><head><title>Sign in</title></head><body><form method="post" action="/login">' +
  '<label for="u">Username</label><input id="u" name="username"><label for="p">Password</label>' +
  '<input id="p" name="password" type="password"><button type="submit">Sign in</button></form></body></html>';
const PASSWORD = 'invoices-pass';
/** The session cookie the site sets at sign-in (a connection's stored session carries it). */
const sessionCookie = () => ({
  name: 'sid',
  value: 'ok',
  domain: '127.0.0.1',
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax' as const,
});

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    pending.push(
      verifyAgentRequest(requestLike(req, 'http')).then((verdict) => {
        verdicts.push({ path, verdict });
        judged.get(path)?.();
      }),
    );
    if (path === '/worker.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('fetch("/from-worker");');
    if (path === '/login' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        if (form.get('password') !== PASSWORD) return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
        res.writeHead(303, { location: '/', 'set-cookie': 'sid=ok; Path=/; HttpOnly' }).end();
      });
      return;
    }
    if (path === '/login') return void res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN_PAGE);
    if (path === '/' && !/(^|; )sid=ok/.test(req.headers.cookie ?? '')) return void res.writeHead(302, { location: '/login' }).end();
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The operator's providers: only these may ask for the deployment's key (an organization's own may not).
  const declaration = (signed: boolean) => ({
    providerId: signed ? SIGNED_ID : PLAIN_ID,
    name: `Invoices ${signed ? 'signed' : 'plain'}`,
    slug: `invoices-${signed ? 'signed' : 'plain'}`,
    origin,
    extra: { signedAgent: signed },
  });
  const { dir, file } = writeOperatorProviders('agentlink-signed-', [declaration(true), declaration(false)]);
  providersDir = dir;
  live = await startLiveServer({ clock, env: { AGENTLINK_PROVIDERS_FILE: file } });
  org = await liveOrg(live, 'Signed Agent Org');
});

afterAll(async () => {
  await live?.services.browsers.close();
  await live?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  if (providersDir) fs.rmSync(providersDir, { recursive: true, force: true });
});

/**
 * A connection to the operator's provider at the site, opted in or not: signed in (its session has the site's cookie),
 * or with an ended session and its credentials stored, which a check renews by a silent re-login.
 */
let users = 0;
async function connectionTo(signedAgent: boolean, ended = false): Promise<string> {
  const caller = { organizationId: org.organizationId, environment: 'sandbox' as const };
  const session = { cookies: ended ? [] : [sessionCookie()], origins: [] };
  const { connection } = await live.services.connections.create(caller, {
    providerId: signedAgent ? SIGNED_ID : PLAIN_ID,
    clientUserId: `user-${(users += 1)}`,
    session,
    ...(ended ? { credentials: { username: 'ada', password: PASSWORD } } : {}),
  });
  return connection.id;
}

it("refuses signedAgent on an organization's own provider: the deployment's key is not the organization's to lend", async () => {
  const declared = await api(live, org, 'POST', '/api/providers', {
    name: 'Any site',
    slug: 'any-site',
    category: 'finance',
    homeUrl: `${origin}/`,
    loginUrl: `${origin}/login`,
    allowedOrigins: [origin],
    signedAgent: true,
  });
  expect(declared.status).toBe(400);
  expect(declared.body.error).toMatchObject({
    code: 'PROVIDER_DECLARATION_INVALID',
    details: [expect.objectContaining({ path: 'signedAgent' })],
  });
});

/** Checks the connection now and gives what the site's verifier said of each request the check made. */
async function check(connectionId: string, outcome = 'SIGNED_IN'): Promise<{ path: string; verdict: Verdict }[]> {
  verdicts.length = 0;
  pending.length = 0;
  clock.advance(3_600_000);
  const res = await api(live, org, 'POST', `/api/connections/${connectionId}/check`);
  expect(res.status).toBe(200);
  expect(res.body.outcome).toBe(outcome);
  await Promise.all(pending);
  return [...verdicts];
}

const setSigned = async (enabled: boolean) => {
  const res = await api(live, org, 'PATCH', '/api/connections/settings', { signedAgent: { enabled } });
  expect(res.status).toBe(200);
  expect(res.body.signedAgent).toEqual({ enabled, directoryUrl: `${live.baseUrl}/.well-known/http-message-signatures-directory` });
};

it('signs every request of a check where the organization and the provider opted in, and none where either did not', async () => {
  const [key] = await live.services.signingKeys();
  const signedProvider = await connectionTo(true);
  const plainProvider = await connectionTo(false);

  // Off by default: nothing is signed, even for a provider that opts in.
  expect((await check(signedProvider)).every((v) => v.verdict.kind === 'unsigned')).toBe(true);

  await setSigned(true);
  const signed = await check(signedProvider);
  expect(signed.map((v) => v.path)).toEqual(expect.arrayContaining(['/']));
  for (const v of signed) expect(v).toEqual({ path: v.path, verdict: { kind: 'verified', keyid: key.keyid, agent: live.baseUrl } });
  // A provider that did not opt in is never signed, whatever the organization says.
  const plain = await check(plainProvider);
  expect(plain.length).toBeGreaterThan(0);
  for (const v of plain) expect(v).toEqual({ path: v.path, verdict: { kind: 'unsigned' } });

  await setSigned(false);
  for (const v of await check(signedProvider)) expect(v.verdict).toEqual({ kind: 'unsigned' });
});

/** What the site's verifier said of each request made while `act` ran. */
async function requestsOf(act: () => Promise<void>): Promise<{ path: string; verdict: Verdict }[]> {
  verdicts.length = 0;
  pending.length = 0;
  await act();
  await Promise.all(pending);
  return [...verdicts];
}

const expectAll = (seen: { path: string; verdict: Verdict }[], verdict: Verdict) => {
  expect(seen.length).toBeGreaterThan(0);
  for (const v of seen) expect(v).toEqual({ path: v.path, verdict });
};

it("signs a check's silent re-login (the sign-in page, the form's post, the page after), and nothing with signing off", async () => {
  const [key] = await live.services.signingKeys();
  await setSigned(true);
  const signed = await check(await connectionTo(true, true), 'RENEWED');
  // GET /login, POST /login, then / (the re-login's and the check's look at the renewed session).
  expect(signed.filter((v) => v.path === '/login').length).toBeGreaterThanOrEqual(2);
  expectAll(signed, { kind: 'verified', keyid: key.keyid, agent: live.baseUrl });

  await setSigned(false);
  const plain = await check(await connectionTo(true, true), 'RENEWED');
  expect(plain.filter((v) => v.path === '/login').length).toBeGreaterThanOrEqual(2);
  expectAll(plain, { kind: 'unsigned' });
});

it("signs the widget's sign-in through the login engine (the form path), and nothing with signing off", async () => {
  const [key] = await live.services.signingKeys();
  for (const enabled of [true, false]) {
    await setSigned(enabled);
    const token = await createLinkToken(live.baseUrl, org.headers, { clientUserId: `widget-${enabled}`, providerId: SIGNED_ID });
    const seen = await requestsOf(async () => {
      const w = widgetSession(live.baseUrl, token);
      expect((await w.start()).status).toBe(200);
      expect((await w.consent()).status).toBe(200);
      const done = await w.credentials('ada', PASSWORD);
      expect({ status: done.status, success: !!done.body.success }).toEqual({ status: 200, success: true });
    });
    expect(seen.filter((v) => v.path === '/login').length).toBeGreaterThanOrEqual(2);
    expectAll(seen, enabled ? { kind: 'verified', keyid: key.keyid, agent: live.baseUrl } : { kind: 'unsigned' });
  }
});

it("signs the live view's sign-in page, and nothing with signing off", async () => {
  const [key] = await live.services.signingKeys();
  const context = await live.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
  try {
    for (const enabled of [true, false]) {
      await setSigned(enabled);
      const token = await createLinkToken(live.baseUrl, org.headers, {
        clientUserId: `live-${enabled}`,
        providerId: SIGNED_ID,
        signIn: 'live',
      });
      verdicts.length = 0;
      pending.length = 0;
      const loginJudged = new Promise<void>((resolve) => judged.set('/login', resolve));
      const widget = await context.newPage();
      await widget.goto(`${live.baseUrl}/link?token=${encodeURIComponent(token)}`);
      await widget.getByRole('button', { name: 'Continue' }).click();
      await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
      // The live page opened the provider's sign-in page: the site has judged it.
      await loginJudged;
      await Promise.all(pending);
      expect(verdicts.some((v) => v.path === '/login')).toBe(true);
      expectAll([...verdicts], enabled ? { kind: 'verified', keyid: key.keyid, agent: live.baseUrl } : { kind: 'unsigned' });
      judged.delete('/login');
      await widget.close();
      await live.services.liveSignIn.closeAll();
    }
  } finally {
    await context.close();
  }
});
