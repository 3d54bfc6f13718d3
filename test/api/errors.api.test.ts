import { gzipSync } from 'node:zlib';

import request from 'supertest';

import { ERROR_CATALOGUE } from '../../contract/error-codes';
import { hashToken } from '../../server/domain/tokens';
import { describeEachStore } from '../support/app';
import {
  agentRequestBody,
  type Connected,
  connectSandbox,
  createOrg,
  del,
  exchange,
  get,
  GITHUB_PROVIDER_ID,
  ORBIT_PROVIDER_ID,
  post,
  productionAgentRequestBody,
  productionHeaders,
  REQUEST_ID_PATTERN,
  sandboxHeaders,
  sandboxPublicToken,
  type TestOrg,
  withoutRequestId,
} from '../support/helpers';
import {
  badCredentials,
  CORE_CODES,
  GARBAGE_BODIES,
  garbageRoutes,
  linkTokenAs,
  NOT_JSON,
  pollutingBodies,
  rawLinkToken,
} from './errors-fixtures';
import { errorEnvelope, errorsOrg } from './errors-support';

/**
 * Every error code the service core (auth, link tokens, exchange, connections, agent requests, sandbox
 * shortcut, transport) can answer with; each must be produced, and checked whole, by this file.
 * INTERNAL_ERROR is never expected; codes of other areas (connect widget, worker …) are tested there. More INVALID_FIELD
 * cases (body values of a wrong shape, type or size): errors-validation.api.test.ts. The codes (CORE_CODES), and the
 * bodies and headers sent: errors-fixtures.ts.
 */

describeEachStore('error envelope', (t) => {
  const { seen, expectError, raw } = errorEnvelope(t);

  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    ({ org, conn } = await errorsOrg(t));
  });

  describe('authentication', () => {
    it('MISSING_CLIENT_CREDENTIALS when a header is missing or empty', async () => {
      const bodies = [
        await post(t, '/api/link-token', {}, { clientUserId: 'u' }),
        await post(t, '/api/link-token', { 'x-client-id': org.clientId }, { clientUserId: 'u' }),
        await post(t, '/api/link-token', { 'x-client-secret': org.sandboxSecret }, { clientUserId: 'u' }),
        await post(t, '/api/link-token', { 'x-client-id': '', 'x-client-secret': org.sandboxSecret }, { clientUserId: 'u' }),
        await get(t, '/api/connections/conn_x'),
        await get(t, '/api/agent-requests/areq_x'),
        await del(t, '/api/connections/conn_x'),
        await post(t, '/api/agent-requests', {}, {}),
        await post(t, '/api/sandbox/public_token/create', {}, {}),
        await post(t, '/api/connections/public_token/exchange', {}, {}),
      ];
      for (const res of bodies) {
        expectError(res, 'MISSING_CLIENT_CREDENTIALS', {
          message:
            'Send your Client ID in x-client-id and your Client Secret in x-client-secret (or both as HTTP Basic: the ID as username, the secret as password).',
        });
      }
    });

    it('INVALID_CLIENT_CREDENTIALS: a wrong secret and an unknown client id give the same answer', async () => {
      const bad = badCredentials(org);
      const wrongSecret = await linkTokenAs(t, bad.wrongSecret);
      const unknownId = await linkTokenAs(t, bad.unknownId);
      const otherEnvSecret = await linkTokenAs(t, bad.otherEnvSecret);
      const malformed = await linkTokenAs(t, bad.malformed);
      const longId = await linkTokenAs(t, bad.longId);
      for (const res of [wrongSecret, unknownId, otherEnvSecret, malformed, longId]) {
        expectError(res, 'INVALID_CLIENT_CREDENTIALS', { message: 'The client credentials are not valid.' });
        expect(withoutRequestId(res.body)).toStrictEqual(withoutRequestId(wrongSecret.body));
        expect(res.headers['content-length']).toBe(wrongSecret.headers['content-length']);
      }
      expect(wrongSecret.body.error.requestId).not.toBe(unknownId.body.error.requestId);
    });

    it('checks credentials before the body is validated', async () => {
      expectError(await post(t, '/api/link-token', {}, { nonsense: true }), 'MISSING_CLIENT_CREDENTIALS');
    });
  });

  describe('transport', () => {
    it('MALFORMED_JSON for a body that is not JSON', async () => {
      for (const body of ['{"clientUserId":', '{clientUserId: "u"}', "{'a':1}", '{"a":1}}', 'undefined']) {
        expectError(await rawLinkToken(raw, org).send(body), 'MALFORMED_JSON', { message: 'The body is not valid JSON.' });
      }
    });

    it('MALFORMED_JSON for a body that cannot be decoded (bad Content-Encoding data)', async () => {
      const res = await rawLinkToken(raw, org, 'application/json', { 'content-encoding': 'gzip' }).send('{"clientUserId":"u"}');
      expectError(res, 'MALFORMED_JSON');
      // A real gzip body is fine.
      const ok = await rawLinkToken(raw, org, 'application/json', { 'content-encoding': 'gzip' })
        // superagent would JSON-encode a Buffer sent as application/json; send the bytes as they are.
        .serialize((b: unknown) => b as string)
        .send(gzipSync(Buffer.from('{"clientUserId":"u"}')));
      expect({ status: ok.status, body: ok.body }).toMatchObject({ status: 200, body: { environment: 'sandbox' } });
    });

    it('reads UTF-8 bodies alike with or without a declared charset, and other declared charsets through body-parser', async () => {
      const body = '{"clientUserId":"Zoë ✓ 東京"}';
      for (const type of ['application/json', 'application/json; charset=utf-8', 'application/JSON;charset="UTF-8"']) {
        const res = await rawLinkToken(raw, org, type).send(body);
        expect({ type, status: res.status }).toStrictEqual({ type, status: 200 });
      }
      // An end user's name in ISO-8859-1 bytes, declared as such, is decoded as ISO-8859-1 (not as broken UTF-8).
      const latin1 = await rawLinkToken(raw, org, 'application/json; charset=iso-8859-1')
        .serialize((b: unknown) => b as string)
        .send(Buffer.from('{"clientUserId":"Zo\u00eb"}', 'latin1'));
      expect(latin1.status).toBe(200);
      expect((await t.store.repos.linkTokens.findByHash(hashToken(latin1.body.linkToken)))?.clientUserId).toBe('Zo\u00eb');
      // Over the limit on the direct path too: 413, not a 500.
      const huge = await rawLinkToken(raw, org, 'application/json; charset=utf-8').send(`{"clientUserId":"${'x'.repeat(300 * 1024)}"}`);
      expectError(huge, 'PAYLOAD_TOO_LARGE');
    });

    it('UNSUPPORTED_MEDIA_TYPE (415) for a body that is not application/json in UTF-8', async () => {
      for (const [type, body] of NOT_JSON) {
        expectError(await rawLinkToken(raw, org, type).send(body), 'UNSUPPORTED_MEDIA_TYPE', {
          message: 'Send the body as JSON with Content-Type: application/json.',
        });
      }
      expectError(
        await rawLinkToken(raw, org, 'application/json; charset=klingon').send('{"clientUserId":"u"}'),
        'UNSUPPORTED_MEDIA_TYPE',
        { message: 'Send the body as UTF-8 JSON.' },
      );
      expectError(
        await rawLinkToken(raw, org, 'application/json', { 'content-encoding': 'compress' }).send('{"clientUserId":"u"}'),
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('PAYLOAD_TOO_LARGE (413) for a body over 256 KiB, even without credentials', async () => {
      const big = JSON.stringify({ clientUserId: 'u', pad: 'x'.repeat(256 * 1024) });
      expectError(await rawLinkToken(raw, org).send(big), 'PAYLOAD_TOO_LARGE');
      expectError(await raw('post', '/api/link-token', { 'content-type': 'application/json' }).send(big), 'PAYLOAD_TOO_LARGE');
      // Just under the limit is read (and then refused for its unknown field, not its size).
      const under = JSON.stringify({ clientUserId: 'u', pad: 'x'.repeat(256 * 1024 - 40) });
      expect(Buffer.byteLength(under)).toBeLessThanOrEqual(256 * 1024);
      expectError(await rawLinkToken(raw, org).send(under), 'INVALID_FIELD', {
        message: 'body: unknown field(s): pad',
        details: [{ path: 'body', message: 'unknown field(s): pad' }],
      });
    });

    it('ROUTE_NOT_FOUND for unknown paths and methods', async () => {
      expectError(await get(t, '/api/nope', sandboxHeaders(org)), 'ROUTE_NOT_FOUND', {
        message: 'No route GET /api/nope. See /docs for the API.',
      });
      expectError(
        await post(t, '/api/providers/5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11/actions', sandboxHeaders(org), {}),
        'ROUTE_NOT_FOUND',
        { message: 'No route POST /api/providers/5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11/actions. See /docs for the API.' },
      );
      expectError(await get(t, '/api/connection-list', sandboxHeaders(org)), 'ROUTE_NOT_FOUND');
      expectError(await del(t, '/api/connections', sandboxHeaders(org)), 'ROUTE_NOT_FOUND'); // GET lists them; DELETE needs an id
      expectError(await get(t, '/definitely/not/here'), 'ROUTE_NOT_FOUND');
    });

    it('INVALID_FIELD for a path that is not valid percent-encoding or holds a NUL', async () => {
      expectError(await get(t, '/api/connections/%E0%A4%A', sandboxHeaders(org)), 'INVALID_FIELD', {
        details: [{ path: 'params', message: expect.any(String) }],
      });
      expectError(await get(t, '/api/agent-requests/areq%00x', sandboxHeaders(org)), 'INVALID_FIELD', {
        details: [{ path: 'params', message: expect.any(String) }],
      });
    });
  });

  describe('body validation', () => {
    it('INVALID_FIELD for unknown fields, on every endpoint with a body', async () => {
      expectError(
        await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'u', redirectUri: 'x', extra: 1 }),
        'INVALID_FIELD',
        {
          message: 'body: unknown field(s): redirectUri, extra',
          details: [{ path: 'body', message: 'unknown field(s): redirectUri, extra' }],
        },
      );
      expectError(
        await post(t, '/api/connections/public_token/exchange', sandboxHeaders(org), { publicToken: 'x', public_token: 'x' }),
        'INVALID_FIELD',
        {
          message: 'body: unknown field(s): public_token',
          details: [{ path: 'body', message: 'unknown field(s): public_token' }],
        },
      );
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, conn.accessToken, { webhook: 'https://x' })),
        'INVALID_FIELD',
        {
          message: 'body: unknown field(s): webhook',
          details: [{ path: 'body', message: 'unknown field(s): webhook' }],
        },
      );
    });

    it('FORBIDDEN_PROPERTY_NAME for __proto__ and constructor.prototype anywhere', async () => {
      const base = JSON.stringify(agentRequestBody(t, conn.accessToken));
      for (const body of pollutingBodies(base)) {
        const path = body.includes('accessToken') ? '/api/agent-requests' : '/api/link-token';
        expectError(
          await raw('post', path, { ...sandboxHeaders(org), 'content-type': 'application/json' }).send(body),
          'FORBIDDEN_PROPERTY_NAME',
          { message: 'Property names __proto__ and constructor.prototype are not allowed.' },
        );
      }
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('accepts a plain "constructor" key inside parameters', async () => {
      const res = await post(
        t,
        '/api/agent-requests',
        sandboxHeaders(org),
        agentRequestBody(t, conn.accessToken, { parameters: { constructor: 'fine', prototype: 'fine' } }),
      );
      expect(res.status).toBe(202);
    });
  });

  describe('domain errors', () => {
    it('UNKNOWN_PROVIDER, SANDBOX_ONLY, UNKNOWN_TEST_USER, SANDBOX_LOGIN_FAILED', async () => {
      expectError(
        await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'u', providerId: GITHUB_PROVIDER_ID }),
        'UNKNOWN_PROVIDER',
      );
      expectError(
        await post(t, '/api/sandbox/public_token/create', productionHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'u' }),
        'SANDBOX_ONLY',
        { message: 'This endpoint exists only in the sandbox environment; use sandbox credentials.' },
      );
      expectError(
        await post(t, '/api/sandbox/public_token/create', sandboxHeaders(org), {
          providerId: ORBIT_PROVIDER_ID,
          clientUserId: 'u',
          username: 'user_bad',
        }),
        'UNKNOWN_TEST_USER',
      );
      expectError(
        await post(t, '/api/sandbox/public_token/create', sandboxHeaders(org), {
          providerId: ORBIT_PROVIDER_ID,
          clientUserId: 'u',
          username: 'user_locked',
        }),
        'SANDBOX_LOGIN_FAILED',
      );
    });

    it('every PUBLIC_TOKEN_* code and CONNECTION_REVOKED', async () => {
      const other = await createOrg(t, 'Errors Other');
      expectError(await exchange(t, sandboxHeaders(org), 'public-sandbox-nope'), 'PUBLIC_TOKEN_MALFORMED');
      expectError(await exchange(t, productionHeaders(org), await sandboxPublicToken(t, org)), 'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH');
      expectError(await exchange(t, sandboxHeaders(org), `public-sandbox-${'Z'.repeat(43)}`), 'INVALID_PUBLIC_TOKEN');
      expectError(await exchange(t, sandboxHeaders(other), await sandboxPublicToken(t, org)), 'PUBLIC_TOKEN_ORGANIZATION_MISMATCH');
      expectError(await exchange(t, sandboxHeaders(org), conn.publicToken), 'PUBLIC_TOKEN_ALREADY_USED');
      const expiring = await sandboxPublicToken(t, org);
      t.clock.advance(30 * 60_000);
      expectError(await exchange(t, sandboxHeaders(org), expiring), 'PUBLIC_TOKEN_EXPIRED');
      const created = await t.services.connections.create(
        { organizationId: org.organizationId, environment: 'sandbox' },
        { providerId: ORBIT_PROVIDER_ID, clientUserId: 'r' },
      );
      await del(t, `/api/connections/${created.connection.id}`, sandboxHeaders(org));
      expectError(await exchange(t, sandboxHeaders(org), created.publicToken), 'CONNECTION_REVOKED');
    });

    it('INVALID_ACCESS_TOKEN, ACCESS_TOKEN_ENVIRONMENT_MISMATCH, CONNECTION_LOGIN_REQUIRED, STARTING_URL_NOT_ALLOWED', async () => {
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, `access-sandbox-${'Q'.repeat(43)}`)),
        'INVALID_ACCESS_TOKEN',
        { message: 'accessToken is not valid (unknown, revoked, or not issued to these credentials).' },
      );
      expectError(
        await post(t, '/api/agent-requests', productionHeaders(org), productionAgentRequestBody(conn.accessToken)),
        'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
      );
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          agentRequestBody(t, conn.accessToken, { startingUrl: 'gopher://orbit.sandbox.localhost/' }),
        ),
        'STARTING_URL_NOT_ALLOWED',
        {
          message: 'startingUrl must use http or https',
          details: { field: 'startingUrl' },
        },
      );
      const tired = await connectSandbox(t, org, { clientUserId: 'tired' });
      await t.store.repos.connections.setStatus(tired.connectionId, 'LOGIN_REQUIRED', t.clock.now());
      expectError(
        await post(t, '/api/agent-requests', sandboxHeaders(org), agentRequestBody(t, tired.accessToken)),
        'CONNECTION_LOGIN_REQUIRED',
      );
    });

    it('CONNECTION_NOT_FOUND and AGENT_REQUEST_NOT_FOUND (404)', async () => {
      expectError(await get(t, '/api/connections/conn_doesnotexist', sandboxHeaders(org)), 'CONNECTION_NOT_FOUND', {
        message: 'No connection conn_doesnotexist.',
      });
      expectError(await del(t, '/api/connections/conn_doesnotexist', sandboxHeaders(org)), 'CONNECTION_NOT_FOUND');
      expectError(await get(t, '/api/agent-requests/areq_doesnotexist', sandboxHeaders(org)), 'AGENT_REQUEST_NOT_FOUND', {
        message: 'No agent request areq_doesnotexist.',
      });
    });
  });

  describe('x-request-id and no 500s', () => {
    it('puts a fresh x-request-id on every response, success or not', async () => {
      const responses = [
        await get(t, '/healthz'),
        await get(t, '/openapi.json'),
        await get(t, '/api/providers', sandboxHeaders(org)),
        await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'rid' }),
        await get(t, `/api/connections/${conn.connectionId}`, sandboxHeaders(org)),
        await get(t, '/api/nope'),
        await post(t, '/api/link-token', {}, {}),
      ];
      const ids = responses.map((r) => r.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(REQUEST_ID_PATTERN);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('answers garbage on every endpoint with a 4xx envelope, never a 500', async () => {
      // Every route of the contract (new ones included), with odd path parameters.
      const routes = garbageRoutes();
      expect(routes.length).toBeGreaterThanOrEqual(8);
      for (const [method, path] of routes) {
        for (const body of GARBAGE_BODIES) {
          for (const headers of [sandboxHeaders(org), productionHeaders(org)]) {
            const res = await request(t.server)
              [method as 'get' | 'post' | 'put' | 'patch' | 'delete'](path)
              .set(headers)
              .set('content-type', 'application/json')
              .send(JSON.stringify(body));
            expect({ path, body, status: res.status < 500 }).toEqual({ path, body, status: true });
            if (res.status >= 400) {
              expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
              expect(Object.keys(ERROR_CATALOGUE)).toContain(res.body.error.code);
            }
          }
        }
      }
    }, 120_000);

    it('covered every error code the core can produce', () => {
      for (const code of CORE_CODES) expect(Object.keys(ERROR_CATALOGUE)).toContain(code);
      expect(CORE_CODES.filter((c) => !seen.has(c))).toEqual([]);
    });
  });
});
