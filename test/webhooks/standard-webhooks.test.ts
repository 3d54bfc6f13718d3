import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { Webhook, WebhookVerificationError } from 'standardwebhooks';

import { type Clock, ManualClock, systemClock } from '../../server/domain/clock';
import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { standardWebhookSignature } from '../../server/domain/webhooks/signature';
import { createTestApp, type TestApp } from '../support/app';
import { connectSandbox, createOrg, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * Deliveries are also signed as the Standard Webhooks specification says, checked here with its reference library
 * (`standardwebhooks`) as an off-the-shelf receiver would run it: real deliveries over loopback, the real clock.
 */
describe('webhook deliveries signed per Standard Webhooks', () => {
  let t: TestApp;
  let org: TestOrg;
  let server: http.Server;
  let url: string;
  let answer = 200;
  const received: { headers: Record<string, string>; body: string }[] = [];

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    org = await createOrg(t, 'Standard Co');
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.services.webhookDispatcher.stop();
    await t.close();
  });

  // The reference library checks timestamps against the real clock, so this dispatcher signs with it too.
  const dispatcher = (clock: Clock = systemClock) =>
    new WebhookDispatcher({ store: t.store, clock, endpoints: t.services.webhookEndpoints, random: () => 0 });

  it('a Standard Webhooks library verifies the delivery with the whsec_ secret; AgentLink-Signature is still sent', async () => {
    const res = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] });
    expect(res.status).toBe(201);
    const secret = res.body.secret as string;
    const conn = await connectSandbox(t, org, { clientUserId: 'std-user' });
    const d = dispatcher();
    expect(await d.tick()).toBe(1);
    await d.stop();

    const { headers, body } = received.at(-1)!;
    expect(headers['webhook-id']).toBe(headers['agentlink-event-id']);
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['agentlink-signature']).toMatch(new RegExp(`^t=${headers['webhook-timestamp']},v1=[0-9a-f]{64}$`));

    const event = new Webhook(secret).verify(body, headers) as { eventId: string; type: string; object: { connectionId: string } };
    expect(event).toMatchObject({
      eventId: headers['webhook-id'],
      type: 'CONNECTION.CREATED',
      object: { connectionId: conn.connectionId },
    });

    // What the library refuses: another secret, a changed body, another message id, a stale timestamp.
    const refuses = (b: string, h: Record<string, string>, s = secret) =>
      expect(() => new Webhook(s).verify(b, h)).toThrow(WebhookVerificationError);
    refuses(body, headers, `whsec_${randomBytes(32).toString('base64')}`);
    refuses(body.replace('std-user', 'std-usex'), headers);
    refuses(body, { ...headers, 'webhook-id': 'evt_other' });
    const stale = String(Number(headers['webhook-timestamp']) - 600);
    refuses(body, {
      ...headers,
      'webhook-timestamp': stale,
      'webhook-signature': standardWebhookSignature(secret, headers['webhook-id'], Number(stale), body),
    });
  });

  it('keeps webhook-id across retries and re-signs each attempt; after a rotation only the new secret verifies', async () => {
    const org2 = await createOrg(t, 'Retry Co');
    const created = await post(t, '/api/webhooks', sandboxHeaders(org2), { url, events: ['CONNECTION.REVOKED'] });
    const conn = await connectSandbox(t, org2, { clientUserId: 'retry-user' });
    // A clock of its own that starts at the real time, so the retry can be made due without waiting its 10 s.
    const clock = new ManualClock(Date.now());
    const d = dispatcher(clock);
    const before = received.length;
    answer = 503;
    await t.services.connections.revoke({ organizationId: org2.organizationId, environment: 'sandbox' }, conn.connectionId);
    expect(await d.tick()).toBe(1);
    answer = 200;
    const rotated = await post(t, `/api/webhooks/${created.body.webhookId}/rotate-secret`, sandboxHeaders(org2));
    expect(rotated.status).toBe(200);
    clock.advance(11_000);
    expect(await d.tick()).toBe(1);
    await d.stop();

    const [first, retry] = received.slice(before);
    expect(received.length - before).toBe(2);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(retry.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBe(11);
    expect(retry.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(new Webhook(rotated.body.secret).verify(retry.body, retry.headers)).toMatchObject({ type: 'CONNECTION.REVOKED' });
    expect(() => new Webhook(created.body.secret).verify(retry.body, retry.headers)).toThrow(WebhookVerificationError);
    expect(new Webhook(created.body.secret).verify(first.body, first.headers)).toMatchObject({ type: 'CONNECTION.REVOKED' });
  });

  it('a secret issued before (base64url) signs the same key bytes, readable once converted to standard base64', () => {
    const key = Buffer.from('fb'.repeat(16) + 'ff'.repeat(16), 'hex').toString('base64url');
    expect(key).toMatch(/[-_]/);
    const legacy = `whsec_${key}`;
    const standard = `whsec_${key.replace(/-/g, '+').replace(/_/g, '/')}=`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"eventId":"evt_1"}';
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardWebhookSignature(legacy, 'evt_1', timestamp, body),
    };
    expect(new Webhook(standard).verify(body, headers)).toEqual({ eventId: 'evt_1' });
  });
});
