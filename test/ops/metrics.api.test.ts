import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';
import pino from 'pino';
import request from 'supertest';

import { createApp } from '../../server/app';
import { createExpressServer } from '../../server/http/express-server';
import { createTestApp, describeEachStore, type TestApp } from '../support/app';
import { agentRequestBody, connectSandbox, createOrg, expectError, get, post, sandboxHeaders } from '../support/helpers';
import { sample } from '../support/prometheus-text';

/**
 * GET /metrics in Prometheus's text format, from a registry of the app's own: HTTP requests by route pattern and
 * status, the queue, webhook delivery attempts by outcome. Who may read it: loopback callers, or anyone with
 * AGENTLINK_METRICS_TOKEN. (Agent runs and browser contexts: metrics-agent.test.ts, with a real worker.)
 */
jest.setTimeout(60_000);

const HTTP = 'agentlink_http_request_duration_seconds_count';

async function metrics(t: TestApp, headers: Record<string, string> = {}): Promise<string> {
  const res = await get(t, '/metrics', headers);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return res.text;
}

describeEachStore('GET /metrics', (t) => {
  it('counts HTTP requests by route pattern and status, never by raw URL', async () => {
    const org = await createOrg(t);
    const before = await metrics(t);
    const pattern = { method: 'GET', route: '/api/agent-requests/:requestId', status: '404' };
    const was = sample(before, HTTP, pattern) ?? 0;
    for (const id of ['areq_000000000000000000000001', 'areq_000000000000000000000002']) {
      expect((await get(t, `/api/agent-requests/${id}`, sandboxHeaders(org))).status).toBe(404);
    }
    expect((await get(t, '/api/providers', sandboxHeaders(org))).status).toBe(200);
    expect((await get(t, '/dashboard/sign-in')).status).toBe(200);
    expect((await get(t, '/no/such/place-123')).status).toBe(404);

    const text = await metrics(t);
    expect(sample(text, HTTP, pattern)).toBe(was + 2);
    expect(sample(text, HTTP, { method: 'GET', route: '/api/providers', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, HTTP, { method: 'GET', route: '/dashboard/sign-in', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, HTTP, { method: 'GET', route: '(unmatched)', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'agentlink_http_request_duration_seconds_sum', pattern)).toBeGreaterThan(0);
    expect(text).not.toContain('areq_000000000000000000000001');
    expect(text).not.toContain('place-123');
    // Only this app's metrics: no process metrics from prom-client's global registry in tests.
    expect(text).not.toContain('process_cpu');
  });

  it('shows the queue: waiting agent requests and how long the oldest has waited', async () => {
    const org = await createOrg(t, 'Queue Metrics Co');
    const conn = await connectSandbox(t, org, { clientUserId: 'metrics-queue' });
    const depthBefore = sample(await metrics(t), 'agentlink_queue_depth') ?? 0;
    for (let i = 0; i < 3; i++) {
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken));
      expect(res.status).toBe(202);
    }
    t.clock.advance(45_000);
    const text = await metrics(t);
    expect(sample(text, 'agentlink_queue_depth')).toBe(depthBefore + 3);
    expect(sample(text, 'agentlink_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(45);
    expect(sample(text, 'agentlink_browser_contexts_open')).toBe(0);
    expect(sample(text, 'agentlink_live_sessions_open')).toBe(0);
  });

  it('counts webhook delivery attempts by outcome: delivered, retrying, failed', async () => {
    const receiver = await startReceiver();
    try {
      const org = await createOrg(t, 'Webhook Metrics Co');
      const register = async (url: string) => {
        const res = await post(t, '/api/webhooks', sandboxHeaders(org), { url, events: ['CONNECTION.CREATED'] });
        expect(res.status).toBe(201);
        return res.body.webhookId as string;
      };
      await register(`${receiver.url}/ok`);
      await register(`${receiver.url}/fail`);
      const disabled = await register(`${receiver.url}/ok`);
      await connectSandbox(t, org, { clientUserId: 'metrics-webhooks' });
      const patched = await request(t.server).patch(`/api/webhooks/${disabled}`).set(sandboxHeaders(org)).send({ enabled: false });
      expect(patched.status).toBe(200);
      const before = await metrics(t);
      const count = (text: string, outcome: string) => sample(text, 'agentlink_webhook_delivery_attempts_total', { outcome }) ?? 0;

      expect(await t.services.webhookDispatcher.tick()).toBe(3);
      const text = await metrics(t);
      expect(count(text, 'delivered') - count(before, 'delivered')).toBe(1);
      expect(count(text, 'retrying') - count(before, 'retrying')).toBe(1);
      expect(count(text, 'failed') - count(before, 'failed')).toBe(1);
    } finally {
      await receiver.stop();
    }
  });
});

describe('who may read /metrics', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('without AGENTLINK_METRICS_TOKEN: loopback callers only, and not when a proxy forwarded the request', async () => {
    t = await createTestApp('sqlite');
    expect((await get(t, '/metrics')).status).toBe(200);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      expectError(await get(t, '/metrics', { [header]: '203.0.113.9' }), 'METRICS_UNAUTHORIZED', {
        message: /set AGENTLINK_METRICS_TOKEN/,
      });
    }
    // A caller from another machine: the same app, its socket's peer address seen as a public one.
    const app = express();
    app.use((req, _res, next) => {
      Object.defineProperty(req.socket, 'remoteAddress', { value: '203.0.113.9', configurable: true });
      next();
    });
    app.use(createApp(t.services, pino({ level: 'silent' })));
    const server = createExpressServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`).get('/metrics');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('METRICS_UNAUTHORIZED');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('with AGENTLINK_METRICS_TOKEN: the bearer token, from anywhere; nothing else', async () => {
    const token = 'metrics-token-0123456789abcdef';
    t = await createTestApp('sqlite', { AGENTLINK_METRICS_TOKEN: token });
    const refused = await get(t, '/metrics');
    expectError(refused, 'METRICS_UNAUTHORIZED');
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="agentlink-metrics"');
    expectError(await get(t, '/metrics', { authorization: `Bearer ${token}x` }), 'METRICS_UNAUTHORIZED');
    expectError(await get(t, '/metrics', { authorization: token }), 'METRICS_UNAUTHORIZED');
    const ok = await get(t, '/metrics', { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('agentlink_queue_depth');
    expect(ok.text).not.toContain(token);
  });
});

/** A webhook receiver on loopback: /ok answers 200, /fail answers 500. */
async function startReceiver(): Promise<{ url: string; stop(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const server: http.Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/ok' ? 200 : 500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
