import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import pino from 'pino';
import request from 'supertest';

import { createApp, createWorkerOpsApp } from '../../server/app';
import { createExpressServer } from '../../server/http/express-server';
import { createTestApp, describeEachStore, type TestApp } from '../support/app';
import { get } from '../support/helpers';
import { type RemoteChromium, startRemoteChromium } from '../support/remote-chromium';

/**
 * /healthz is liveness only; /readyz checks the database and the queue, and in processes that run a worker the
 * browser too, answering 503 with the failing part named (and no error text that could hold an address or token).
 */
jest.setTimeout(60_000);

const okPart = { status: 'ok', ms: expect.any(Number) };

describeEachStore('liveness and readiness', (t) => {
  it('GET /healthz answers 200 {status: ok}', async () => {
    const res = await get(t, '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ status: 'ok' });
  });

  it('GET /readyz checks the database and the queue (no browser in an API-only process)', async () => {
    const res = await get(t, '/readyz');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toStrictEqual({ status: 'ok', checks: { database: okPart, queue: okPart } });
  });
});

describeEachStore('readiness when a part fails', (t) => {
  let fresh: TestApp | undefined;
  afterEach(async () => {
    await fresh?.close();
    fresh = undefined;
  });

  it('a stopped queue: 503 naming the queue, liveness still 200', async () => {
    fresh = await createTestApp(t.dialect);
    expect((await get(fresh, '/readyz')).status).toBe(200);
    await fresh.services.queue.stop();
    const res = await get(fresh, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toStrictEqual({
      status: 'unavailable',
      checks: { database: okPart, queue: { status: 'fail', ms: expect.any(Number), error: 'stopped' } },
    });
    expect((await get(fresh, '/healthz')).status).toBe(200);
  });

  it('a closed database: 503 naming the database, with a fixed phrase rather than the driver error', async () => {
    fresh = await createTestApp(t.dialect);
    expect((await get(fresh, '/readyz')).status).toBe(200);
    await fresh.store.close();
    const res = await get(fresh, '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('unavailable');
    expect(res.body.checks.database).toStrictEqual({ status: 'fail', ms: expect.any(Number), error: 'the database did not answer' });
    expect((await get(fresh, '/healthz')).status).toBe(200);
  });
});

describe('readiness of a process that runs a worker: the browser', () => {
  let t: TestApp | undefined;
  let server: http.Server | undefined;
  let chromium: RemoteChromium | undefined;

  /** The app as `serve` builds it with a worker (role all), on loopback. */
  async function workerRoleApp(env: Record<string, string>) {
    t = await createTestApp('sqlite', env);
    server = createExpressServer(createApp(t.services, pino({ level: 'silent' }), { worker: true }));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /**
   * /readyz asked as an orchestrator's readiness probe asks it, until it says ready (bounded). The first probe connects
   * to the browser within the check's 5 s budget; a loaded machine can take longer, and a probe then retries.
   */
  async function readyOnce(base: string) {
    for (const until = Date.now() + 30_000; ;) {
      const res = await request(base).get('/readyz');
      if (res.status === 200 || Date.now() > until) return res;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await t?.services.browsers.close();
    await t?.close();
    await chromium?.kill();
    server = t = chromium = undefined;
  });

  it('a remote browser (BROWSER_WS_ENDPOINT): ready while it runs, 503 naming the browser once it is killed', async () => {
    chromium = await startRemoteChromium();
    const base = await workerRoleApp({ BROWSER_WS_ENDPOINT: chromium.wsEndpoint });
    const ready = await readyOnce(base);
    expect(ready.status).toBe(200);
    expect(ready.body).toStrictEqual({ status: 'ok', checks: { database: okPart, queue: okPart, browser: okPart } });

    await chromium.kill();
    const res = await request(base).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toStrictEqual({
      status: 'unavailable',
      checks: {
        database: okPart,
        queue: okPart,
        browser: { status: 'fail', ms: expect.any(Number), error: 'the browser could not be started or reached' },
      },
    });
    // The endpoint (which may carry a token in real deployments) is never shown.
    expect(JSON.stringify(res.body)).not.toContain(new URL(chromium.wsEndpoint).port);
  });

  it("a remote browser's http:// debugging address (the form a sidecar's fixed port gives) works as well", async () => {
    chromium = await startRemoteChromium();
    const base = await workerRoleApp({ BROWSER_WS_ENDPOINT: `http://127.0.0.1:${new URL(chromium.wsEndpoint).port}` });
    const ready = await readyOnce(base);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.browser).toStrictEqual(okPart);
  });

  it('a Chromium that cannot be launched: 503 naming the browser, without the path', async () => {
    const base = await workerRoleApp({ AGENTLINK_CHROMIUM_PATH: '/nonexistent/agentlink-chromium' });
    const res = await request(base).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toStrictEqual({
      database: okPart,
      queue: okPart,
      browser: { status: 'fail', ms: expect.any(Number), error: 'the browser could not be started or reached' },
    });
    expect(res.text).not.toContain('nonexistent');
  });
});

describe("a worker process's own HTTP surface", () => {
  let t: TestApp | undefined;
  let server: http.Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await t?.close();
    server = t = undefined;
  });

  it('serves /healthz, /readyz with the browser, /metrics and the sandbox sites, and no API', async () => {
    t = await createTestApp('sqlite', { AGENTLINK_CHROMIUM_PATH: '/nonexistent/agentlink-chromium' });
    server = createExpressServer(createWorkerOpsApp(t.services, pino({ level: 'silent' })));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await request(base).get('/healthz')).body).toStrictEqual({ status: 'ok' });
    const ready = await request(base).get('/readyz');
    expect(ready.status).toBe(503);
    expect(Object.keys(ready.body.checks)).toEqual(['database', 'queue', 'browser']);
    expect((await request(base).get('/metrics')).text).toContain('agentlink_queue_depth');
    // Its own Chromium reaches the simulated provider sites on this process (they live in the shared database).
    const site = await request(base).get('/login').set('Host', `orbit.${t.config.sandboxHostSuffix}`);
    expect(site.status).toBe(200);
    expect(site.text).toMatch(/Orbit/);
    expect((await request(base).get('/api/providers')).status).toBe(404);
  });
});
