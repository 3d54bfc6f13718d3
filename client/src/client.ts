import { APIPromise, type Page, PagePromise } from './api-promise';
import type { DeprecatedAliases } from './deprecated-aliases';
import { AgentLinkError } from './errors';
import { OPERATIONS } from './generated/api';
import type { LegacyClient } from './operations';
import { buildResources, type Resources } from './resources';
import { DEFAULT_RETRY_POLICY } from './retry';
import { abortableSleep, type HttpRequest, type RequestOptions, send, type TransportConfig } from './transport';

export type { LegacyClient, Operation, OperationArgs, OperationMethod } from './operations';

export interface AgentLinkClientOptions {
  /** Where AgentLink runs, e.g. https://agentlink.example.com (no /api suffix). */
  baseUrl: string;
  clientId: string;
  /** The sandbox or the production secret; it decides the environment of every call. Keep it on your server. */
  clientSecret: string;
  /** Time for each attempt of a call, in ms (default 60 s: more than the longest waitMs of 30 s). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and network failures (default 2; 0 disables them). */
  maxRetries?: number;
  /** Extra headers sent on every call. */
  headers?: Record<string, string>;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The client: resources as stripe-node has them (resources.ts), `agentlink.agentRequests.create(body)`, plus the
 * contract's method names of earlier versions as deprecated aliases (deprecated-aliases.ts).
 */
export type AgentLinkClient = Resources & DeprecatedAliases;

function fillPath(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    const value = params?.[name];
    if (typeof value !== 'string' || value === '') {
      throw new AgentLinkError(`params.${name} is required (a non-empty string) for ${template}.`);
    }
    return encodeURIComponent(value);
  });
}

function normalizeBaseUrl(baseUrl: string): string {
  let url: URL | null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AgentLinkError(
      `baseUrl must be an absolute http(s) address such as https://agentlink.example.com, got ${JSON.stringify(baseUrl)}.`,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The AgentLink API client for your backend: fetch only (Node 20+, browsers, edge runtimes), typed from the API's
 * OpenAPI document, with retries, timeouts and pagination.
 *
 *   const agentlink = createAgentLinkClient({ baseUrl, clientId, clientSecret });
 *   const { linkToken } = await agentlink.linkTokens.create({ clientUserId: 'user-42' });
 *   for await (const c of agentlink.connections.list({ status: 'ACTIVE' })) console.log(c.connectionId);
 *   const done = await agentlink.agentRequests.createAndWait({ accessToken, action, startingUrl, responseFormat });
 *
 * Methods resolve to the answer's body and throw AgentLinkError subclasses (errors.ts): AgentLinkApiError for the
 * API's error envelope (status, typed code, requestId), AgentLinkConnectionError / AgentLinkTimeoutError when no
 * answer came, AgentLinkResponseError when something other than AgentLink answered. 429s, 5xx and network failures are
 * retried (maxRetries, exponential backoff with jitter, Retry-After honoured); every POST carries an Idempotency-Key,
 * made once per call and reused by its retries, so a retried POST never runs twice.
 */
export function createAgentLinkClient(options: AgentLinkClientOptions): AgentLinkClient {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new AgentLinkError('No fetch: pass options.fetch on runtimes without a global fetch.');
  if (!options.clientId || !options.clientSecret) throw new AgentLinkError('clientId and clientSecret are required.');
  const config: TransportConfig = {
    baseUrl: normalizeBaseUrl(options.baseUrl),
    headers: { ...options.headers, 'x-client-id': options.clientId, 'x-client-secret': options.clientSecret },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) },
    // Called as a plain function: some runtimes' fetch refuses a `this` other than the global.
    fetch: (input, init) => fetchImpl(input, init),
    sleep: abortableSleep,
    random: Math.random,
  };

  const client: Record<string, Record<string, unknown>> = {};
  for (const [group, operations] of Object.entries(OPERATIONS)) {
    client[group] = {};
    for (const [name, op] of Object.entries(operations) as [string, { method: string; path: string; paginated?: boolean }][]) {
      client[group][name] = (
        args: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown } = {},
        opts?: RequestOptions,
      ) => {
        const request = (query: Record<string, unknown> | undefined): HttpRequest => ({
          method: op.method,
          path: fillPath(op.path, args.params),
          query,
          body: args.body,
        });
        let first: HttpRequest;
        try {
          first = request(args.query);
        } catch (err) {
          return new APIPromise(Promise.reject(err));
        }
        if (!op.paginated) return new APIPromise(send(config, first, opts));
        return new PagePromise<Page<unknown>, unknown>(send(config, first, opts), (cursor) =>
          send(config, request({ ...args.query, cursor }), opts),
        );
      };
    }
  }
  const resources = buildResources(client as unknown as LegacyClient) as unknown as Record<string, Record<string, unknown>>;
  // Each group holds the resource's methods and, under their old names, the contract's (deprecated aliases).
  const merged: Record<string, Record<string, unknown>> = {};
  for (const group of new Set([...Object.keys(client), ...Object.keys(resources)])) {
    merged[group] = { ...client[group], ...resources[group] };
  }
  return merged as unknown as AgentLinkClient;
}
