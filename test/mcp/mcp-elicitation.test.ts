import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

import { tenantFor } from '../../server/sandbox/site-sessions';
import { ORBIT_PROVIDER_ID } from '../support/helpers';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * An MCP client asks its own user about a held write: run_action with approval, over the official MCP client with an
 * elicitation handler, against a real AgentLink with a worker and Chromium. Accept sends the write once, decline never
 * sends it; a client without the capability gets NEEDS_USER with the link; a session is its own organization's only.
 * The stdio bridge (`agentlink mcp`) passes the asks down to a stdio client that can answer them.
 */
jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let live: LiveServer;
let headers: Record<string, string>;
let otherHeaders: Record<string, string>;
let organizationId: string;
let connectionId: string;
const clients: Client[] = [];

async function api(path: string, body: unknown): Promise<Json> {
  const res = await fetch(`${live.baseUrl}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Json;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** The official client; `answer` set: it declares elicitation and answers each ask so (recording what it was shown). */
function officialClient(answer: ElicitResult['action'] | undefined, asked: string[]): Client {
  const client = new Client({ name: 'agentlink-test', version: '1.0.0' }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String((request.params as { message: string }).message));
      return { action: answer, ...(answer === 'accept' ? { content: {} } : {}) };
    });
  }
  clients.push(client);
  return client;
}

/** Over Streamable HTTP to /mcp. */
async function connect(
  answer?: ElicitResult['action'],
  asked: string[] = [],
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = officialClient(answer, asked);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', live.baseUrl), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

/** Over stdio, through `agentlink mcp` started as Claude Desktop or Cursor start it. */
async function connectOverStdio(answer?: ElicitResult['action'], asked: string[] = []): Promise<Client> {
  const root = path.resolve(__dirname, '../..');
  const client = officialClient(answer, asked);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: os.tmpdir(),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AGENTLINK_BASE_URL: live.baseUrl,
    AGENTLINK_CLIENT_ID: headers['x-client-id']!,
    AGENTLINK_CLIENT_SECRET: headers['x-client-secret']!,
  };
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [path.join(root, 'bin', 'agentlink.js'), 'mcp'], cwd: root, env }),
  );
  return client;
}

async function createPost(client: Client, text: string): Promise<Json> {
  const result = await client.callTool({
    name: 'run_action',
    arguments: {
      connectionId,
      action: 'Create a post',
      playbook: 'orbit.create-post',
      parameters: { text },
      approval: 'writes',
      responseFormat: { text: 'string', url: 'url?' },
      waitMs: 30_000,
    },
  });
  return result.structuredContent as Json;
}

const posts = async (text: string) =>
  (await live.services.store.repos.sandboxDocs.list(tenantFor(organizationId), 'orbit', 'post')).filter((d) =>
    String(d.data.text ?? '').includes(text),
  ).length;

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
  const created = await live.services.organizations.create('MCP asks');
  organizationId = created.organization.id;
  headers = { 'x-client-id': created.clientId, 'x-client-secret': created.sandboxSecret };
  const other = await live.services.organizations.create('MCP other');
  otherHeaders = { 'x-client-id': other.clientId, 'x-client-secret': other.sandboxSecret };
  const { publicToken } = await api('/api/sandbox/public_token/create', { providerId: ORBIT_PROVIDER_ID, clientUserId: 'user-mcp-asks' });
  connectionId = (await api('/api/connections/public_token/exchange', { publicToken })).connectionId;
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await live?.close();
});

it("accept on the client's own ask sends the held write once; the run completes with one decision in its trace", async () => {
  const asked: string[] = [];
  const { client, transport } = await connect('accept', asked);
  expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  const text = `Asked over MCP ${randomBytes(4).toString('hex')}`;
  const answered = await createPost(client, text);
  expect(answered).toMatchObject({ status: 'COMPLETED', result: { text } });
  expect(await posts(text)).toBe(1);
  // The user was asked once, and shown the write itself: where it goes and what it sends (masked as the API shows it).
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatch(/^POST http:\/\/orbit\.sandbox\.localhost:\d+\/posts$/m);
  expect(asked[0]).toMatch(/^ {2}text: /m);
  expect(asked[0]).not.toMatch(/_csrf: (?!•)/);
  expect(answered.trace.filter((s: Json) => s.tool === 'user')).toHaveLength(1);
});

it('decline never sends it: the run ends DENIED_BY_USER', async () => {
  const { client } = await connect('decline');
  const text = `Declined over MCP ${randomBytes(4).toString('hex')}`;
  const answered = await createPost(client, text);
  expect(answered).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER' } });
  expect(await posts(text)).toBe(0);
});

it('a client without elicitation gets NEEDS_USER and the link, and no session', async () => {
  const { client, transport } = await connect();
  expect(transport.sessionId).toBeUndefined();
  const text = `Not asked over MCP ${randomBytes(4).toString('hex')}`;
  const answered = await createPost(client, text);
  expect(answered).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'APPROVAL', url: expect.any(String) } });
  expect(await posts(text)).toBe(0);
  await api(`/api/agent-requests/${answered.requestId}/cancel`, {});
});

it("a session is its caller's only: another organization naming its id finds nothing", async () => {
  const { transport } = await connect('accept');
  const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
  const post = (h: Record<string, string>) =>
    fetch(`${live.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
        ...h,
      },
      body: list,
    });
  const stranger = await post(otherHeaders);
  expect(stranger.status).toBe(404);
  expect(await stranger.json()).toMatchObject({ error: { code: -32001 } });
  const owner = await post(headers);
  expect(owner.status).toBe(200);
  expect(await owner.text()).toContain('run_action');
});

describe('through the stdio bridge (agentlink mcp)', () => {
  it("passes each ask down to its client's user; accept sends the write once, also after the server dropped the session", async () => {
    const asked: string[] = [];
    const client = await connectOverStdio('accept', asked);
    const first = `Asked over stdio ${randomBytes(4).toString('hex')}`;
    expect(await createPost(client, first)).toMatchObject({ status: 'COMPLETED', result: { text: first } });
    expect(await posts(first)).toBe(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^POST http:\/\/orbit\.sandbox\.localhost:\d+\/posts$/m);
    // Twenty newer sessions of the same caller push the bridge's out (a caller's share): its next call opens a new one.
    for (let i = 0; i < 20; i++) await connect('cancel');
    const second = `Asked again over stdio ${randomBytes(4).toString('hex')}`;
    expect(await createPost(client, second)).toMatchObject({ status: 'COMPLETED', result: { text: second } });
    expect(await posts(second)).toBe(1);
    expect(asked).toHaveLength(2);
  });

  it('decline never sends it; a stdio client without elicitation gets NEEDS_USER and the link', async () => {
    const declining = await connectOverStdio('decline');
    const declined = `Declined over stdio ${randomBytes(4).toString('hex')}`;
    expect(await createPost(declining, declined)).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER' } });
    expect(await posts(declined)).toBe(0);

    const plain = await connectOverStdio();
    const unasked = `Not asked over stdio ${randomBytes(4).toString('hex')}`;
    const answered = await createPost(plain, unasked);
    expect(answered).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'APPROVAL', url: expect.any(String) } });
    expect(await posts(unasked)).toBe(0);
    await api(`/api/agent-requests/${answered.requestId}/cancel`, {});
  });
});
