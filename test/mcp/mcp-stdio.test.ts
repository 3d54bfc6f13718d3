import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { createTestApp, type TestApp } from '../support/app';
import { connectSandbox, createOrg, ORBIT_PROVIDER_ID, type TestOrg } from '../support/helpers';

/**
 * `agentlink mcp`: the MCP server over stdio, as Claude Desktop or Cursor start it, driven by the official client's
 * StdioClientTransport; it forwards to a running AgentLink's /mcp with the credentials of its environment.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin', 'agentlink.js');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
let org: TestOrg;

const envFor = (secret: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: os.tmpdir(),
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  AGENTLINK_BASE_URL: t.baseUrl,
  AGENTLINK_CLIENT_ID: org.clientId,
  AGENTLINK_CLIENT_SECRET: secret,
});

beforeAll(async () => {
  t = await createTestApp('sqlite');
  org = await createOrg(t, 'Stdio org');
});
afterAll(async () => t?.close());

it('serves the same tools over stdio: lists the connection, runs and reads a request', async () => {
  const connected = await connectSandbox(t, org, { clientUserId: 'stdio-user' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: ROOT,
    env: envFor(org.sandboxSecret),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'agentlink' });
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['get_agent_request', 'list_actions', 'list_connections', 'run_action']);
    const listed = await client.callTool({ name: 'list_connections', arguments: {} });
    expect((listed.structuredContent as Json).data).toEqual([
      expect.objectContaining({ connectionId: connected.connectionId, providerId: ORBIT_PROVIDER_ID, status: 'ACTIVE' }),
    ]);
    // No worker runs here: the request is accepted and stays PENDING, readable by id.
    const run = await client.callTool({
      name: 'run_action',
      arguments: {
        connectionId: connected.connectionId,
        action: 'How many followers do I have?',
        responseFormat: { followers: 'integer' },
        waitMs: 0,
      },
    });
    const accepted = run.structuredContent as Json;
    expect(accepted).toMatchObject({ status: 'PENDING', connectionId: connected.connectionId });
    const read = await client.callTool({ name: 'get_agent_request', arguments: { requestId: accepted.requestId } });
    expect(read.structuredContent).toMatchObject({ requestId: accepted.requestId, action: 'How many followers do I have?' });
    const missing = await client.callTool({ name: 'get_agent_request', arguments: { requestId: 'areq_000000000000000000000000' } });
    expect(missing).toMatchObject({ isError: true, structuredContent: { error: { code: 'AGENT_REQUEST_NOT_FOUND' } } });
  } finally {
    await client.close();
  }
});

it('refuses to start with wrong or missing credentials: one line on stderr, exit 2, nothing on stdout', async () => {
  const run = (env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env, timeout: 100_000 }, (err, stdout, stderr) => {
        // A run killed by the timeout has no exit code: -1, never a pass.
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  const wrong = await run(envFor(`${org.sandboxSecret.slice(0, -4)}AAAA`));
  expect(wrong).toMatchObject({ code: 2, stdout: '' });
  expect(wrong.stderr).toMatch(
    /^agentlink mcp: cannot open http:\/\/127\.0\.0\.1:\d+\/mcp with these credentials: HTTP 401 INVALID_CLIENT_CREDENTIALS: The client credentials are not valid\.\n$/,
  );
  expect(wrong.stderr).not.toContain(org.sandboxSecret.slice(0, -4));
  const { AGENTLINK_CLIENT_SECRET: _omitted, ...noSecret } = envFor(org.sandboxSecret);
  const missing = await run(noSecret);
  expect(missing).toMatchObject({ code: 2, stdout: '' });
  expect(missing.stderr).toContain('agentlink mcp needs AGENTLINK_CLIENT_ID and AGENTLINK_CLIENT_SECRET');
});
