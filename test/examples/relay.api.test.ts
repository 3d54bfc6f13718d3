import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { type AgentLinkClient, createAgentLinkClient } from '@agentlink/client';
import type express from 'express';
import request from 'supertest';

import { createRelayApp, RelayConfigError } from '../../examples/relay/server';
import { ORBIT_PROVIDER_ID } from '../support/helpers';
import { type LiveServer, startLiveServer } from '../support/live-server';

/** The example caller backend (examples/relay) in front of a real AgentLink listening on loopback. */
describe('examples/relay against a real AgentLink', () => {
  let live: LiveServer;
  let relay: express.Express;
  let direct: AgentLinkClient;
  let env: Record<string, string>;
  let webDir: string;

  beforeAll(async () => {
    live = await startLiveServer();
    const org = await live.services.organizations.create('Relay Example Co');
    env = { AGENTLINK_CLIENT_ID: org.clientId, AGENTLINK_CLIENT_SECRET: org.sandboxSecret, AGENTLINK_BASE_URL: `${live.baseUrl}/` };
    webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-example-web-'));
    relay = createRelayApp(env, { webDir });
    direct = createAgentLinkClient({ baseUrl: live.baseUrl, clientId: org.clientId, clientSecret: org.sandboxSecret });
  });

  afterAll(async () => {
    fs.rmSync(webDir, { recursive: true, force: true });
    await live?.close();
  });

  async function sandboxPublicToken(clientUserId: string): Promise<string> {
    const res = await direct.sandbox.createSandboxPublicToken({ body: { providerId: ORBIT_PROVIDER_ID, clientUserId } });
    return res.publicToken;
  }

  function expectEnvelope(res: request.Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({
      error: expect.objectContaining({
        type: expect.any(String),
        code,
        message: expect.any(String),
        requestId: expect.stringMatching(/^req_/),
      }),
    });
    expect(res.headers['x-agentlink-request-id']).toBe(res.body.error.requestId);
  }

  describe('POST /api/link-token', () => {
    it('returns { linkToken } and nothing else', async () => {
      const res = await request(relay).post('/api/link-token').send({ clientUserId: 'relay-user' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ linkToken: expect.stringMatching(/^link-sandbox-/) });
    });

    it('forwards providerId', async () => {
      const ok = await request(relay).post('/api/link-token').send({ clientUserId: 'relay-user', providerId: ORBIT_PROVIDER_ID });
      expect(ok.status).toBe(200);
      const unknown = await request(relay)
        .post('/api/link-token')
        .send({ clientUserId: 'relay-user', providerId: '00000000-0000-4000-8000-000000000000' });
      expectEnvelope(unknown, 400, 'UNKNOWN_PROVIDER');
    });

    it("passes AgentLink's validation error through with its status and envelope", async () => {
      const res = await request(relay).post('/api/link-token').send({});
      expectEnvelope(res, 400, 'INVALID_FIELD');
    });

    it('passes an authentication error through when the credentials are wrong', async () => {
      const wrong = createRelayApp({ ...env, AGENTLINK_CLIENT_SECRET: 'sk_sandbox_wrong' }, { webDir });
      const res = await request(wrong).post('/api/link-token').send({ clientUserId: 'relay-user' });
      expectEnvelope(res, 401, 'INVALID_CLIENT_CREDENTIALS');
    });
  });

  describe('POST /api/exchange', () => {
    it('returns the exchange response body as received, and the second exchange fails as AgentLink says', async () => {
      const publicToken = await sandboxPublicToken('relay-exchange');
      const res = await request(relay).post('/api/exchange').send({ publicToken });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        access_token: expect.stringMatching(/^access-sandbox-/),
        connectionId: expect.any(String),
        providerId: ORBIT_PROVIDER_ID,
        clientUserId: 'relay-exchange',
        environment: 'sandbox',
        status: 'ACTIVE',
      });
      const conn = await direct.connections.getConnection({ params: { connectionId: res.body.connectionId } });
      expect(conn).toMatchObject({ connectionId: res.body.connectionId, status: 'ACTIVE' });

      const again = await request(relay).post('/api/exchange').send({ publicToken });
      expectEnvelope(again, 409, 'PUBLIC_TOKEN_ALREADY_USED');
    });

    it('passes a malformed token error through', async () => {
      const res = await request(relay).post('/api/exchange').send({ publicToken: 'nope' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toMatch(/^(PUBLIC_TOKEN_MALFORMED|INVALID_FIELD)$/);
    });
  });

  describe('POST /api/agent-requests and GET /api/agent-requests/:requestId', () => {
    let accessToken: string;

    beforeAll(async () => {
      const ex = await direct.connections.exchangePublicToken({ body: { publicToken: await sandboxPublicToken('relay-agent') } });
      accessToken = ex.access_token;
    });

    const agentBody = () => ({
      accessToken,
      action: 'Read my profile',
      startingUrl: live.siteUrl('orbit', '/me'),
      parameters: {},
      responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
    });

    it('relays the 202 body as received, and the request reads back through the relay', async () => {
      const res = await request(relay).post('/api/agent-requests').send(agentBody());
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ requestId: expect.any(String), status: 'PENDING' });

      const read = await request(relay).get(`/api/agent-requests/${res.body.requestId}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        requestId: res.body.requestId,
        action: 'Read my profile',
        responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
      });
      const viaClient = await direct.agentRequests.getAgentRequest({ params: { requestId: res.body.requestId } });
      expect(Object.keys(read.body).sort()).toEqual(Object.keys(viaClient).sort());
    });

    it('passes a bad responseFormat through with the exact path in the message', async () => {
      const res = await request(relay)
        .post('/api/agent-requests')
        .send({ ...agentBody(), responseFormat: { posts: [{ title: 'strng - Title' }] } });
      expectEnvelope(res, 400, 'INVALID_FIELD');
      expect(res.body.error.message).toContain('responseFormat.posts[0].title');
    });

    it('passes an unknown access token and an unknown request id through', async () => {
      const bad = await request(relay)
        .post('/api/agent-requests')
        .send({ ...agentBody(), accessToken: 'access-sandbox-unknown' });
      expect(bad.status).toBeGreaterThanOrEqual(400);
      expect(bad.body.error.code).toMatch(/^(INVALID_ACCESS_TOKEN|INVALID_FIELD)$/);
      const missing = await request(relay).get('/api/agent-requests/areq_doesnotexist');
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ type: 'NOT_FOUND' });
    });
  });

  it('GET /api/providers relays the catalogue', async () => {
    const res = await request(relay).get('/api/providers');
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: { providerId: string }) => p.providerId)).toContain(ORBIT_PROVIDER_ID);
  });

  it('answers 502 AGENTLINK_UNREACHABLE when AgentLink is down', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const down = createRelayApp({ ...env, AGENTLINK_BASE_URL: `http://127.0.0.1:${port}` }, { webDir });
    const res = await request(down).post('/api/link-token').send({ clientUserId: 'x' });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ type: 'API_ERROR', code: 'AGENTLINK_UNREACHABLE' });
  });

  it('refuses to start without credentials', () => {
    expect(() => createRelayApp({ AGENTLINK_BASE_URL: live.baseUrl })).toThrow(RelayConfigError);
    expect(() => createRelayApp({ ...env, AGENTLINK_BASE_URL: 'ftp://x' })).toThrow(/AGENTLINK_BASE_URL/);
  });

  it("serves the web app with AgentLink's address filled in, or says how to build it", async () => {
    const missing = await request(relay).get('/');
    expect(missing.status).toBe(503);
    expect(missing.text).toContain('npm run example:build');

    fs.writeFileSync(path.join(webDir, 'index.html'), '<meta name="agentlink-base-url" content="%AGENTLINK_BASE_URL%">');
    fs.writeFileSync(path.join(webDir, 'app.js'), 'console.log(1)');
    const page = await request(relay).get('/');
    expect(page.status).toBe(200);
    expect(page.text).toBe(`<meta name="agentlink-base-url" content="${live.baseUrl}">`);
    const js = await request(relay).get('/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
  });
});
