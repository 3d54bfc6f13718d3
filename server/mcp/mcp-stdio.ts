import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import type { AppConfig } from '../config';
import { AGENTLINK_VERSION } from '../version';
import { MCP_SERVER_INFO } from './mcp.routes';
import { McpStdioError } from './mcp-stdio-error';

/** A tool call may hold up to run_action's 30 s wait; the proxy gives the server room beyond it. */
const CALL_TIMEOUT_MS = 90_000;

/** The SDK's transport error as one line: the HTTP status and the code and message of AgentLink's error envelope. */
function describeUpstreamError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const status = (err as { code?: unknown }).code;
  let detail = message;
  const envelope = /\{"error":.*\}\s*$/.exec(message)?.[0];
  if (envelope) {
    try {
      const { code, message: said } = (JSON.parse(envelope) as { error: { code: string; message: string } }).error;
      detail = `${code}: ${said}`;
    } catch {
      // not an envelope after all: the message as it is
    }
  }
  return typeof status === 'number' && status > 0 ? `HTTP ${status} ${detail}` : detail;
}

/**
 * `agentlink mcp`: the MCP server over stdio, for local agents (Claude Desktop, Cursor …) that start their tools as
 * commands. It forwards to a running AgentLink's /mcp with the SDK's own client (AGENTLINK_BASE_URL, with
 * AGENTLINK_CLIENT_ID / AGENTLINK_CLIENT_SECRET), as Composio's and Arcade's local servers do: the tools, their
 * checks and the worker that runs the browser are the server's, never a second copy with its own database. Nothing
 * but the protocol goes to stdout; messages go to stderr.
 */
export async function serveMcpOverStdio(config: AppConfig): Promise<void> {
  const { baseUrl, clientId, clientSecret } = config.remote;
  if (!clientId || !clientSecret) {
    throw new McpStdioError(
      'agentlink mcp needs AGENTLINK_CLIENT_ID and AGENTLINK_CLIENT_SECRET (from `agentlink org create`), and AGENTLINK_BASE_URL ' +
        `when AgentLink is not at ${baseUrl}.`,
    );
  }
  const endpoint = new URL('/mcp', `${baseUrl}/`);
  const upstream = new Client({ name: 'agentlink-stdio', version: AGENTLINK_VERSION });
  try {
    await upstream.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { 'x-client-id': clientId, 'x-client-secret': clientSecret } },
      }),
    );
  } catch (err) {
    throw new McpStdioError(`agentlink mcp: cannot open ${endpoint.href} with these credentials: ${describeUpstreamError(err)}`);
  }

  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() } : {}),
  });
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => upstream.listTools(request.params, { signal: extra.signal }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    upstream.callTool(request.params, undefined, { signal: extra.signal, timeout: CALL_TIMEOUT_MS }),
  );
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
  process.stderr.write(`agentlink mcp: serving ${endpoint.href} over stdio\n`);
}
