import { type Request, type Response, Router } from 'express';

import { errorEnvelope } from '../http/api-error';
import { callerOf, clientAuth } from '../http/auth';
import { jsonBody } from '../http/json-body';
import { rateLimit } from '../http/rate-limit';
import type { Services } from '../services';
import { AGENTLINK_VERSION } from '../version';
import { registerTools } from './mcp-tools';

/** What the server tells MCP clients it is. */
export const MCP_SERVER_INFO = { name: 'agentlink', version: AGENTLINK_VERSION };

const INSTRUCTIONS =
  "AgentLink runs actions on people's linked accounts (connections) in a real browser. list_connections finds a " +
  'connection, list_actions shows what its provider can do, run_action runs one and waits for the result (or gives a ' +
  'requestId for get_agent_request).';

/**
 * The MCP server over Streamable HTTP, at /mcp. Stateless (no MCP session): every POST is authenticated with the
 * organization's client credentials exactly as the API takes them (x-client-id / x-client-secret, or Basic), rate
 * limited with the API's bucket, its body read by the API's strict JSON parser with the same size limit, and answered by
 * a server built for that one caller, so nothing of one organization can reach another's call. Credentials, not
 * cookies, authenticate: a page a browser visits cannot call it (no DNS-rebinding exposure).
 */
/**
 * The MCP SDK, loaded at the first MCP call: it (with its JSON Schema validator) takes most of a second to load, which
 * every process and every test app paid whether or not anyone spoke MCP to it.
 */
async function mcpSdk() {
  const [{ McpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  return { McpServer, StreamableHTTPServerTransport };
}

export function mcpRouter(services: Services): Router {
  const router = Router();
  router.use(
    clientAuth(services.organizations, { always: true }),
    rateLimit(services.rateLimits, { always: true }),
    ...jsonBody(services.config.bodyLimitBytes),
  );
  router.post('/', async (req: Request, res: Response, next) => {
    let sdk: Awaited<ReturnType<typeof mcpSdk>>;
    try {
      sdk = await mcpSdk();
    } catch (err) {
      next(err);
      return;
    }
    const { McpServer, StreamableHTTPServerTransport } = sdk;
    const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
    registerTools(server, {
      services,
      caller: callerOf(res),
      envelope: (error) => errorEnvelope(res, error).body,
    });
    // JSON answers rather than an SSE stream: each call is one bounded request (run_action waits at most 30 s).
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  });
  // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE). The MCP client reads 405 as such.
  router.all('/', (_req, res) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp.' }, id: null });
  });
  return router;
}
