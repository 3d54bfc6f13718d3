import { randomUUID } from 'node:crypto';

import { type Request, type Response, Router } from 'express';

import { errorEnvelope } from '../http/api-error';
import { callerOf, clientAuth } from '../http/auth';
import { jsonBody } from '../http/json-body';
import { rateLimit } from '../http/rate-limit';
import type { Services } from '../services';
import { AGENTLINK_VERSION } from '../version';
import type { Elicit } from './mcp-approval';
import { McpSessions, ownerKeyOf } from './mcp-sessions';
import { registerTools } from './mcp-tools';

/** What the server tells MCP clients it is. */
export const MCP_SERVER_INFO = { name: 'agentlink', version: AGENTLINK_VERSION };

const INSTRUCTIONS =
  "AgentLink runs actions on people's linked accounts (connections) in a real browser. list_connections finds a " +
  'connection, list_actions shows what its provider can do, run_action runs one and waits for the result (or gives a ' +
  'requestId for get_agent_request).';

/**
 * The MCP SDK, loaded at the first MCP call: it (with its JSON Schema validator) takes most of a second to load, which
 * every process and every test app paid whether or not anyone spoke MCP to it.
 */
async function mcpSdk() {
  const [{ McpServer }, { StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { McpServer, StreamableHTTPServerTransport, isInitializeRequest };
}

/** An initialize whose client says it can ask its user (elicitation): it gets a session, so its answers come back here. */
function asksItsUser(body: unknown): boolean {
  const params = (body as { params?: { capabilities?: { elicitation?: unknown } } } | null)?.params;
  return !!params?.capabilities?.elicitation;
}

const jsonRpcError = (res: Response, status: number, code: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * The MCP server over Streamable HTTP, at /mcp. Every POST is authenticated with the organization's client credentials
 * exactly as the API takes them (x-client-id / x-client-secret, or Basic), rate limited with the API's bucket, its body
 * read by the API's strict JSON parser with the same size limit, and answered by a server built for that one caller, so
 * nothing of one organization can reach another's call. Credentials, not cookies, authenticate: a page a browser visits
 * cannot call it (no DNS-rebinding exposure).
 *
 * Stateless (no MCP session, JSON answers) for every client but one that declared elicitation: that one gets a session
 * (mcp-sessions.ts), answers as event streams, and run_action asks its user about held writes (mcp-approval.ts).
 */
export function mcpRouter(services: Services): Router {
  const router = Router();
  const sessions = new McpSessions<{ ownerKey: string; close(): Promise<void>; handle(req: Request, res: Response): Promise<void> }>();
  router.use(
    clientAuth(services.organizations, { always: true }),
    rateLimit(services.rateLimits, { always: true }),
    ...jsonBody(services.config.bodyLimitBytes),
  );

  /** A request of an open session: only its own caller finds it. */
  const inSession = async (req: Request, res: Response) => {
    const id = req.header('mcp-session-id');
    if (id === undefined) return false;
    const session = sessions.find(id, callerOf(res));
    if (!session) jsonRpcError(res, 404, -32001, 'Session not found: initialize again.');
    else await session.handle(req, res);
    return true;
  };

  router.post('/', async (req: Request, res: Response, next) => {
    try {
      if (await inSession(req, res)) return;
      const { McpServer, StreamableHTTPServerTransport, isInitializeRequest } = await mcpSdk();
      const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
      const caller = callerOf(res);
      if (isInitializeRequest(req.body) && asksItsUser(req.body)) {
        // The request being answered: the error envelope carries its id (each POST of the session in turn).
        let current = res;
        const elicit: Elicit = async (message, { timeoutMs, signal, relatedRequestId }) => {
          const result = await server.server.elicitInput(
            { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
            { timeout: timeoutMs, signal, relatedRequestId },
          );
          return result.action;
        };
        registerTools(server, { services, caller, envelope: (error) => errorEnvelope(current, error).body, elicit });
        sessions.makeRoom(caller);
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) =>
            sessions.add(id, {
              ownerKey: ownerKeyOf(caller),
              close: async () => {
                await transport.close();
                await server.close();
              },
              handle: async (r, s) => {
                current = s;
                await transport.handleRequest(r, s, r.body);
              },
            }),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.forget(transport.sessionId);
        };
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        return;
      }
      registerTools(server, { services, caller, envelope: (error) => errorEnvelope(res, error).body });
      // JSON answers rather than an SSE stream: each call is one bounded request (run_action waits at most 30 s).
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      next(err);
    }
  });
  // A session ends (DELETE) through its own transport. No GET stream: asks go on the stream of the call they belong to.
  router.all('/', async (req, res, next) => {
    try {
      if (req.method === 'DELETE' && (await inSession(req, res))) return;
    } catch (err) {
      next(err);
      return;
    }
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp.' }, id: null });
  });
  return router;
}
