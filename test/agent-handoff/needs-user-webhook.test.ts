import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { verifyWebhook } from '@agentlink/client/webhooks';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { api, connectOrbit, createRequest, eventually, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { requestWhen, widgetFor } from './handoff-support';

/**
 * AGENT_REQUEST.NEEDS_USER: with a webhook endpoint registered, each pause of a run is delivered once, signed like
 * every delivery, whose object is the request as GET shows it then: status NEEDS_USER and the userAction (reason,
 * message, expiresAt, linkToken, url). The final AGENT_REQUEST.COMPLETED or .FAILED comes after, as it always did.
 * A real AgentLink with its worker (real Chromium, the Orbit sandbox); the person answers through the widget's API;
 * deliveries go to a loopback receiver, sent by a dispatcher the test ticks.
 */
jest.setTimeout(120_000);

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let receiver: http.Server;
let secret: string;
const received: Delivery[] = [];

const askPlaybook: Playbook<{ asks: number }> = {
  providerSlug: 'orbit',
  name: 'test.webhook-ask',
  description: 'test playbook: asks its user as many times as told',
  writes: false,
  examples: ['test: webhook ask'],
  resultFields: { asked: 'number' },
  parameters: z.object({ asks: z.number().int().min(1).max(3) }),
  run: async (ctx) => {
    await ctx.page.setContent('<main><h1>Confirm it is you</h1><label>Code <input id="code"></label></main>');
    for (let n = 1; n <= ctx.params.asks; n += 1) {
      await ctx.needsUser({ reason: n === 1 ? 'CODE' : 'OTHER', message: `Step ${n} of ${ctx.params.asks}: finish it on the page.` });
    }
    return { asked: ctx.params.asks };
  },
};

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  live = await startLiveServer({ worker: true, env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '120' } });
  live.services.playbooks.register(askPlaybook);
  org = await liveOrg(live, 'Webhook Org');
  conn = await connectOrbit(live, org);
  const hook = await api(live, org, 'POST', '/api/webhooks', {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    events: ['AGENT_REQUEST.NEEDS_USER', 'AGENT_REQUEST.COMPLETED', 'AGENT_REQUEST.FAILED'],
  });
  expect(hook.status).toBe(201);
  secret = hook.body.secret;
});

afterAll(async () => {
  await live?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

/** Sends what is due now and returns every verified delivery of `requestId` so far, in the order received. */
async function deliveredFor(requestId: string): Promise<{ event: Json; headers: Record<string, string> }[]> {
  await live.services.webhookEvents.idle();
  const dispatcher = new WebhookDispatcher({
    store: live.services.store,
    clock: live.services.clock,
    endpoints: live.services.webhookEndpoints,
    payloads: live.services.webhookPayloads,
    random: () => 0,
  });
  await dispatcher.tick();
  const out = [];
  for (const r of received) {
    // Signed like every delivery: verified with the endpoint's secret (a tampered body would fail).
    const event = (await verifyWebhook({ payload: r.body, headers: r.headers, secret, now: new Date() })) as Json;
    if (event.object.requestId === requestId) out.push({ event, headers: r.headers });
  }
  return out;
}

const start = (asks: number) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'test: webhook ask',
    playbook: 'test.webhook-ask',
    parameters: { asks },
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { asked: 'number' },
  });

/** The run's ask once it waits on a new one (a token other than `previous`). */
async function nextPause(requestId: string, previous?: string): Promise<Json> {
  return eventually(
    async () => (await api(live, org, 'GET', `/api/agent-requests/${requestId}?waitMs=1000`)).body,
    (r: Json) => r.status === 'NEEDS_USER' && r.userAction.linkToken !== previous,
    45_000,
  );
}

/** The person answers "done" in the widget, as its button does. */
async function answerDone(linkToken: string): Promise<void> {
  const w = widgetFor(live, linkToken);
  expect((await w.start()).status).toBe(200);
  expect((await w.answer('done')).status).toBe(200);
}

it('delivers AGENT_REQUEST.NEEDS_USER once per pause, signed, with the userAction; then AGENT_REQUEST.COMPLETED', async () => {
  const requestId = await start(2);
  const first = await nextPause(requestId);
  // While the run waits, the organization hears of it: one delivery, the request as GET shows it.
  let delivered = await deliveredFor(requestId);
  expect(delivered.map((d) => d.event.type)).toEqual(['AGENT_REQUEST.NEEDS_USER']);
  const [pause1] = delivered;
  expect(pause1.headers['agentlink-event-type']).toBe('AGENT_REQUEST.NEEDS_USER');
  expect(pause1.headers['agentlink-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(pause1.headers['webhook-id']).toBe(pause1.event.eventId);
  expect(pause1.event).toMatchObject({
    type: 'AGENT_REQUEST.NEEDS_USER',
    environment: 'sandbox',
    object: {
      requestId,
      status: 'NEEDS_USER',
      result: null,
      error: null,
      userAction: {
        reason: 'CODE',
        message: 'Step 1 of 2: finish it on the page.',
        since: first.userAction.since,
        expiresAt: first.userAction.expiresAt,
        linkToken: first.userAction.linkToken,
        url: first.userAction.url,
        write: null,
      },
    },
  });
  expect(pause1.event.object.userAction).toEqual(first.userAction);
  // Delivered once: another tick sends nothing more for this pause.
  expect(await deliveredFor(requestId)).toHaveLength(1);

  await answerDone(first.userAction.linkToken);
  const second = await nextPause(requestId, first.userAction.linkToken);
  delivered = await deliveredFor(requestId);
  expect(delivered.map((d) => d.event.type)).toEqual(['AGENT_REQUEST.NEEDS_USER', 'AGENT_REQUEST.NEEDS_USER']);
  const pause2 = delivered[1].event;
  expect(pause2.eventId).not.toBe(pause1.event.eventId);
  expect(pause2.object.userAction).toEqual(second.userAction);
  expect(pause2.object.userAction).toMatchObject({ reason: 'OTHER', message: 'Step 2 of 2: finish it on the page.' });
  expect(pause2.object.userAction.linkToken).not.toBe(first.userAction.linkToken);

  await answerDone(second.userAction.linkToken);
  const done = await requestWhen(live, org, requestId, ['COMPLETED', 'FAILED']);
  expect(done).toMatchObject({ status: 'COMPLETED', result: { asked: 2 } });
  delivered = await deliveredFor(requestId);
  expect(delivered.map((d) => d.event.type)).toEqual(['AGENT_REQUEST.NEEDS_USER', 'AGENT_REQUEST.NEEDS_USER', 'AGENT_REQUEST.COMPLETED']);
  expect(delivered[2].event.object).toMatchObject({ requestId, status: 'COMPLETED', result: { asked: 2 }, userAction: null });
});

it('a run its person leaves: one AGENT_REQUEST.NEEDS_USER, then AGENT_REQUEST.FAILED with USER_ACTION_EXITED', async () => {
  const requestId = await start(1);
  const pause = await nextPause(requestId);
  const w = widgetFor(live, pause.userAction.linkToken);
  expect((await w.start()).status).toBe(200);
  expect((await w.exit()).status).toBe(200);
  expect(await requestWhen(live, org, requestId, ['COMPLETED', 'FAILED'])).toMatchObject({
    status: 'FAILED',
    error: { code: 'USER_ACTION_EXITED' },
  });
  const delivered = await deliveredFor(requestId);
  expect(delivered.map((d) => d.event.type)).toEqual(['AGENT_REQUEST.NEEDS_USER', 'AGENT_REQUEST.FAILED']);
  expect(delivered[0].event.object.userAction).toEqual(pause.userAction);
  expect(delivered[1].event.object).toMatchObject({
    requestId,
    status: 'FAILED',
    error: { code: 'USER_ACTION_EXITED' },
    userAction: null,
  });
});
