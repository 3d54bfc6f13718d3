import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { type LinkSessionEvent, verifyWebhook } from '@agentlink/client/webhooks';

import { ManualClock } from '../../server/domain/clock';
import { sessionFinishedEventId } from '../../server/domain/link-completion';
import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * LINK.SESSION_FINISHED: every link session that ends (success, exit, a flow that could not go on, an opening refused
 * at once) is reported once, with the outcome the widget and the completion redirect show: on success the same
 * public token (sealed at rest, exchangeable once), otherwise the reason. Driven through the widget's API against a
 * live server whose login engine signs in to the simulated sites; deliveries go to a loopback receiver.
 */
jest.setTimeout(60_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let server: LiveServer;
let clock: ManualClock;
let creds: Record<string, string>;
let organizationId: string;
let secret: string;
let receiver: http.Server;
const received: { headers: Record<string, string>; body: string }[] = [];
const REDIRECT = 'https://app.example.com/agentlink/done?tenant=acme&lang=en';

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  server = await startLiveServer({ clock });
  const org = await server.services.organizations.create('Finish Org');
  organizationId = org.organization.id;
  creds = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret };
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = await call('POST', '/api/webhooks', {
    headers: creds,
    body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, events: ['LINK.SESSION_FINISHED'] },
  });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
  expect((await call('POST', '/api/redirect-uris', { headers: creds, body: { uri: REDIRECT } })).status).toBe(201);
});

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await server?.services.loginEngine.close();
  await server?.services.browsers.close();
  await server?.close();
});

async function call(method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function linkToken(body: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/api/link-token', { headers: creds, body: { clientUserId: 'finish-user', ...body } });
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.linkToken;
}

function widget(token: string) {
  const headers = { authorization: `Bearer ${token}` };
  let id = '';
  const step = (name: string, body: unknown = {}) => call('POST', `/link/api/sessions/${id}/${name}`, { headers, body });
  return {
    get id() {
      return id;
    },
    set id(v: string) {
      id = v;
    },
    async start() {
      const res = await call('POST', '/link/api/sessions', { headers, body: { env: 'sandbox' } });
      if (res.status === 200) id = res.body.linkSessionId;
      return res;
    },
    async toSignIn() {
      expect((await this.start()).status).toBe(200);
      expect((await step('consent')).status).toBe(200);
      expect((await step('provider', { providerId: ORBIT_PROVIDER_ID })).status).toBe(200);
    },
    credentials: (username: string, password = 'pass_good') => step('credentials', { username, password }),
    exit: (errorCode?: string) => step('exit', errorCode ? { errorCode } : {}),
  };
}

/** The LINK.SESSION_FINISHED events stored for a session (0 or 1), opened as the dispatcher would send them. */
async function eventsOf(linkSessionId: string): Promise<LinkSessionEvent[]> {
  const rows = (await server.services.store.repos.webhookEvents.listOwned({ organizationId, environment: 'sandbox' }, 1000)).filter(
    (r) => r.type === 'LINK.SESSION_FINISHED',
  );
  return rows
    .map((r) => JSON.parse(server.services.webhookPayloads.open(r)) as LinkSessionEvent)
    .filter((e) => e.object.linkSessionId === linkSessionId);
}

/** Delivers what is due and returns the verified deliveries of one session. */
async function delivered(linkSessionId: string) {
  const dispatcher = new WebhookDispatcher({
    store: server.services.store,
    clock,
    endpoints: server.services.webhookEndpoints,
    payloads: server.services.webhookPayloads,
    random: () => 0,
  });
  await dispatcher.tick();
  const events = [];
  for (const r of received) {
    const event = await verifyWebhook({ payload: r.body, headers: r.headers, secret, now: clock.now() });
    if (event.type === 'LINK.SESSION_FINISHED' && event.object.linkSessionId === linkSessionId) events.push({ event, headers: r.headers });
  }
  return events;
}

const query = (url: string) => Object.fromEntries(new URL(url).searchParams);

describe('LINK.SESSION_FINISHED on success', () => {
  it('carries the public token the widget got (sealed at rest), and the completion redirect carries the same', async () => {
    const w = widget(await linkToken({ completionRedirectUri: REDIRECT }));
    await w.toSignIn();
    const done = await w.credentials('user_good');
    expect(done.status).toBe(200);
    const { publicToken, metadata, redirectUrl } = done.body.success;
    expect(publicToken).toMatch(/^public-sandbox-/);
    expect(metadata.linkSessionId).toBe(w.id);

    // The redirect: the registered URI, its own query kept, the outcome added.
    expect(redirectUrl.startsWith('https://app.example.com/agentlink/done?')).toBe(true);
    expect(query(redirectUrl)).toEqual({
      tenant: 'acme',
      lang: 'en',
      public_token: publicToken,
      link_session_id: w.id,
      status: 'success',
    });

    const session = (await server.services.store.repos.linkSessions.findById(w.id))!;
    const [event] = await eventsOf(w.id);
    expect(event).toStrictEqual({
      eventId: sessionFinishedEventId(w.id),
      type: 'LINK.SESSION_FINISHED',
      createdAt: expect.any(String),
      environment: 'sandbox',
      object: {
        linkSessionId: w.id,
        status: 'SUCCESS',
        publicToken,
        clientUserId: 'finish-user',
        providerId: ORBIT_PROVIDER_ID,
        connectionId: session.connectionId,
        mode: 'create',
        error: null,
        createdAt: session.createdAt.toISOString(),
        finishedAt: session.completedAt!.toISOString(),
      },
    });
    // At rest the body is sealed: the token is nowhere in the row.
    const row = (await server.services.store.repos.webhookEvents.findById(event.eventId))!;
    expect(row.payload).toMatch(/^v1\./);
    expect(row.payload).not.toContain(publicToken);

    // Delivered signed (Standard Webhooks and AgentLink-Signature), once.
    const deliveries = await delivered(w.id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].headers['webhook-id']).toBe(event.eventId);
    expect(deliveries[0].event).toStrictEqual(event);

    // The backend exchanges the token as usual: once.
    const exchanged = await call('POST', '/api/connections/public_token/exchange', { headers: creds, body: { publicToken } });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ connectionId: session.connectionId, clientUserId: 'finish-user', status: 'ACTIVE' });
    const again = await call('POST', '/api/connections/public_token/exchange', { headers: creds, body: { publicToken } });
    expect(again.body.error.code).toBe('PUBLIC_TOKEN_ALREADY_USED');

    // An exit after success changes nothing, reports nothing more, and hands out no redirect (the token is not known anymore).
    expect((await w.exit()).body).toEqual({ linkSessionId: w.id, status: 'SUCCEEDED' });
    expect(await eventsOf(w.id)).toHaveLength(1);
  });

  it('is sent for an SDK-opened flow too (no completionRedirectUri): no redirect, the same event', async () => {
    const w = widget(await linkToken({ clientUserId: 'sdk-user' }));
    await w.toSignIn();
    const done = await w.credentials('user_good');
    expect(done.body.success.redirectUrl).toBeUndefined();
    expect(done.body.view.completionRedirect).toBe(false);
    const [event] = await eventsOf(w.id);
    expect(event.object).toMatchObject({ status: 'SUCCESS', publicToken: done.body.success.publicToken, clientUserId: 'sdk-user' });
  });
});

describe('LINK.SESSION_FINISHED on exit', () => {
  it('the person closes the widget: EXITED with USER_CLOSED, once however often the exit comes', async () => {
    const w = widget(await linkToken({ completionRedirectUri: REDIRECT }));
    await w.toSignIn();
    const exits = await Promise.all([w.exit(), w.exit(), w.exit()]);
    for (const res of exits) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ linkSessionId: w.id, status: 'EXITED', redirectUrl: expect.any(String) });
      expect(query(res.body.redirectUrl)).toEqual({
        tenant: 'acme',
        lang: 'en',
        link_session_id: w.id,
        status: 'exited',
        error_code: 'USER_CLOSED',
      });
    }
    const events = await eventsOf(w.id);
    expect(events).toHaveLength(1);
    expect(events[0].object).toMatchObject({
      linkSessionId: w.id,
      status: 'EXITED',
      publicToken: null,
      clientUserId: 'finish-user',
      providerId: ORBIT_PROVIDER_ID,
      connectionId: null,
      error: { code: 'USER_CLOSED', message: 'The user closed the connect flow.' },
    });
    // Not sealed: nothing secret in it.
    expect((await server.services.store.repos.webhookEvents.findById(events[0].eventId))!.payload).toMatch(/^\{/);
    expect(await delivered(w.id)).toHaveLength(1);
  });

  it('after a failed sign-in the exit carries that error, in the event and in the redirect', async () => {
    const w = widget(await linkToken({ completionRedirectUri: REDIRECT }));
    await w.toSignIn();
    expect((await w.credentials('user_locked', 'whatever')).body.error.code).toBe('ACCOUNT_LOCKED');
    const exit = await w.exit('ACCOUNT_LOCKED');
    expect(query(exit.body.redirectUrl)).toMatchObject({ status: 'exited', error_code: 'ACCOUNT_LOCKED' });
    const [event] = await eventsOf(w.id);
    expect(event.object).toMatchObject({ status: 'EXITED', error: { code: 'ACCOUNT_LOCKED', message: expect.stringContaining('locked') } });
  });

  it('an opening refused at once (expired link) is a session that ended: reported, and its exit returns to the app', async () => {
    const token = await linkToken({ completionRedirectUri: REDIRECT });
    clock.advance(31 * 60_000);
    const w = widget(token);
    const refused = await w.start();
    expect(refused.body.error).toMatchObject({ code: 'LINK_TOKEN_EXPIRED', details: { status: 'FAILED' } });
    w.id = refused.body.error.details.linkSessionId;
    const [event] = await eventsOf(w.id);
    expect(event.object).toMatchObject({
      status: 'EXITED',
      providerId: null,
      error: { code: 'LINK_TOKEN_EXPIRED', message: 'This link has expired.' },
    });
    const exit = await w.exit();
    expect(exit.body).toMatchObject({ linkSessionId: w.id, status: 'FAILED' });
    expect(query(exit.body.redirectUrl)).toMatchObject({ status: 'exited', error_code: 'LINK_TOKEN_EXPIRED', link_session_id: w.id });
    expect(await eventsOf(w.id)).toHaveLength(1);
  });

  it('a flow that expires in the middle is reported when it is found ended', async () => {
    const w = widget(await linkToken());
    await w.toSignIn();
    clock.advance(31 * 60_000);
    expect((await w.credentials('user_good')).body.error.code).toBe('LINK_TOKEN_EXPIRED');
    const [event] = await eventsOf(w.id);
    expect(event.object).toMatchObject({ status: 'EXITED', error: { code: 'LINK_TOKEN_EXPIRED' } });
  });

  it('a redirect URI removed after the link token was made receives nothing; the webhook still goes out', async () => {
    const uri = 'https://app.example.com/soon-removed';
    const added = await call('POST', '/api/redirect-uris', { headers: creds, body: { uri } });
    const w = widget(await linkToken({ completionRedirectUri: uri }));
    await w.toSignIn();
    expect((await call('DELETE', `/api/redirect-uris/${added.body.redirectUriId}`, { headers: creds })).status).toBe(200);
    const done = await w.credentials('user_good');
    expect(done.status).toBe(200);
    expect(done.body.success.redirectUrl).toBeUndefined();
    expect((await eventsOf(w.id))[0].object).toMatchObject({ status: 'SUCCESS', publicToken: done.body.success.publicToken });
  });
});
