import { Writable } from 'node:stream';

import { z } from 'zod';

import { openPasskeyWindow, type VirtualCredential } from '../../server/browser/webauthn-environment';
import { signInWithPasskey } from '../../server/connect/passkey-sign-in';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { QUILL_PROVIDER_ID } from '../../server/integrations/quill/quill.provider';
import { createLogger } from '../../server/logger';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { api, awaitRequest, createRequest, type Json, type LiveOrg, liveOrg } from './agent-support';

/**
 * Silent renewal with the connection's own passkey (issue 37), against Quill, the sandbox's real WebAuthn relying party
 * (@simplewebauthn/server: it checks the signature, the origin, the RP ID and that the sign count moves on). The
 * passkey is made the way a connection gets one: the person signs in with the password, presses Quill's "Add a
 * passkey", and AgentLink's authenticator answers in a passkey window of AgentLink's own browser.
 *   - a check after the session ended: RENEWED with the passkey of a passkey-first account that has no password stored
 *     (its password is refused by the site anyway), CONNECTION.SESSION_RENEWED, ACTIVE, lastUsedAt, the sign count on;
 *   - a run whose session ended renews the same way and completes (the site accepts the count sealed back last time);
 *   - another connection of the very same account, without the passkey: LOGIN_REQUIRED;
 *   - a credential for another site (Quill's, sealed on an Orbit connection): never loaded; the stored password renews;
 *   - the private key is in no log line, API answer or webhook.
 */
jest.setTimeout(120_000);

const READ_NOTES = { signedIn: 'boolean', name: 'string' };

let live: LiveServer;
let org: LiveOrg;
const logLines: string[] = [];
const answers: string[] = [];
/** user_passkey_first's passkey, as AgentLink's authenticator made it at Quill. */
let credential: VirtualCredential;

const owner = () => ({ organizationId: org.organizationId, environment: 'sandbox' as const });
const quill = () => live.services.catalogue.get(QUILL_PROVIDER_ID, 'sandbox')!;
/** The site forgets every session of the organization's copy: every stored one has ended. */
const endSiteSessions = () =>
  live.services.store.dataSource.query('DELETE FROM sandbox_sessions WHERE tenant = ?', [tenantFor(org.organizationId)]);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await api(live, org, method, path, body);
  answers.push(JSON.stringify(res.body));
  return res;
}

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  live = await startLiveServer({ worker: true, logger: createLogger('debug', sink) });
  live.services.playbooks.register({
    providerSlug: 'quill',
    name: 'test.read-notes',
    description: 'test playbook: who Quill says is signed in',
    writes: false,
    examples: ['test: read the notes'],
    resultFields: READ_NOTES,
    parameters: z.unknown(),
    run: async ({ page }) => {
      if (new URL(page.url()).pathname.startsWith('/login')) return { signedIn: false, name: '' };
      const name = (await page.getByText('Percy Keyfirst').count()) > 0 ? 'Percy Keyfirst' : '';
      return { signedIn: true, name };
    },
  });
  org = await liveOrg(live, 'Passkey Renewal Org');
  const hook = await call('POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['CONNECTION.SESSION_RENEWED'] });
  expect(hook.status).toBe(201);
  credential = await enrollPasskey('user_passkey_first');
});

afterAll(async () => {
  await live?.services.loginEngine.close();
  await live?.close();
});

/**
 * The person's sign-in with the password in the organization's copy of Quill, then "Add a passkey" answered by
 * AgentLink's authenticator (the connection's device in a passkey window), as the live sign-in does on Allow.
 */
async function enrollPasskey(username: string): Promise<VirtualCredential> {
  const provider = quill();
  const context = await live.services.browsers.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(provider.loginStartUrl!(provider.loginUrl, owner()));
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password').fill('pass_good');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Add a passkey' }).waitFor();
    const window = await openPasskeyWindow(page);
    try {
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      const made = await window.credentialAdded(15_000);
      await page.waitForURL(/\/notes$/);
      if (!made) throw new Error('no passkey was made');
      return made;
    } finally {
      await window.close();
    }
  } finally {
    await context.close();
  }
}

/** A sandbox connection (a real, minted site session) of `username` at `providerId`, its access token and id. */
async function connect(providerId: string, username: string, clientUserId: string): Promise<{ accessToken: string; connectionId: string }> {
  const pt = await call('POST', '/api/sandbox/public_token/create', { providerId, clientUserId, username });
  expect(pt.status).toBe(200);
  const ex = await call('POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
  expect(ex.status).toBe(200);
  return { accessToken: ex.body.access_token, connectionId: ex.body.connectionId };
}

const row = async (connectionId: string) => (await live.services.store.repos.connections.findById(connectionId))!;
const heldCredential = async (connectionId: string) => live.services.connectionPasskeys.open(await row(connectionId))!;

async function renewedEvents(connectionId: string): Promise<number> {
  await live.services.webhookEvents.idle();
  const rows = await live.services.store.repos.webhookEvents.listOwned(owner());
  answers.push(...rows.map((r) => r.payload));
  return rows
    .map((r) => JSON.parse(r.payload) as { type: string; object: Json })
    .filter((e) => e.type === 'CONNECTION.SESSION_RENEWED' && e.object.connectionId === connectionId).length;
}

let passkeyConnection: { accessToken: string; connectionId: string };

it('a check after the session ended renews with the passkey alone: RENEWED, SESSION_RENEWED, ACTIVE, lastUsedAt, the count on', async () => {
  passkeyConnection = await connect(QUILL_PROVIDER_ID, 'user_passkey_first', 'percy');
  const { connectionId } = passkeyConnection;
  expect(await live.services.connectionPasskeys.keep(connectionId, credential)).toBe(true);
  expect((await row(connectionId)).sealedCredentials).toBeNull(); // no password to fall back on
  await endSiteSessions();

  const check = await call('POST', `/api/connections/${connectionId}/check`);
  expect(check.status).toBe(200);
  expect(check.body).toMatchObject({ outcome: 'RENEWED', connection: { status: 'ACTIVE' } });
  const shown = (await call('GET', `/api/connections/${connectionId}`)).body;
  expect(shown.status).toBe('ACTIVE');
  expect(shown.passkey.lastUsedAt).toEqual(expect.any(String));
  expect(await renewedEvents(connectionId)).toBe(1);
  // The site saw a sign count past the one the passkey was made with, and that count is what is sealed now.
  expect((await heldCredential(connectionId)).signCount).toBeGreaterThan(credential.signCount);
});

it('a run whose session ended renews with the passkey and completes; the site takes the count sealed back last time', async () => {
  const { accessToken, connectionId } = passkeyConnection;
  const before = (await heldCredential(connectionId)).signCount;
  await endSiteSessions();
  const requestId = await createRequest(live, org, {
    accessToken,
    action: 'test: read the notes',
    playbook: 'test.read-notes',
    startingUrl: live.siteUrl('quill', '/notes'),
    parameters: {},
    responseFormat: READ_NOTES,
  });
  const record = await awaitRequest(live, org, requestId);
  answers.push(JSON.stringify(record));
  expect(record.trace).toContainEqual(expect.objectContaining({ tool: 'relogin', outcome: 'ok' }));
  expect(record).toMatchObject({ status: 'COMPLETED', result: { signedIn: true, name: 'Percy Keyfirst' } });
  expect((await heldCredential(connectionId)).signCount).toBeGreaterThan(before);
  expect(await renewedEvents(connectionId)).toBe(2);
  expect((await row(connectionId)).status).toBe('ACTIVE');
});

it('without a declared control, the sign-in finds one named like "Sign in with a passkey"', async () => {
  const { connectionId } = passkeyConnection;
  const held = await heldCredential(connectionId);
  const provider = { ...quill(), passkeySignIn: undefined };
  const out = await signInWithPasskey(live.services.browsers, { ...owner(), provider, credential: held, device: null }, 15_000);
  expect(out).toMatchObject({ kind: 'success', credential: { credentialId: held.credentialId } });
  if (out.kind === 'success') {
    expect(out.credential.signCount).toBeGreaterThan(held.signCount);
    // Kept, as a renewal does: the connection's next sign-in must present a count past this one.
    await live.services.connectionPasskeys.used(await row(connectionId), out.credential);
  }
});

it('another connection of the same account, holding no passkey, is LOGIN_REQUIRED: it never signs in with the other’s', async () => {
  const { connectionId } = await connect(QUILL_PROVIDER_ID, 'user_passkey_first', 'percy');
  await endSiteSessions();
  const check = await call('POST', `/api/connections/${connectionId}/check`);
  expect(check.body).toMatchObject({ outcome: 'LOGIN_REQUIRED', connection: { status: 'LOGIN_REQUIRED' } });
  expect(await renewedEvents(connectionId)).toBe(0);
});

it('a credential for another site is never loaded: the stored password renews, and the passkey stays unused', async () => {
  // Attack: Quill's real passkey sealed on an Orbit connection (a row copied, a mix-up): it must not leave for Orbit's page.
  const session = await live.services.siteSessions.mint(owner(), 'orbit', 'user_good');
  const created = await live.services.connections.create(owner(), {
    providerId: ORBIT_PROVIDER_ID,
    clientUserId: 'mixed',
    session,
    credentials: { username: 'user_good', password: 'pass_good' },
  });
  const orbit = { connectionId: created.connection.id };
  expect(await live.services.connectionPasskeys.keep(orbit.connectionId, credential)).toBe(true);
  await endSiteSessions();

  const orbitProvider = live.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!;
  const direct = await signInWithPasskey(live.services.browsers, { ...owner(), provider: orbitProvider, credential, device: null }, 5_000);
  expect(direct).toEqual({ kind: 'refused', reason: expect.stringContaining('the passkey is for quill.') });

  const check = await call('POST', `/api/connections/${orbit.connectionId}/check`);
  expect(check.body).toMatchObject({ outcome: 'RENEWED', connection: { status: 'ACTIVE' } });
  const shown = (await call('GET', `/api/connections/${orbit.connectionId}`)).body;
  expect(shown.passkey).toMatchObject({ rpId: 'quill.sandbox.localhost', lastUsedAt: null });
  expect((await heldCredential(orbit.connectionId)).signCount).toBe(credential.signCount);
});

it('the private key is in no log line, API answer or webhook', async () => {
  expect(logLines.length).toBeGreaterThan(0);
  expect(answers.length).toBeGreaterThan(0);
  for (const text of [...logLines, ...answers]) expect(text).not.toContain(credential.privateKey);
});
