import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { verifyWebhook } from '@agentlink/client/webhooks';

import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { EventPayloadSeal } from '../../server/domain/webhooks/event-payload';
import { Vault } from '../../server/vault/vault';
import { describeEachStore } from '../support/app';
import { createOrg, get, post, sandboxHeaders } from '../support/helpers';

/**
 * Events whose body carries a secret are stored sealed with the vault and opened by the dispatcher just before it
 * signs and sends them; an event emitted under a fixed id exists once, whoever emits it and however often.
 */
describeEachStore('sealed webhook events', (t) => {
  let receiver: http.Server;
  let url: string;
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const dispatcher = () =>
    new WebhookDispatcher({
      store: t.store,
      clock: t.clock,
      endpoints: t.services.webhookEndpoints,
      payloads: t.services.webhookPayloads,
      random: () => 0,
    });

  it('stores the body sealed, sends it opened and signed, and writes an event of a fixed id once', async () => {
    const org = await createOrg(t);
    const created = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] });
    expect(created.status).toBe(201);
    const owner = { organizationId: org.organizationId, environment: 'sandbox' as const };
    const secretValue = 'public-sandbox-sealed-event-secret-value';
    const emit = () =>
      t.services.webhookEvents.emit(owner, 'CONNECTION.CREATED', { secretValue }, { eventId: 'evt_fixed_once', sealed: true });

    const [first, second] = await Promise.all([emit(), emit()]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await emit()).toBeNull();
    const stored = (await t.store.repos.webhookEvents.findById('evt_fixed_once'))!;
    expect(stored.payload).toMatch(/^v1\./);
    expect(stored.payload).not.toContain(secretValue);
    const deliveries = await get(t, `/api/webhooks/${created.body.webhookId}/deliveries`, sandboxHeaders(org));
    expect(deliveries.body.data).toHaveLength(1);
    expect(JSON.stringify(deliveries.body)).not.toContain(secretValue);

    expect(await dispatcher().tick()).toBe(1);
    expect(received).toHaveLength(1);
    const event = await verifyWebhook({
      payload: received[0].body,
      headers: received[0].headers as Record<string, string>,
      secret: created.body.secret,
      now: t.clock.now(),
    });
    expect(event).toMatchObject({ eventId: 'evt_fixed_once', type: 'CONNECTION.CREATED', object: { secretValue } });
  });

  it('a body whose key is gone fails its delivery for good, with the reason in the log', async () => {
    const org = await createOrg(t);
    const created = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] });
    const owner = { organizationId: org.organizationId, environment: 'sandbox' as const };
    // Sealed under a key this server does not have (as after a key was dropped from the configuration).
    const foreign = new EventPayloadSeal(new Vault([{ id: 'gone', key: Buffer.alloc(32, 9) }]));
    const event = (await t.services.webhookEvents.emit(owner, 'CONNECTION.CREATED', { x: 1 }, { eventId: 'evt_key_gone' }))!;
    await t.store.dataSource.getRepository('WebhookEvent').update({ id: event.id }, { payload: foreign.seal(event.id, event.payload) });
    const before = received.length;
    expect(await dispatcher().tick()).toBe(1);
    expect(received).toHaveLength(before);
    const [delivery] = (await get(t, `/api/webhooks/${created.body.webhookId}/deliveries`, sandboxHeaders(org))).body.data;
    expect(delivery).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      nextAttemptAt: null,
      lastError: 'the event body could not be opened (its encryption key is no longer configured)',
    });
  });
});
