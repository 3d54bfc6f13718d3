import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { ORBIT_PROVIDER_ID } from '../support/helpers';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * The MCP server at /mcp, end to end with the official MCP client over Streamable HTTP, against a real AgentLink with
 * a worker and Chromium: a sandbox account linked over the API, then listed, described and run through the tools.
 */
jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Org {
  clientId: string;
  sandboxSecret: string;
}

let live: LiveServer;
let org: Org;
let other: Org;
let connectionId: string;
let accessToken: string;
const clients: Client[] = [];

const headersOf = (o: Org) => ({ 'x-client-id': o.clientId, 'x-client-secret': o.sandboxSecret });

async function api(o: Org, path: string, body: unknown): Promise<Json> {
  const res = await fetch(`${live.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...headersOf(o), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'agentlink-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', live.baseUrl), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Json): Promise<{ isError: boolean; structured: Json; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  return { isError: result.isError === true, structured: result.structuredContent as Json, text: content[0]?.text ?? '' };
}

/** A raw JSON-RPC POST to /mcp (what the client sends), for the HTTP-level answers. */
function rawPost(headers: Record<string, string>, body: string) {
  return fetch(`${live.baseUrl}/mcp`, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body,
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  const created = await live.services.organizations.create('MCP org');
  org = { clientId: created.clientId, sandboxSecret: created.sandboxSecret };
  const second = await live.services.organizations.create('Other org');
  other = { clientId: second.clientId, sandboxSecret: second.sandboxSecret };
  const { publicToken } = await api(org, '/api/sandbox/public_token/create', { providerId: ORBIT_PROVIDER_ID, clientUserId: 'user-mcp' });
  const exchanged = await api(org, '/api/connections/public_token/exchange', { publicToken });
  connectionId = exchanged.connectionId;
  accessToken = exchanged.access_token;
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await live?.close();
});

describe('MCP server at /mcp (Streamable HTTP, official client)', () => {
  it('lists the four tools, each with an input schema', async () => {
    const client = await connect(headersOf(org));
    expect(client.getServerVersion()).toMatchObject({ name: 'agentlink' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_agent_request', 'list_actions', 'list_connections', 'run_action']);
    const run = tools.find((t) => t.name === 'run_action')!;
    expect(run.inputSchema.required).toEqual(expect.arrayContaining(['action', 'responseFormat']));
    expect(Object.keys(run.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['connectionId', 'accessToken', 'startingUrl', 'parameters', 'mode', 'waitMs']),
    );
  });

  it('lists the linked connection and its action catalogue', async () => {
    const client = await connect(headersOf(org));
    const listed = await call(client, 'list_connections', {});
    expect(listed.isError).toBe(false);
    expect(listed.structured.data).toEqual([
      expect.objectContaining({ connectionId, providerId: ORBIT_PROVIDER_ID, clientUserId: 'user-mcp', status: 'ACTIVE' }),
    ]);
    expect(JSON.parse(listed.text)).toEqual(listed.structured);
    const actions = await call(client, 'list_actions', { connectionId });
    expect(actions.structured.providerId).toBe(ORBIT_PROVIDER_ID);
    expect(actions.structured.actions.map((a: Json) => a.name)).toContain('orbit.read-my-profile');
  });

  it('run_action runs a read action on the connection (starting at the provider home) and returns the result', async () => {
    const client = await connect(headersOf(org));
    const run = await call(client, 'run_action', {
      connectionId,
      action: 'How many followers do I have?',
      responseFormat: { followers: 'integer', following: 'integer' },
      mode: 'read',
    });
    expect(run.isError).toBe(false);
    expect(run.structured).toMatchObject({ status: 'COMPLETED', connectionId, result: { followers: 1285, following: 393 } });
    expect(run.structured.startingUrl).toBe(live.siteUrl('orbit', '/'));
    const read = await call(client, 'get_agent_request', { requestId: run.structured.requestId });
    expect(read.structured).toMatchObject({ requestId: run.structured.requestId, status: 'COMPLETED', result: run.structured.result });
  });

  it('run_action with an access token and waitMs 0 gives the request id to poll with get_agent_request', async () => {
    const client = await connect(headersOf(org));
    const run = await call(client, 'run_action', {
      accessToken,
      action: 'How many followers do I have?',
      responseFormat: { followers: 'integer' },
      waitMs: 0,
    });
    expect(run.structured).toMatchObject({ status: 'PENDING', next: expect.stringContaining('get_agent_request') });
    const done = await call(client, 'get_agent_request', { requestId: run.structured.requestId, waitMs: 30_000 });
    expect(done.structured).toMatchObject({ status: 'COMPLETED', result: { followers: 1285 } });
  });

  it("answers the API's error envelope for what the domain refuses, and never reaches another organization's data", async () => {
    const mine = await connect(headersOf(org));
    const bad = await call(mine, 'run_action', {
      connectionId,
      action: 'Read my profile',
      startingUrl: 'https://evil.example/',
      responseFormat: { name: 'string' },
    });
    expect(bad.isError).toBe(true);
    expect(bad.structured.error).toMatchObject({ type: 'INVALID_REQUEST', code: 'STARTING_URL_NOT_ALLOWED' });

    const theirs = await connect(headersOf(other));
    expect((await call(theirs, 'list_connections', {})).structured.data).toEqual([]);
    const stolen = await call(theirs, 'run_action', { connectionId, action: 'Read my profile', responseFormat: { name: 'string' } });
    expect(stolen).toMatchObject({ isError: true, structured: { error: { code: 'CONNECTION_NOT_FOUND' } } });
    const byToken = await call(theirs, 'run_action', { accessToken, action: 'Read my profile', responseFormat: { name: 'string' } });
    expect(byToken).toMatchObject({ isError: true, structured: { error: { code: 'INVALID_ACCESS_TOKEN' } } });
    expect((await call(theirs, 'list_actions', { connectionId })).structured.error.code).toBe('CONNECTION_NOT_FOUND');
  });

  it('refuses bad tool input as a tool error (no request is created)', async () => {
    const client = await connect(headersOf(org));
    const missing = await client.callTool({ name: 'run_action', arguments: { connectionId, responseFormat: { a: 'string' } } });
    expect(missing.isError).toBe(true);
    const both = await call(client, 'run_action', { connectionId, accessToken, action: 'x', responseFormat: { a: 'string' } });
    expect(both.structured.error).toMatchObject({ code: 'INVALID_FIELD' });
  });

  it('refuses wrong credentials with 401 and the error envelope; Basic credentials work as on the API', async () => {
    const wrong = { 'x-client-id': org.clientId, 'x-client-secret': `${org.sandboxSecret.slice(0, -4)}AAAA` };
    await expect(connect(wrong)).rejects.toThrow();
    const res = await rawPost(wrong, initialize);
    expect(res.status).toBe(401);
    expect(((await res.json()) as Json).error).toMatchObject({ type: 'AUTHENTICATION_ERROR', code: 'INVALID_CLIENT_CREDENTIALS' });
    const none = await rawPost({}, initialize);
    expect(none.status).toBe(401);
    expect(((await none.json()) as Json).error.code).toBe('MISSING_CLIENT_CREDENTIALS');

    const basic = `Basic ${Buffer.from(`${org.clientId}:${org.sandboxSecret}`).toString('base64')}`;
    const ok = await rawPost({ authorization: basic }, initialize);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).result.serverInfo.name).toBe('agentlink');
  });

  it('limits the size of a request (413 PAYLOAD_TOO_LARGE) and answers 405 to GET', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_connections', arguments: { cursor: 'x'.repeat(live.services.config.bodyLimitBytes) } },
    });
    const res = await rawPost(headersOf(org), huge);
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).error.code).toBe('PAYLOAD_TOO_LARGE');
    const get = await fetch(`${live.baseUrl}/mcp`, { headers: headersOf(org) });
    expect(get.status).toBe(405);
  });
});
