import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebSocketServer } from 'ws';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks/registry';
import { awaitRequest, createRequest, eventually, type LiveOrg, liveOrg } from '../agent/agent-support';
import { freePort } from '../support/free-port';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type RemoteChromium, startRemoteChromium } from '../support/remote-chromium';

/**
 * The same realm attacks through the whole service: an organization declares a sandbox provider whose site is the
 * attacker's page, connects it, and asks AgentLink to act on it. The service's Chromium is a remote one
 * (BROWSER_WS_ENDPOINT), so the test can kill it mid-run as a crash or a sidecar restart would.
 *  - read mode: a shared worker's POST never reaches the site, and the run's trace shows it refused;
 *  - read_write mode: a page whose shared worker POSTs (or sends a WebSocket message) on load, and whose browser is
 *    killed once the write has arrived, is never run again: it ends BROWSER_LOST, and the site got the write once.
 */
jest.setTimeout(120_000);

let port: number;
let chromium: RemoteChromium | undefined;
let live: LiveServer;
let org: LiveOrg;
let accessToken: string;
let site: http.Server;
let origin = '';
const received: string[] = [];
let released = false;
let wss: WebSocketServer;

const html = (body: string) => `<!doctype html><html><head><title>attacker</title></head><body><h1>Attacker</h1>${body}</body></html>`;
const sharedWorker = (code: string) =>
  `<script>new SharedWorker(URL.createObjectURL(new Blob([${JSON.stringify(code)}], { type: 'text/javascript' })));</script>`;

function attackerSite(): http.Server {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      received.push(`${req.method} ${path}`);
      return res.writeHead(204).end();
    }
    const ws = origin.replace(/^http/, 'ws');
    const pages: Record<string, string> = {
      '/shared-worker-post': html(sharedWorker(`fetch('${origin}/w/shared-worker', { method: 'POST', body: 'x' })`)),
      '/shared-worker-ws': html(sharedWorker(`const s = new WebSocket('${ws}/ws'); s.onopen = () => s.send('from-shared-worker');`)),
    };
    const page = pages[path] ?? html('');
    res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (client) => client.on('message', (data) => received.push(`WS ${String(data)}`))),
  );
  return server;
}

const testPlaybook = (name: string, writes: boolean, run: Playbook['run']): Playbook => ({
  providerSlug: 'attacker',
  name,
  description: `test playbook ${name}`,
  writes,
  examples: [`test: ${name}`],
  resultFields: { heading: 'string' },
  parameters: z.unknown(),
  run,
});

beforeAll(async () => {
  site = attackerSite();
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  port = await freePort();
  chromium = await startRemoteChromium(30_000, port);
  live = await startLiveServer({
    worker: true,
    env: {
      BROWSER_WS_ENDPOINT: `http://127.0.0.1:${port}`,
      AGENTLINK_WORKER_POLL_MS: '100',
      AGENTLINK_WORKER_MAX_ATTEMPTS: '2',
    },
  });
  org = await liveOrg(live, 'Realm attacks');
  const declared = await fetch(`${live.baseUrl}/api/providers`, {
    method: 'POST',
    headers: org.headers,
    body: JSON.stringify({
      name: 'Attacker',
      slug: 'attacker',
      category: 'developer',
      homeUrl: `${origin}/`,
      loginUrl: `${origin}/login`,
      allowedOrigins: ['127.0.0.1'],
      logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
    }),
  });
  const providerId = ((await declared.json()) as { providerId: string }).providerId;
  expect(declared.status).toBe(201);
  const created = await live.services.connections.create(
    { organizationId: org.organizationId, environment: 'sandbox' },
    { providerId, clientUserId: 'victim', session: { cookies: [], origins: [] } },
  );
  const exchanged = await fetch(`${live.baseUrl}/api/connections/public_token/exchange`, {
    method: 'POST',
    headers: org.headers,
    body: JSON.stringify({ publicToken: created.publicToken }),
  });
  accessToken = ((await exchanged.json()) as { access_token: string }).access_token;
  expect(accessToken).toEqual(expect.any(String));

  // Reads for a moment, as a read would.
  live.services.playbooks.register(
    testPlaybook('test.look', false, async (ctx) => {
      await ctx.page.waitForTimeout(1500);
      return { heading: (await ctx.page.locator('h1').textContent()) ?? '' };
    }),
  );
  // Holds the run once the page's write has arrived, waiting on the page itself (a dead browser ends the wait at once).
  live.services.playbooks.register(
    testPlaybook('test.hold-after-write', true, async (ctx) => {
      while (received.length === 0) await ctx.page.waitForTimeout(50);
      while (!released) await ctx.page.waitForTimeout(100);
      return { heading: (await ctx.page.locator('h1').textContent()) ?? '' };
    }),
  );
});

afterAll(async () => {
  released = true;
  await live?.close();
  await chromium?.kill();
  for (const client of wss?.clients ?? []) client.terminate();
  wss?.close();
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
});

beforeEach(() => {
  received.length = 0;
  released = false;
});

const request = (playbook: string, path: string, mode: 'read' | 'read_write') => ({
  accessToken,
  action: `test: ${playbook}`,
  playbook,
  startingUrl: `${origin}${path}`,
  responseFormat: { heading: 'string' },
  mode,
});

describe('read mode and "never repeat a change" through the service', () => {
  it('read mode: a shared worker POST from the provider page never reaches the provider, and the trace shows it refused', async () => {
    const id = await createRequest(live, org, request('test.look', '/shared-worker-post', 'read'));
    const record = await awaitRequest(live, org, id);
    expect(record).toMatchObject({ status: 'COMPLETED', result: { heading: 'Attacker' } });
    expect(received).toEqual([]);
    const steps = (record.trace ?? []) as { outcome: string; target: string; error?: string }[];
    expect(steps).toContainEqual(
      expect.objectContaining({
        outcome: 'blocked',
        target: expect.stringMatching(/^write \(.*\) POST http:\/\/127\.0\.0\.1:\d+\/w\/shared-worker$/),
        error: 'blocked: read mode: POST requests are not sent',
      }),
    );
  });

  it.each([
    ['a POST from a shared worker', '/shared-worker-post', 'POST /w/shared-worker'],
    ['a WebSocket message from a shared worker', '/shared-worker-ws', 'WS from-shared-worker'],
  ])('read_write: %s, then the browser is killed: not run again (BROWSER_LOST), the change arrived once', async (_name, path, change) => {
    const id = await createRequest(live, org, request('test.hold-after-write', path, 'read_write'));
    await eventually(
      async () => received.length,
      (n) => n > 0,
      30_000,
    );
    await chromium!.kill();
    await new Promise((r) => setTimeout(r, 500));
    chromium = await startRemoteChromium(30_000, port);
    released = true;
    const record = await awaitRequest(live, org, id, 30_000);
    expect(record).toMatchObject({
      status: 'FAILED',
      error: { code: 'BROWSER_LOST', message: expect.stringContaining('had already sent 1 request(s) that may have changed something') },
    });
    expect((await live.services.store.repos.agentRequests.findById(id))!.attempts).toBe(1);
    expect(received).toEqual([change]);
  });
});
