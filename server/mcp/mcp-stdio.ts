import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type ClientCapabilities,
  ElicitRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import type { AppConfig } from '../config';
import { AGENTLINK_VERSION } from '../version';
import { MCP_SERVER_INFO } from './mcp.routes';
import { McpStdioError } from './mcp-stdio-error';

/** A tool call may hold up to run_action's 30 s wait; the proxy gives the server room beyond it. */
const CALL_TIMEOUT_MS = 90_000;
/**
 * A call whose held writes are put to the user may also wait on the user: the server asks at most 10 times in one call,
 * each for at most 5 minutes (mcp-approval.ts), and bounds it so; this is only the proxy's own backstop.
 */
const ASKING_CALL_TIMEOUT_MS = CALL_TIMEOUT_MS + 10 * 5 * 60_000;

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
  const headers = { 'x-client-id': clientId, 'x-client-secret': clientSecret };
  const open = async (client: Client) => {
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
    return client;
  };
  let upstream: Client;
  try {
    upstream = await open(new Client({ name: 'agentlink-stdio', version: AGENTLINK_VERSION }));
  } catch (err) {
    throw new McpStdioError(`agentlink mcp: cannot open ${endpoint.href} with these credentials: ${describeUpstreamError(err)}`);
  }

  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {} },
    ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() } : {}),
  });
  const asking = askingUpstream(server, () => server.getClientCapabilities()?.elicitation, open);
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => upstream.listTools(request.params, { signal: extra.signal }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (!asking.wanted()) return upstream.callTool(request.params, undefined, { signal: extra.signal, timeout: CALL_TIMEOUT_MS });
    return asking.call((client) => client.callTool(request.params, undefined, { signal: extra.signal, timeout: ASKING_CALL_TIMEOUT_MS }));
  });
  server.onclose = () => void Promise.all([upstream.close(), asking.close()]);
  await server.connect(new StdioServerTransport());
  process.stderr.write(`agentlink mcp: serving ${endpoint.href} over stdio\n`);
}

/**
 * Held writes put to the stdio client's own user. When the client declares elicitation, its tool calls go through an
 * upstream client that declares it too: the server then keeps an MCP session for it and, while run_action waits, sends
 * each held write's ask on the call's stream; the ask is passed down to the client as it came (its answer decides the
 * write, a dismissal decides nothing) and the answer back up. A session the server no longer knows (closed after its
 * idle minutes, or the server restarted) answers 404 before any tool runs, so the session is opened again and the call
 * sent once more; any other failure is the call's.
 */
function askingUpstream(server: Server, elicitation: () => ClientCapabilities['elicitation'], open: (client: Client) => Promise<Client>) {
  let session: Promise<Client> | null = null;
  const start = (capability: NonNullable<ClientCapabilities['elicitation']>) => {
    const client = new Client({ name: 'agentlink-stdio', version: AGENTLINK_VERSION }, { capabilities: { elicitation: capability } });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      server.elicitInput(request.params, { signal: extra.signal, timeout: ASKING_CALL_TIMEOUT_MS }),
    );
    const opening = open(client);
    opening.catch(() => {
      if (session === opening) session = null;
    });
    return opening;
  };
  const ended = async (client: Promise<Client> | null) => {
    const c = await client?.catch(() => null);
    if (!c) return;
    await (c.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => undefined);
    await c.close().catch(() => undefined);
  };
  return {
    wanted: () => elicitation() !== undefined,
    async call<T>(fn: (client: Client) => Promise<T>): Promise<T> {
      const capability = elicitation()!;
      const current = (session ??= start(capability));
      try {
        return await fn(await current);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 404) throw err;
        if (session === current) {
          session = start(capability);
          void ended(current);
        }
        return fn(await session!);
      }
    },
    close: () => ended(session),
  };
}
