import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { ManualClock } from '../../server/domain/clock';
import { requestLike, type Verdict, verifyAgentRequest } from '../support/bot-auth-verifier';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { api, type LiveOrg, liveOrg } from './agent-support';

/**
 * Signed agent requests (Web Bot Auth) end to end: a live AgentLink (its API, its key directory, its health checks in
 * real Chromium) and a provider site the operator declared (AGENTLINK_PROVIDERS_FILE) on loopback that verifies every request it receives with
 * Cloudflare's verifier, fetching the keys from the live AgentLink's /.well-known directory. A check is signed only
 * when the organization (connection settings) and the provider (declaration) both opted in; either off, nothing is.
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

const PAGE =
  '<!doctype html><html><head><title>Invoices</title></head><body><nav id="account">Ada</nav><img src="/logo.png">' +
  '<script>fetch("/api/me"); new Worker("/worker.js");</script></body></html>';

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    pending.push(verifyAgentRequest(requestLike(req, 'http')).then((verdict) => void verdicts.push({ path, verdict })));
    if (path === '/worker.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('fetch("/from-worker");');
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The operator's providers: only these may ask for the deployment's key (an organization's own may not).
  providersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-signed-'));
  const file = path.join(providersDir, 'providers.json');
  const declaration = (signed: boolean) => ({
    providerId: signed ? SIGNED_ID : PLAIN_ID,
    environment: 'sandbox',
    name: `Invoices ${signed ? 'signed' : 'plain'}`,
    slug: `invoices-${signed ? 'signed' : 'plain'}`,
    category: 'finance',
    homeUrl: `${origin}/`,
    loginUrl: `${origin}/login`,
    allowedOrigins: [origin],
    signedIn: { element: '#account' },
    signedAgent: signed,
  });
  fs.writeFileSync(file, JSON.stringify({ providers: [declaration(true), declaration(false)] }));
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

/** A connection with a session to the operator's provider at the site, opted in or not. */
async function connectionTo(signedAgent: boolean): Promise<string> {
  const caller = { organizationId: org.organizationId, environment: 'sandbox' as const };
  const session = { cookies: [], origins: [] };
  const { connection } = await live.services.connections.create(caller, {
    providerId: signedAgent ? SIGNED_ID : PLAIN_ID,
    clientUserId: `user-${signedAgent}`,
    session,
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
async function check(connectionId: string): Promise<{ path: string; verdict: Verdict }[]> {
  verdicts.length = 0;
  pending.length = 0;
  clock.advance(3_600_000);
  const res = await api(live, org, 'POST', `/api/connections/${connectionId}/check`);
  expect(res.status).toBe(200);
  expect(res.body.outcome).toBe('SIGNED_IN');
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
