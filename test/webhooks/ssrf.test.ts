import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookDispatcher } from '../../server/domain/webhooks/dispatcher';
import { describeEachStore } from '../support/app';
import { connectProduction, createOrg, get, post, productionHeaders } from '../support/helpers';

/**
 * SSRF through DNS: a production endpoint's URL names a public-looking host, but the host resolves to loopback at
 * delivery time. The dispatcher resolves the host itself (resolution is injected here: no real DNS), refuses any
 * address that is not public unicast, and never connects.
 */
describeEachStore('webhook delivery: resolved addresses', (t) => {
  let hits = 0;
  let server: http.Server;
  let port = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits += 1;
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a production endpoint whose host resolves to loopback, fails the delivery at once, and connects nowhere', async () => {
    const org = await createOrg(t);
    const headers = productionHeaders(org);
    const created = await post(t, '/api/webhooks', headers, {
      url: `https://hooks.example.com:${port}/agentlink`,
      events: ['CONNECTION.CREATED'],
    });
    expect(created.status).toBe(201);
    const resolved: string[] = [];
    const resolve = async (host: string) => {
      resolved.push(host);
      return [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ];
    };
    const dispatcher = new WebhookDispatcher({
      store: t.store,
      clock: t.clock,
      endpoints: t.services.webhookEndpoints,
      random: () => 0,
      timeoutMs: 2000,
      resolve,
    });
    try {
      await connectProduction(t, org);
      expect(await dispatcher.tick()).toBe(1);
    } finally {
      await dispatcher.stop();
      await t.services.webhookDispatcher.stop();
    }
    expect(resolved).toEqual(['hooks.example.com']);
    expect(hits).toBe(0);
    const log = await get(t, `/api/webhooks/${created.body.webhookId}/deliveries`, headers);
    expect(log.status).toBe(200);
    const [d] = log.body.data as {
      status: string;
      lastResponseStatus: number | null;
      lastError: string;
      attemptLog: { error: string }[];
    }[];
    // Fails at once: an endpoint resolving inward is not an outage to retry for days.
    expect(d).toMatchObject({ status: 'FAILED', lastResponseStatus: null });
    expect(d.lastError).toBe('address not allowed: hooks.example.com resolves to 127.0.0.1 (loopback)');
    expect(d.attemptLog[0].error).toBe(d.lastError);
  });
});
