import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

import {
  AGENT_REQUEST_WAIT_MS_MAX,
  CONNECTION_LIST_LIMITS,
  CreateAgentRequestBodySchema,
  ListConnectionsQuerySchema,
} from '../../contract';
import type { Caller } from '../domain/context';
import type { DomainError, Result } from '../domain/errors';
import { presentAgentRequest, presentConnection } from '../domain/presenters';
import type { Services } from '../services';
import type { AgentRequestRecord } from '../store';
import { type Elicit, waitDecidingWrites } from './mcp-approval';

/**
 * The MCP tools: thin adapters over the same domain services the REST handlers call (server/routes/api.routes.ts),
 * for one authenticated caller. Each answers with the REST body as structured content (and as JSON text, for clients
 * that read only text); an expected failure answers `isError` with the API's error envelope, so an agent reads the same
 * stable codes as an HTTP caller.
 */
export interface ToolContext {
  services: Services;
  caller: Caller;
  /** The API's error envelope for a domain error (request id, redaction): errorEnvelope bound to this HTTP request. */
  envelope(error: DomainError): unknown;
  /** Asks the client's own user (MCP elicitation), when the client declared it can: held writes are decided there. */
  elicit?: Elicit;
}

/** run_action's default wait: long enough for a playbook, short of an MCP client's usual 60 s request timeout. */
export const RUN_ACTION_DEFAULT_WAIT_MS = 20_000;

const WaitMsSchema = z
  .number()
  .int()
  .min(0)
  .max(AGENT_REQUEST_WAIT_MS_MAX)
  .describe(`How long to hold the answer until the request ends or needs its user, in ms (0-${AGENT_REQUEST_WAIT_MS_MAX}).`);

const body = CreateAgentRequestBodySchema.shape;
const ConnectionIdSchema = z.string().min(1).max(100);

function answer(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function refused(ctx: ToolContext, error: DomainError): CallToolResult {
  const envelope = ctx.envelope(error) as Record<string, unknown>;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
}

/** A request record as the REST API presents it, with a next step when it has not ended yet. */
function requestAnswer(ctx: ToolContext, result: Result<AgentRequestRecord>): CallToolResult {
  if (!result.ok) return refused(ctx, result.error);
  const presented = presentAgentRequest(result.value, ctx.services.userActions.open(result.value)) as unknown as Record<string, unknown>;
  const status = result.value.status;
  const next =
    status === 'PENDING' || status === 'RUNNING'
      ? `Still ${status}: call get_agent_request with requestId ${result.value.id} (and waitMs) for the result.`
      : status === 'NEEDS_USER'
        ? 'The run waits for its end user: send them userAction.url, then call get_agent_request again.'
        : null;
  return answer(next ? { ...presented, next } : presented);
}

interface ToolConfig {
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; openWorldHint: boolean };
}

/** What the SDK hands a tool of its call: its abort signal and its JSON-RPC id (a request to the client may relate to it). */
type CallExtra = { signal: AbortSignal; requestId: string | number };

type Handler<S extends z.ZodRawShape> = (args: z.infer<z.ZodObject<S>>, extra: CallExtra) => Promise<CallToolResult>;

/**
 * registerTool with the SDK's generic signature set aside: its inference over zod v3 | v4 shapes costs tsc minutes and
 * gigabytes on shapes this size. The SDK still validates the arguments against the shape at run time (as z.infer types them).
 */
function tool<S extends z.ZodRawShape>(server: McpServer, name: string, config: ToolConfig & { inputSchema: S }, handler: Handler<S>) {
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: ToolConfig & { inputSchema: z.ZodRawShape },
    cb: (args: unknown, extra: CallExtra) => Promise<CallToolResult>,
  ) => void;
  register(name, config, (args, extra) => handler(args as z.infer<z.ZodObject<S>>, extra));
}

export function registerTools(server: McpServer, ctx: ToolContext): void {
  const { services, caller } = ctx;

  tool(
    server,
    'list_connections',
    {
      title: 'List connections',
      description:
        "The organization's linked accounts (connections) in this environment, newest first: connectionId, providerId, " +
        'clientUserId, status (ACTIVE, LOGIN_REQUIRED, REVOKED). Page with nextCursor.',
      inputSchema: ListConnectionsQuerySchema.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => {
      const result = await services.connections.list(caller, { ...query, limit: query.limit ?? CONNECTION_LIST_LIMITS.default });
      if (!result.ok) return refused(ctx, result.error);
      return answer({ data: result.value.records.map(presentConnection), nextCursor: result.value.nextCursor });
    },
  );

  tool(
    server,
    'list_actions',
    {
      title: "List a connection's actions",
      description:
        "The action catalogue of a connection's provider (or of a provider by id): each action's name, example requests, " +
        'parameters, whether it writes, and the result fields it fills. Use one as run_action `action` (or `playbook`).',
      inputSchema: {
        connectionId: ConnectionIdSchema.optional().describe('The connection whose provider to describe.'),
        providerId: z.string().min(1).max(100).optional().describe('Or a provider id, from list_connections.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ connectionId, providerId }) => {
      if (!connectionId === !providerId) {
        return refused(ctx, { code: 'INVALID_FIELD', message: 'Give exactly one of connectionId and providerId.' });
      }
      let id = providerId;
      if (connectionId) {
        const connection = await services.connections.get(caller, connectionId);
        if (!connection.ok) return refused(ctx, connection.error);
        id = connection.value.providerId;
      }
      const result = await services.providerActions.list(caller, id!);
      return result.ok ? answer(result.value) : refused(ctx, result.error);
    },
  );

  tool(
    server,
    'run_action',
    {
      title: 'Run an action on a linked account',
      description:
        "Runs an action in the connection's real browser session (a tested playbook when the action matches one, else the " +
        'planner) and waits up to waitMs for it to end. Answers the agent request: COMPLETED with `result` shaped as ' +
        'responseFormat, FAILED with `error`, or still PENDING/RUNNING with its requestId to pass to get_agent_request.',
      inputSchema: {
        connectionId: ConnectionIdSchema.optional().describe('The connection to act on (from list_connections).'),
        accessToken: body.accessToken.optional().describe("Or the connection's access token."),
        action: body.action,
        startingUrl: body.startingUrl.optional().describe("Where the browser begins; default: the provider's home page."),
        parameters: body.parameters,
        responseFormat: body.responseFormat,
        mode: body.mode,
        playbook: body.playbook,
        approval: body.approval.describe(
          'writes / first_write: writes wait for approval. A client that declared elicitation is asked (accept sends the ' +
            'write, decline stops the run); any other gets NEEDS_USER with the link for its user.',
        ),
        timeoutMs: body.timeoutMs,
        waitMs: WaitMsSchema.default(RUN_ACTION_DEFAULT_WAIT_MS),
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async ({ connectionId, accessToken, waitMs, ...input }, extra) => {
      if (!connectionId === !accessToken) {
        return refused(ctx, { code: 'INVALID_FIELD', message: 'Give exactly one of connectionId and accessToken.' });
      }
      const created = await services.agentRequests.create(
        caller,
        connectionId ? { ...input, connectionId } : { ...input, accessToken: accessToken! },
      );
      if (!created.ok || waitMs === 0) return requestAnswer(ctx, created);
      if (ctx.elicit) {
        return requestAnswer(ctx, await waitDecidingWrites(services, caller, created.value.id, waitMs, extra, ctx.elicit));
      }
      return requestAnswer(ctx, await services.agentRequests.wait(caller, created.value.id, waitMs, extra.signal));
    },
  );

  tool(
    server,
    'get_agent_request',
    {
      title: 'Get an agent request',
      description:
        'Reads an agent request (from run_action), holding the answer up to waitMs until it ends or needs its user: ' +
        'status, result, error, warnings, the step trace and timings.',
      inputSchema: { requestId: z.string().min(1).max(100), waitMs: WaitMsSchema.optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ requestId, waitMs }, extra) =>
      requestAnswer(
        ctx,
        waitMs
          ? await services.agentRequests.wait(caller, requestId, waitMs, extra.signal)
          : await services.agentRequests.get(caller, requestId),
      ),
  );
}
