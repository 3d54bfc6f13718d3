import http from 'node:http';
import type { AddressInfo } from 'node:net';

import pino from 'pino';
import request, { type Response } from 'supertest';

import { createApp } from '../../server/app';
import { createTestApp, type TestApp } from '../support/app';
import { connectSandbox, createOrg, post, sandboxHeaders, sandboxPublicToken, type TestOrg } from '../support/helpers';

/**
 * Tokens and secrets in URLs (server/http/redact-url.ts, secret-shapes.ts, api-error.ts): never written to the access
 * log, whatever the encoding of the parameter name or where in the URL they sit, and never echoed in an error
 * envelope. Before, `GET /link?%74oken=<linkToken>` logged the token, and `GET /api/connections/<publicToken>` logged
 * it and echoed it in the 404 message.
 */
let t: TestApp;
let server: http.Server;
let lines: string[];
let org: TestOrg;
let linkToken: string;
let publicToken: string;
let accessToken: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  lines = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  server = http.createServer(createApp(t.services, logger));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  expect((server.address() as AddressInfo).port).toBeGreaterThan(0);
  org = await createOrg(t, 'Leaky Co');
  linkToken = (await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'leak' })).body.linkToken;
  publicToken = await sandboxPublicToken(t, org, { clientUserId: 'leak-2' });
  accessToken = (await connectSandbox(t, org, { clientUserId: 'leak-3' })).accessToken;
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await t?.close();
});

/** Sends the request, waits for its access-log line, and asserts that neither the log nor the answer holds `secret`. */
async function expectNoLeak(send: (agent: ReturnType<typeof request>) => Promise<Response>, secret: string) {
  lines.length = 0;
  const res = await send(request(server));
  await new Promise((resolve) => setImmediate(resolve));
  const logged = lines.join('\n');
  expect(logged).toContain(res.headers['x-request-id']); // the line was written: the check is not vacuous
  // Not whole, and not the random part alone.
  for (const needle of [secret, secret.slice(-43)]) {
    expect(logged).not.toContain(needle);
    expect(res.text).not.toContain(needle);
    expect(JSON.stringify(res.headers)).not.toContain(needle);
  }
  return { res, logged };
}

describe('logs and errors: token leaks', () => {
  it('refuses to log a link token under a percent-encoded parameter name (/link?%74oken=)', async () => {
    const { logged } = await expectNoLeak((a) => a.get(`/link?%74oken=${linkToken}`), linkToken);
    expect(logged).toContain('%74oken=[redacted]');
  });

  it('refuses to log a link token under other spellings of its name (Link-Token, link%5Ftoken, LINKTOKEN)', async () => {
    for (const name of ['Link-Token', 'link%5Ftoken', 'LINKTOKEN', 'link_token', 'token%00']) {
      await expectNoLeak((a) => a.get(`/link?${name}=${linkToken}`), linkToken);
    }
  });

  it('refuses to log or echo a public token used as a connection id (GET /api/connections/<publicToken>)', async () => {
    const { res } = await expectNoLeak((a) => a.get(`/api/connections/${publicToken}`).set(sandboxHeaders(org)), publicToken);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('CONNECTION_NOT_FOUND');
  });

  it('refuses to log or echo a token percent-encoded in the path', async () => {
    const encoded = publicToken.replace(/-/g, '%2D');
    await expectNoLeak((a) => a.get(`/api/connections/${encoded}`).set(sandboxHeaders(org)), publicToken);
  });

  it('refuses to log or echo an access token used as an agent request id or a webhook id', async () => {
    await expectNoLeak((a) => a.get(`/api/agent-requests/${accessToken}`).set(sandboxHeaders(org)), accessToken);
    await expectNoLeak((a) => a.delete(`/api/webhooks/${accessToken}`).set(sandboxHeaders(org)), accessToken);
  });

  it('refuses to log a token under an innocent parameter name (?q=<accessToken>, ?cursor=)', async () => {
    await expectNoLeak((a) => a.get(`/api/providers?q=${accessToken}`).set(sandboxHeaders(org)), accessToken);
    await expectNoLeak((a) => a.get(`/api/agent-requests?cursor=${encodeURIComponent(accessToken)}`).set(sandboxHeaders(org)), accessToken);
  });

  it('refuses to log or echo a client secret in the path of an unknown route', async () => {
    const { res } = await expectNoLeak((a) => a.get(`/api/nope/${org.sandboxSecret}`), org.sandboxSecret);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('refuses to log the client secret sent in a query parameter instead of its header', async () => {
    await expectNoLeak((a) => a.get(`/api/providers?client_secret=${org.productionSecret}`), org.productionSecret);
  });
});
