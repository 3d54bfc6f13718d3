import { z } from 'zod';

import { ConnectionSettingsSchema, UpdateConnectionSettingsBodySchema } from '../connection-health';
import {
  ConnectionCheckResultSchema,
  ConnectionListSchema,
  ConnectionSchema,
  ExchangePublicTokenBodySchema,
  ExchangePublicTokenResponseSchema,
  ListConnectionsQuerySchema,
  UpdateConnectionBodySchema,
} from '../connection-schemas';
import { c, meta } from '../route-kit';

// Connections: list, read, update, revoke, check their session, their settings, and the public token exchange.

const ConnectionIdParams = z.object({ connectionId: z.string().min(1).max(64) });

export const connectionsRoutes = c.router({
  exchangePublicToken: {
    method: 'POST',
    path: '/api/connections/public_token/exchange',
    body: ExchangePublicTokenBodySchema,
    responses: { 200: ExchangePublicTokenResponseSchema },
    summary: 'Exchange a public token for an access token',
    description:
      'Exchangeable once, within 30 minutes, by the organization and environment that created it. Errors: ' +
      'PUBLIC_TOKEN_MALFORMED (not a public token), PUBLIC_TOKEN_ENVIRONMENT_MISMATCH (token of the other environment), ' +
      'INVALID_PUBLIC_TOKEN (unknown), PUBLIC_TOKEN_ORGANIZATION_MISMATCH (issued to another organization), ' +
      'PUBLIC_TOKEN_EXPIRED, PUBLIC_TOKEN_ALREADY_USED (409), CONNECTION_REVOKED (409).',
    metadata: meta({
      auth: 'client',
      errors: [
        'PUBLIC_TOKEN_MALFORMED',
        'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH',
        'INVALID_PUBLIC_TOKEN',
        'PUBLIC_TOKEN_ORGANIZATION_MISMATCH',
        'PUBLIC_TOKEN_EXPIRED',
        'PUBLIC_TOKEN_ALREADY_USED',
        'CONNECTION_REVOKED',
      ],
    }),
  },
  // Before /api/connections/:connectionId, which would otherwise take "settings" for a connection id.
  getConnectionSettings: {
    method: 'GET',
    path: '/api/connections/settings',
    responses: { 200: ConnectionSettingsSchema },
    summary: 'Get the connection health-check settings',
    description:
      "How often the sessions of this environment's connections are checked between runs (healthCheck.intervalSeconds, and " +
      "per-provider overrides), and the service's default.",
    metadata: meta({ auth: 'client', errors: [] }),
  },
  updateConnectionSettings: {
    method: 'PATCH',
    path: '/api/connections/settings',
    body: UpdateConnectionSettingsBodySchema,
    responses: { 200: ConnectionSettingsSchema },
    summary: 'Change the connection health-check settings',
    description:
      'Sets the interval between scheduled checks for your connections in this environment (0: off; null: the default), and ' +
      'per-provider intervals (null removes one). Connections are rescheduled at once. Errors: INVALID_FIELD, UNKNOWN_PROVIDER.',
    metadata: meta({ auth: 'client', errors: ['INVALID_FIELD', 'UNKNOWN_PROVIDER'] }),
  },
  listConnections: {
    method: 'GET',
    path: '/api/connections',
    query: ListConnectionsQuerySchema,
    responses: { 200: ConnectionListSchema },
    summary: 'List connections',
    description:
      'Your connections in this environment, newest first, optionally only those of one end user (clientUserId) or with one ' +
      'status. Pages with limit and cursor (pass the nextCursor of the previous page). Errors: INVALID_FIELD, INVALID_CURSOR.',
    metadata: meta({ auth: 'client', errors: ['INVALID_CURSOR'] }),
  },
  getConnection: {
    method: 'GET',
    path: '/api/connections/:connectionId',
    pathParams: ConnectionIdParams,
    responses: { 200: ConnectionSchema },
    summary: 'Get a connection',
    description:
      'One connection of your organization in this environment: its provider, end user, status, device and exit. Errors: ' +
      'CONNECTION_NOT_FOUND.',
    metadata: meta({ auth: 'client', errors: ['CONNECTION_NOT_FOUND'] }),
  },
  checkConnection: {
    method: 'POST',
    path: '/api/connections/:connectionId/check',
    pathParams: ConnectionIdParams,
    body: c.noBody(),
    responses: { 200: ConnectionCheckResultSchema },
    summary: "Check a connection's session now",
    description:
      'Checks the provider session now, as the scheduler does between runs: the cheapest proof first (its cookies, then a ' +
      'signed-in page), read-only (the browser can send no write), a silent re-login when the session ended and credentials ' +
      'are stored. Answers with the outcome and the connection: SIGNED_IN, RENEWED, LOGIN_REQUIRED (the connection is now ' +
      'LOGIN_REQUIRED), or TIMED_OUT / UNREACHABLE / SESSION_UNREADABLE (status unchanged). On a LOGIN_REQUIRED connection a ' +
      'session found signed in or renewed makes it ACTIVE again (CONNECTION.RECOVERED). Errors: CONNECTION_NOT_FOUND, ' +
      'CONNECTION_REVOKED (409), CONNECTION_CHECK_IN_PROGRESS (409: a check is running), CONNECTION_CHECK_RATE_LIMITED (429: ' +
      'checked less than 10 s ago, or this process runs its maximum of checks; Retry-After).',
    metadata: meta({
      auth: 'client',
      errors: ['CONNECTION_NOT_FOUND', 'CONNECTION_REVOKED', 'CONNECTION_CHECK_IN_PROGRESS', 'CONNECTION_CHECK_RATE_LIMITED'],
    }),
  },
  updateConnection: {
    method: 'PATCH',
    path: '/api/connections/:connectionId',
    pathParams: ConnectionIdParams,
    body: UpdateConnectionBodySchema,
    responses: { 200: ConnectionSchema },
    summary: 'Set the exit of a connection',
    description:
      "Sets (or with null, removes) the upstream proxy the connection's browser traffic leaves through, from its next run, check " +
      'or re-login on: one stable address for the account, as a residential or office proxy gives. Its credentials are sealed ' +
      'and never shown; the answer shows exit.label. Errors: INVALID_FIELD, UPSTREAM_PROXY_NOT_ALLOWED, CONNECTION_NOT_FOUND, ' +
      'CONNECTION_REVOKED (409).',
    metadata: meta({ auth: 'client', errors: ['UPSTREAM_PROXY_NOT_ALLOWED', 'CONNECTION_NOT_FOUND', 'CONNECTION_REVOKED'] }),
  },
  revokeConnection: {
    method: 'DELETE',
    path: '/api/connections/:connectionId',
    pathParams: ConnectionIdParams,
    body: c.noBody(),
    responses: { 200: ConnectionSchema },
    summary: 'Revoke a connection',
    description:
      'Revokes the connection, deletes its stored session and invalidates every access token it has; ' +
      'later agent requests with those tokens get INVALID_ACCESS_TOKEN. Idempotent.',
    metadata: meta({ auth: 'client', errors: ['CONNECTION_NOT_FOUND'] }),
  },
});
