import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import {
  agentRequestBody,
  connectProduction,
  connectSandbox,
  createOrg,
  del,
  expectError,
  get,
  type Headers,
  post,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

const HTTPS_URL = 'https://hooks.example.com/agentlink';
const ALL_EVENTS = [
  'AGENT_REQUEST.COMPLETED',
  'AGENT_REQUEST.FAILED',
  'CONNECTION.CREATED',
  'CONNECTION.LOGIN_REQUIRED',
  'CONNECTION.REVOKED',
];

function patch(t: TestApp, path: string, headers: Headers, body: unknown) {
  return request(t.server)
    .patch(path)
    .set(headers)
    .send(body as object);
}

async function createEndpoint(t: TestApp, headers: Headers, body: Record<string, unknown> = {}) {
  const res = await post(t, '/api/webhooks', headers, { url: HTTPS_URL, events: ALL_EVENTS, ...body });
  if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { webhookId: string; secret: string; url: string; events: string[] };
}

/** The events stored for an organization and environment, oldest first, parsed. */
async function storedEvents(t: TestApp, org: TestOrg, environment: 'sandbox' | 'production' = 'sandbox') {
  await t.services.webhookEvents.idle();
  const rows = await t.store.repos.webhookEvents.listOwned({ organizationId: org.organizationId, environment });
  return rows
    .reverse()
    .map(
      (r) =>
        JSON.parse(r.payload) as { eventId: string; type: string; createdAt: string; environment: string; object: Record<string, unknown> },
    );
}

describeEachStore('webhook endpoints API', (t) => {
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    org = await createOrg(t, 'Hooks Org');
    other = await createOrg(t, 'Other Org');
  });

  it('is protected by client credentials', async () => {
    const res = await get(t, '/api/webhooks');
    expectError(res, 'MISSING_CLIENT_CREDENTIALS');
  });

  it('creates an endpoint and shows its signing secret only once', async () => {
    const res = await post(t, '/api/webhooks', sandboxHeaders(org), {
      url: HTTPS_URL,
      events: ['CONNECTION.CREATED'],
      description: 'main',
    });
    expect(res.status).toBe(201);
    expect(res.body).toStrictEqual({
      webhookId: expect.stringMatching(/^whk_[0-9a-f]{24}$/),
      url: HTTPS_URL,
      events: ['CONNECTION.CREATED'],
      description: 'main',
      enabled: true,
      environment: 'sandbox',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { webhookId, secret } = res.body;

    const got = await get(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org));
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const list = await get(t, '/api/webhooks', sandboxHeaders(org));
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { webhookId: string }) => e.webhookId)).toContain(webhookId);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(JSON.stringify(got.body)).not.toContain(secret);

    // Sealed at rest: the database never holds the secret in clear.
    const placeholder = t.dialect === 'postgres' ? '$1' : '?';
    const rows = await t.store.dataSource.query(`SELECT * FROM webhook_endpoints WHERE id = ${placeholder}`, [webhookId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    expect(String(rows[0].sealed_secret)).toMatch(/^v1\./);
    expect(t.services.webhookEndpoints.openSecret((await t.store.repos.webhookEndpoints.findById(webhookId))!)).toBe(secret);
  });

  it('updates, rotates and deletes an endpoint', async () => {
    const { webhookId, secret } = await createEndpoint(t, sandboxHeaders(org));
    const updated = await patch(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org), {
      url: 'https://hooks.example.com/v2',
      events: ['AGENT_REQUEST.FAILED'],
      enabled: false,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      webhookId,
      url: 'https://hooks.example.com/v2',
      events: ['AGENT_REQUEST.FAILED'],
      enabled: false,
    });

    const empty = await patch(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org), {});
    expectError(empty, 'INVALID_FIELD', { details: expect.anything() });

    const rotated = await post(t, `/api/webhooks/${webhookId}/rotate-secret`, sandboxHeaders(org));
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const endpoint = (await t.store.repos.webhookEndpoints.findById(webhookId))!;
    expect(t.services.webhookEndpoints.openSecret(endpoint)).toBe(rotated.body.secret);

    const deleted = await del(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org));
    expect(deleted.status).toBe(200);
    expectError(await get(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org)), 'WEBHOOK_ENDPOINT_NOT_FOUND');
    expectError(await del(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org)), 'WEBHOOK_ENDPOINT_NOT_FOUND');
  });

  it('answers 404 for endpoints of another organization or environment', async () => {
    const { webhookId } = await createEndpoint(t, sandboxHeaders(org));
    for (const headers of [sandboxHeaders(other), productionHeaders(org)]) {
      expectError(await get(t, `/api/webhooks/${webhookId}`, headers), 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(await patch(t, `/api/webhooks/${webhookId}`, headers, { enabled: false }), 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(await del(t, `/api/webhooks/${webhookId}`, headers), 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(await post(t, `/api/webhooks/${webhookId}/rotate-secret`, headers), 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(await get(t, `/api/webhooks/${webhookId}/deliveries`, headers), 'WEBHOOK_ENDPOINT_NOT_FOUND');
      const list = await get(t, '/api/webhooks', headers);
      expect(list.body.data.map((e: { webhookId: string }) => e.webhookId)).not.toContain(webhookId);
    }
    expectError(
      await post(t, '/api/webhook-deliveries/whdl_000000000000000000000000/resend', sandboxHeaders(org)),
      'WEBHOOK_DELIVERY_NOT_FOUND',
    );
  });

  it('accepts https anywhere and http only to loopback (outside NODE_ENV=production)', async () => {
    const refused = ['http://hooks.example.com/x', 'ftp://hooks.example.com/x', 'https://user:pw@hooks.example.com/x', 'not a url'];
    for (const url of refused) {
      expectError(await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] }), 'WEBHOOK_URL_NOT_ALLOWED');
    }
    for (const url of ['https://hooks.example.com/x', 'http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://[::1]:9/x']) {
      const res = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] });
      expect(res.status).toBe(201);
    }
    // Production endpoints never point at loopback or private networks, not even over https.
    for (const url of [
      'http://127.0.0.1:9/x',
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://10.1.2.3/x',
      'https://192.168.0.1/x',
    ]) {
      expectError(
        await post(t, '/api/webhooks', productionHeaders(org), { url, events: ['CONNECTION.CREATED'] }),
        'WEBHOOK_URL_NOT_ALLOWED',
      );
    }
    const prod = await post(t, '/api/webhooks', productionHeaders(org), { url: HTTPS_URL, events: ['CONNECTION.CREATED'] });
    expect(prod.status).toBe(201);
    expect(prod.body.environment).toBe('production');
    // The same rule on update.
    const { webhookId } = await createEndpoint(t, sandboxHeaders(org));
    expectError(
      await patch(t, `/api/webhooks/${webhookId}`, sandboxHeaders(org), { url: 'http://hooks.example.com/' }),
      'WEBHOOK_URL_NOT_ALLOWED',
    );
  });

  it('caps endpoints at 20 per organization and environment (409 WEBHOOK_ENDPOINT_LIMIT), counting each environment apart', async () => {
    const capped = await createOrg(t);
    for (let i = 0; i < 20; i += 1)
      expect(
        (await post(t, '/api/webhooks', sandboxHeaders(capped), { url: `${HTTPS_URL}/${i}`, events: ['CONNECTION.CREATED'] })).status,
      ).toBe(201);
    const over = await post(t, '/api/webhooks', sandboxHeaders(capped), { url: HTTPS_URL, events: ['CONNECTION.CREATED'] });
    expectError(over, 'WEBHOOK_ENDPOINT_LIMIT');
    expect(over.status).toBe(409);
    expect((await get(t, '/api/webhooks', sandboxHeaders(capped))).body.data).toHaveLength(20);
    // The other environment has its own 20; deleting one frees a place.
    expect((await post(t, '/api/webhooks', productionHeaders(capped), { url: HTTPS_URL, events: ['CONNECTION.CREATED'] })).status).toBe(
      201,
    );
    const first = (await get(t, '/api/webhooks', sandboxHeaders(capped))).body.data[0] as { webhookId: string };
    expect((await del(t, `/api/webhooks/${first.webhookId}`, sandboxHeaders(capped))).status).toBeLessThan(300);
    expect((await post(t, '/api/webhooks', sandboxHeaders(capped), { url: HTTPS_URL, events: ['CONNECTION.CREATED'] })).status).toBe(201);
  });

  it('validates events', async () => {
    expectError(await post(t, '/api/webhooks', sandboxHeaders(org), { url: HTTPS_URL, events: [] }), 'INVALID_FIELD', {
      details: expect.anything(),
    });
    expectError(await post(t, '/api/webhooks', sandboxHeaders(org), { url: HTTPS_URL, events: ['CONNECTION.DELETED'] }), 'INVALID_FIELD', {
      details: expect.anything(),
    });
    expectError(
      await post(t, '/api/webhooks', sandboxHeaders(org), { url: HTTPS_URL, events: ['CONNECTION.CREATED', 'CONNECTION.CREATED'] }),
      'INVALID_FIELD',
      { details: expect.anything() },
    );
  });
});

describeEachStore('webhook events', (t) => {
  it('emits CONNECTION.CREATED and CONNECTION.REVOKED with the object as GET returns it', async () => {
    const org = await createOrg(t);
    const { webhookId } = await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.CREATED', 'CONNECTION.REVOKED'] });
    const conn = await connectSandbox(t, org);
    const afterCreate = await get(t, `/api/connections/${conn.connectionId}`, sandboxHeaders(org));
    let events = await storedEvents(t, org);
    expect(events).toHaveLength(1);
    expect(events[0]).toStrictEqual({
      eventId: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'CONNECTION.CREATED',
      createdAt: t.clock.now().toISOString(),
      environment: 'sandbox',
      object: afterCreate.body,
    });

    t.clock.advance(1000);
    const revoked = await del(t, `/api/connections/${conn.connectionId}`, sandboxHeaders(org));
    expect(revoked.status).toBe(200);
    // Revoking again changes nothing and emits nothing.
    await del(t, `/api/connections/${conn.connectionId}`, sandboxHeaders(org));
    events = await storedEvents(t, org);
    expect(events.map((e) => e.type)).toEqual(['CONNECTION.CREATED', 'CONNECTION.REVOKED']);
    expect(events[1].object).toStrictEqual(revoked.body);

    // One PENDING delivery per event to the endpoint, visible in its log.
    const log = await get(t, `/api/webhooks/${webhookId}/deliveries`, sandboxHeaders(org));
    expect(log.status).toBe(200);
    expect(log.body.data.map((d: { eventType: string; status: string; attempts: number }) => [d.eventType, d.status, d.attempts])).toEqual([
      ['CONNECTION.REVOKED', 'PENDING', 0],
      ['CONNECTION.CREATED', 'PENDING', 0],
    ]);
  });

  it('emits only to endpoints of the same organization and environment that subscribed and are enabled', async () => {
    const org = await createOrg(t);
    const other = await createOrg(t);
    const subscribed = await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.CREATED'] });
    const notSubscribed = await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.REVOKED'] });
    const disabled = await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.CREATED'] });
    await patch(t, `/api/webhooks/${disabled.webhookId}`, sandboxHeaders(org), { enabled: false });
    const production = await createEndpoint(t, productionHeaders(org), { events: ['CONNECTION.CREATED'] });
    const otherOrg = await createEndpoint(t, sandboxHeaders(other), { events: ['CONNECTION.CREATED'] });

    await connectSandbox(t, org);
    const count = async (id: string) => (await t.store.repos.webhookDeliveries.listForEndpoint(id, { limit: 10 })).records.length;
    expect(await count(subscribed.webhookId)).toBe(1);
    expect(await count(notSubscribed.webhookId)).toBe(0);
    expect(await count(disabled.webhookId)).toBe(0);
    expect(await count(production.webhookId)).toBe(0);
    expect(await count(otherOrg.webhookId)).toBe(0);

    await connectProduction(t, org);
    expect(await count(production.webhookId)).toBe(1);
    expect((await storedEvents(t, org, 'production'))[0]).toMatchObject({ type: 'CONNECTION.CREATED', environment: 'production' });
  });

  it('emits CONNECTION.LOGIN_REQUIRED once, when an active connection loses its session', async () => {
    const org = await createOrg(t);
    await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.LOGIN_REQUIRED'] });
    const conn = await connectSandbox(t, org);
    await t.services.connections.markLoginRequired(conn.connectionId);
    await t.services.connections.markLoginRequired(conn.connectionId);
    const events = await storedEvents(t, org);
    expect(events.map((e) => e.type)).toEqual(['CONNECTION.LOGIN_REQUIRED']);
    const got = await get(t, `/api/connections/${conn.connectionId}`, sandboxHeaders(org));
    expect(got.body.status).toBe('LOGIN_REQUIRED');
    expect(events[0].object).toStrictEqual(got.body);
  });

  it('emits AGENT_REQUEST.COMPLETED and AGENT_REQUEST.FAILED when a worker writes the final status', async () => {
    const org = await createOrg(t);
    await createEndpoint(t, sandboxHeaders(org), { events: ['AGENT_REQUEST.COMPLETED', 'AGENT_REQUEST.FAILED'] });
    const conn = await connectSandbox(t, org);
    const repo = t.store.repos.agentRequests;

    // The worker's path: claim with a lease, write the final status, signal that it finished.
    const finish = async (final: {
      status: 'COMPLETED' | 'FAILED' | 'TIMED_OUT';
      result?: unknown;
      error?: { code: string; message: string };
    }) => {
      t.clock.advance(1000);
      const created = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken));
      expect(created.status).toBe(202);
      const id = created.body.requestId as string;
      const now = t.clock.now();
      expect(await repo.claim(id, 'test-worker', now, new Date(now.getTime() + 30_000), 2)).toBe(true);
      expect(
        await repo.finish(id, 'test-worker', {
          status: final.status,
          result: final.result ?? null,
          error: final.error ?? null,
          completedAt: now,
          executionTimeMs: 1234,
        }),
      ).toBe(true);
      // As the worker signals it (with the request's owner), and as a caller without the owner at hand would.
      t.services.agentEvents.finished(id, final.status === 'FAILED' ? undefined : (await repo.findById(id))!);
      return id;
    };
    const completedId = await finish({ status: 'COMPLETED', result: { name: 'Ada', followers: 3, posts: [] } });
    const failedId = await finish({ status: 'FAILED', error: { code: 'PLAYBOOK_FAILED', message: 'no button' } });
    await finish({ status: 'TIMED_OUT', error: { code: 'TIMED_OUT', message: 'too slow' } });

    const events = await storedEvents(t, org);
    expect(events.map((e) => [e.type, (e.object as { requestId: string }).requestId])).toEqual([
      ['AGENT_REQUEST.COMPLETED', completedId],
      ['AGENT_REQUEST.FAILED', failedId],
    ]);
    const got = await get(t, `/api/agent-requests/${completedId}`, sandboxHeaders(org));
    expect(events[0].object).toStrictEqual(got.body);
    expect((events[1].object as { error: unknown }).error).toStrictEqual({ code: 'PLAYBOOK_FAILED', message: 'no button' });
  });

  it('writes no event when no endpoint wants it', async () => {
    const org = await createOrg(t);
    await connectSandbox(t, org);
    expect(await storedEvents(t, org)).toEqual([]);
  });

  it("reads a finished request only when one of its owner's endpoints wants the event", async () => {
    const org = await createOrg(t);
    const conn = await connectSandbox(t, org);
    const repo = t.store.repos.agentRequests;
    const runToCompletion = async () => {
      const created = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken));
      const id = created.body.requestId as string;
      const now = t.clock.now();
      expect(await repo.claim(id, 'test-worker', now, new Date(now.getTime() + 30_000), 2)).toBe(true);
      expect(
        await repo.finish(id, 'test-worker', {
          status: 'COMPLETED',
          result: { name: 'Ada' },
          error: null,
          completedAt: now,
          executionTimeMs: 5,
        }),
      ).toBe(true);
      return (await repo.findById(id))!;
    };
    const reads = jest.spyOn(repo, 'findById');
    try {
      // No endpoint, then one that wants only connection events: the request is never read, no event is written.
      const first = await runToCompletion();
      reads.mockClear();
      await t.services.webhookEvents.agentRequestFinished(first.id, first);
      await createEndpoint(t, sandboxHeaders(org), { events: ['CONNECTION.REVOKED'] });
      await t.services.webhookEvents.agentRequestFinished(first.id, first);
      expect(reads).not.toHaveBeenCalled();
      expect(await storedEvents(t, org)).toEqual([]);
      // An endpoint that wants it: the request is read and the event written.
      await createEndpoint(t, sandboxHeaders(org), { events: ['AGENT_REQUEST.COMPLETED'] });
      const second = await runToCompletion();
      reads.mockClear();
      await t.services.webhookEvents.agentRequestFinished(second.id, second);
      expect(reads).toHaveBeenCalledWith(second.id);
      const events = await storedEvents(t, org);
      expect(events.map((e) => [e.type, (e.object as { requestId: string }).requestId])).toEqual([['AGENT_REQUEST.COMPLETED', second.id]]);
    } finally {
      reads.mockRestore();
    }
  });
});
