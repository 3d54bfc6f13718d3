import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { verifyWebhook, WebhookVerificationError } from '@agentlink/client/webhooks';
import request from 'supertest';

import { WEBHOOK_RETRY_SCHEDULE_SECONDS } from '../../contract/webhook-schemas';
import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { describeEachStore, type TestApp } from '../support/app';
import { freePort } from '../support/free-port';
import { connectSandbox, createOrg, get, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/** A webhook receiver on loopback: records every request with its raw body; answers with `status()` (or holds it). */
class Receiver {
  readonly received: { headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
  status: () => number | 'hang' = () => 200;
  /** A request answered 'hang' is answered (200) once this settles. */
  held: Promise<unknown> = Promise.resolve();
  answeredAt: number[] = [];
  private server?: http.Server;
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const status = this.status();
        const answer = (code: number) => {
          this.answeredAt.push(Date.now());
          res.writeHead(code, { 'content-type': 'text/plain' }).end('ok');
        };
        if (status === 'hang') void this.held.then(() => answer(200));
        else answer(status);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }
}

async function register(t: TestApp, org: TestOrg, url: string, events = ['CONNECTION.CREATED', 'CONNECTION.REVOKED']) {
  const res = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { webhookId: string; secret: string };
}

async function deliveries(t: TestApp, org: TestOrg, webhookId: string) {
  const res = await get(t, `/api/webhooks/${webhookId}/deliveries`, sandboxHeaders(org));
  expect(res.status).toBe(200);
  return res.body.data as {
    deliveryId: string;
    eventId: string;
    status: string;
    attempts: number;
    nextAttemptAt: string | null;
    lastResponseStatus: number | null;
    lastError: string | null;
    attemptLog: { attempt: number; responseStatus: number | null; error: string | null }[];
  }[];
}

describeEachStore('webhook delivery', (t) => {
  let receiver: Receiver;
  let dispatcher: WebhookDispatcher;

  beforeEach(async () => {
    receiver = new Receiver();
    await receiver.start();
    // No jitter: the schedule is exact. The timeout is far above a loopback delivery on a loaded machine (none times out here).
    dispatcher = new WebhookDispatcher({
      store: t.store,
      clock: t.clock,
      endpoints: t.services.webhookEndpoints,
      random: () => 0,
      timeoutMs: 10_000,
    });
  });
  afterEach(async () => {
    await dispatcher.stop();
    await t.services.webhookDispatcher.stop();
    await receiver.stop();
  });

  it('signs each delivery; the receiver verifies the raw body, and a tampered body or an old timestamp fails', async () => {
    const org = await createOrg(t);
    const { secret } = await register(t, org, receiver.url);
    const conn = await connectSandbox(t, org);
    expect(await dispatcher.tick()).toBe(1);

    expect(receiver.received).toHaveLength(1);
    const { headers, body } = receiver.received[0];
    expect(headers['content-type']).toBe('application/json');
    expect(headers['agentlink-event-type']).toBe('CONNECTION.CREATED');
    expect(headers['agentlink-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const now = t.clock.now();
    const event = await verifyWebhook({ payload: body, header: headers['agentlink-signature'], secret, now });
    expect(event).toMatchObject({ eventId: headers['agentlink-event-id'], type: 'CONNECTION.CREATED', environment: 'sandbox' });
    expect(event.object).toMatchObject({ connectionId: conn.connectionId, status: 'ACTIVE' });
    expect((await verifyWebhook({ payload: Buffer.from(body), header: headers['agentlink-signature'], secret, now })).eventId).toBe(
      event.eventId,
    );
    // The same delivery verified from all its headers takes the Standard Webhooks signature.
    expect((await verifyWebhook({ payload: body, headers: headers as Record<string, string>, secret, now })).eventId).toBe(event.eventId);

    const fails = async (opts: Partial<Parameters<typeof verifyWebhook>[0]>) => {
      try {
        await verifyWebhook({ payload: body, header: headers['agentlink-signature'], secret, now, ...opts });
      } catch (err) {
        return (err as WebhookVerificationError).code;
      }
      return 'verified';
    };
    expect(await fails({ payload: body.replace('ACTIVE', 'REVOKED') })).toBe('SIGNATURE_MISMATCH');
    expect(await fails({ secret: 'whsec_wrong' })).toBe('SIGNATURE_MISMATCH');
    expect(await fails({ now: new Date(now.getTime() + 301_000) })).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(await fails({ header: undefined })).toBe('MISSING_SIGNATURE');
  });

  it('retries on the schedule while the receiver fails, loses nothing, and logs every attempt', async () => {
    const org = await createOrg(t);
    const { webhookId, secret } = await register(t, org, receiver.url);
    let calls = 0;
    receiver.status = () => (++calls <= 3 ? 500 : 200);
    const a = await connectSandbox(t, org, { clientUserId: 'u-a' });
    const b = await connectSandbox(t, org, { clientUserId: 'u-b' });

    expect(await dispatcher.tick()).toBe(2); // both fail (500, 500)
    let log = await deliveries(t, org, webhookId);
    expect(log.map((d) => [d.status, d.attempts, d.lastResponseStatus])).toEqual([
      ['PENDING', 1, 500],
      ['PENDING', 1, 500],
    ]);
    const due = new Date(t.clock.now().getTime() + WEBHOOK_RETRY_SCHEDULE_SECONDS[0] * 1000).toISOString();
    expect(log.every((d) => d.nextAttemptAt === due)).toBe(true);

    // Not due yet: nothing happens.
    t.clock.advance(WEBHOOK_RETRY_SCHEDULE_SECONDS[0] * 1000 - 1000);
    expect(await dispatcher.tick()).toBe(0);
    t.clock.advance(1000);
    expect(await dispatcher.tick()).toBe(2); // third call fails (500), fourth succeeds (200)
    t.clock.advance(WEBHOOK_RETRY_SCHEDULE_SECONDS[1] * 1000);
    expect(await dispatcher.tick()).toBe(1);
    expect(await dispatcher.tick()).toBe(0);

    log = await deliveries(t, org, webhookId);
    expect(log.every((d) => d.status === 'SUCCEEDED')).toBe(true);
    const codes = log.map((d) => d.attemptLog.map((x) => x.responseStatus)).sort((x, y) => x.length - y.length);
    expect(codes).toEqual([
      [500, 200],
      [500, 500, 200],
    ]);
    expect(log.flatMap((d) => d.attemptLog.map((x) => x.attempt))).toEqual(expect.arrayContaining([1, 2, 3]));

    // Every event reached the receiver with a valid signature; nothing lost, only duplicates of failed attempts.
    const verified = await Promise.all(
      receiver.received.map((r) =>
        verifyWebhook({ payload: r.body, header: r.headers['agentlink-signature'], secret, now: t.clock.now() }),
      ),
    );
    const objects = new Set(verified.map((e) => (e.object as { connectionId: string }).connectionId));
    expect(objects).toEqual(new Set([a.connectionId, b.connectionId]));
    expect(receiver.received).toHaveLength(5);
  });

  it('keeps a delivery while the receiver is down (connection refused) and delivers when it is back', async () => {
    const org = await createOrg(t);
    const port = await freePort();
    const { webhookId } = await register(t, org, `http://127.0.0.1:${port}/hooks`);
    await connectSandbox(t, org);

    for (let i = 0; i < 4; i += 1) {
      expect(await dispatcher.tick()).toBe(1);
      t.clock.advance(WEBHOOK_RETRY_SCHEDULE_SECONDS[i] * 1000);
    }
    let [d] = await deliveries(t, org, webhookId);
    expect(d.status).toBe('PENDING');
    expect(d.attempts).toBe(4);
    expect(d.attemptLog.every((x) => x.responseStatus === null && /ECONNREFUSED/.test(x.error ?? ''))).toBe(true);

    const back = new Receiver();
    await back.start(port);
    try {
      expect(await dispatcher.tick()).toBe(1);
      [d] = await deliveries(t, org, webhookId);
      expect(d).toMatchObject({ status: 'SUCCEEDED', attempts: 5, lastResponseStatus: 200, lastError: null, nextAttemptAt: null });
      expect(back.received).toHaveLength(1);
    } finally {
      await back.stop();
    }
  });

  it('gives up after the last retry, and resend queues a new attempt', async () => {
    const org = await createOrg(t);
    const { webhookId } = await register(t, org, receiver.url);
    receiver.status = () => 503;
    await connectSandbox(t, org);
    for (const delay of WEBHOOK_RETRY_SCHEDULE_SECONDS) {
      expect(await dispatcher.tick()).toBe(1);
      t.clock.advance(delay * 1000);
    }
    expect(await dispatcher.tick()).toBe(1);
    t.clock.advance(7 * 24 * 3600 * 1000);
    expect(await dispatcher.tick()).toBe(0);
    const [failed] = await deliveries(t, org, webhookId);
    expect(failed).toMatchObject({
      status: 'FAILED',
      attempts: WEBHOOK_RETRY_SCHEDULE_SECONDS.length + 1,
      lastResponseStatus: 503,
      nextAttemptAt: null,
    });
    expect(failed.attemptLog).toHaveLength(WEBHOOK_RETRY_SCHEDULE_SECONDS.length + 1);

    receiver.status = () => 200;
    const resent = await post(t, `/api/webhook-deliveries/${failed.deliveryId}/resend`, sandboxHeaders(org));
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ status: 'PENDING', attempts: 0, eventId: failed.eventId, webhookId });
    expect(await dispatcher.tick()).toBe(1);
    const log = await deliveries(t, org, webhookId);
    expect(log.find((x) => x.deliveryId === resent.body.deliveryId)).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
      lastResponseStatus: 200,
    });
    expect(new Set(receiver.received.map((r) => r.headers['agentlink-event-id']))).toEqual(new Set([failed.eventId]));
  });

  it('retries a delivery whose dispatcher stopped mid-attempt once its lease runs out', async () => {
    const org = await createOrg(t);
    const { webhookId } = await register(t, org, receiver.url);
    await connectSandbox(t, org);
    const [pending] = await deliveries(t, org, webhookId);
    const now = t.clock.now();
    // Another dispatcher claimed it and died.
    expect(await t.store.repos.webhookDeliveries.claim(pending.deliveryId, 'dead-dispatcher', now, new Date(now.getTime() + 40_000))).toBe(
      true,
    );
    expect(await dispatcher.tick()).toBe(0);
    t.clock.advance(41_000);
    expect(await dispatcher.tick()).toBe(1);
    const [d] = await deliveries(t, org, webhookId);
    expect(d).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    expect(d.attemptLog.map((x) => [x.attempt, x.responseStatus])).toEqual([
      [1, null],
      [2, 200],
    ]);
  });

  it('two dispatchers never deliver the same attempt twice', async () => {
    const org = await createOrg(t);
    await register(t, org, receiver.url);
    for (let i = 0; i < 5; i += 1) await connectSandbox(t, org, { clientUserId: `user-${i}` });
    const second = new WebhookDispatcher({
      store: t.store,
      clock: t.clock,
      endpoints: t.services.webhookEndpoints,
      random: () => 0,
      timeoutMs: 10_000,
    });
    const [x, y] = await Promise.all([dispatcher.tick(), second.tick()]);
    expect(x + y).toBe(5);
    expect(receiver.received).toHaveLength(5);
  });

  it('signs with the new secret right after a rotation', async () => {
    const org = await createOrg(t);
    const { webhookId, secret } = await register(t, org, receiver.url);
    await connectSandbox(t, org);
    const rotated = await post(t, `/api/webhooks/${webhookId}/rotate-secret`, sandboxHeaders(org));
    await dispatcher.tick();
    const r = receiver.received[0];
    await expect(verifyWebhook({ payload: r.body, header: r.headers['agentlink-signature'], secret, now: t.clock.now() })).rejects.toThrow(
      WebhookVerificationError,
    );
    expect(
      (await verifyWebhook({ payload: r.body, header: r.headers['agentlink-signature'], secret: rotated.body.secret, now: t.clock.now() }))
        .type,
    ).toBe('CONNECTION.CREATED');
  });

  it('never blocks the request path: the API answers before a slow receiver does', async () => {
    const org = await createOrg(t);
    const { webhookId } = await register(t, org, receiver.url);
    const conn = await connectSandbox(t, org);
    receiver.status = () => 'hang';
    // The app's own dispatcher, in the background as in `serve`: woken at once when an event is queued.
    t.services.webhookDispatcher.start();
    // Let the CONNECTION.CREATED delivery go out first (not held).
    await waitFor(async () => receiver.answeredAt.length === 1, 15_000);

    // The receiver holds the next delivery until the API has answered. An API that waited for the delivery would answer
    // only once the fallback lets the receiver answer first: the order below tells, not a duration.
    let release!: () => void;
    receiver.held = new Promise<void>((resolve) => (release = resolve));
    const fallback = setTimeout(() => release(), 10_000);
    try {
      const res = await request(t.server).delete(`/api/connections/${conn.connectionId}`).set(sandboxHeaders(org));
      const answeredMs = Date.now();
      expect(res.status).toBe(200);
      expect(receiver.answeredAt).toHaveLength(1);
      release();
      await waitFor(async () => receiver.answeredAt.length === 2, 15_000);
      expect(receiver.answeredAt[1]).toBeGreaterThanOrEqual(answeredMs);
    } finally {
      clearTimeout(fallback);
      release();
    }
    await waitFor(async () => (await deliveries(t, org, webhookId)).every((d) => d.status === 'SUCCEEDED'), 15_000);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
