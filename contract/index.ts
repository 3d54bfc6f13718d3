import { initContract } from '@ts-rest/core';
import { z } from 'zod';

import { ConnectionSettingsSchema, UpdateConnectionSettingsBodySchema } from './connection-health';
import type { ErrorCode } from './error-codes';
import { ProviderDeclarationSchema, UpdateProviderBodySchema } from './provider-declaration';
import { CreateRedirectUriBodySchema, REDIRECT_URI_LIMITS, RedirectUriListSchema, RedirectUriSchema } from './redirect-uri-schemas';
import {
  AgentRequestAcceptedSchema,
  AgentRequestListSchema,
  AgentRequestSchema,
  ConnectionCheckResultSchema,
  ConnectionListSchema,
  ConnectionSchema,
  CreateAgentRequestBodySchema,
  CreateLinkTokenBodySchema,
  CreateSandboxPublicTokenBodySchema,
  ErrorEnvelopeSchema,
  ExchangePublicTokenBodySchema,
  ExchangePublicTokenResponseSchema,
  GetAgentRequestQuerySchema,
  LinkTokenSchema,
  ListAgentRequestsQuerySchema,
  ListConnectionsQuerySchema,
  ProviderActionListSchema,
  ProviderDetailSchema,
  ProviderListSchema,
  SandboxPublicTokenSchema,
  SandboxResetSchema,
  UpdateConnectionBodySchema,
} from './schemas';
import {
  CreateWebhookEndpointBodySchema,
  ListWebhookDeliveriesQuerySchema,
  UpdateWebhookEndpointBodySchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook-schemas';

export * from './connection-health';
export * from './error-codes';
export * from './provider-declaration';
export * from './redirect-uri-schemas';
export * from './response-format';
export * from './route-errors';
export * from './schemas';
export * from './webhook-schemas';

const c = initContract();

/** Facts about a route that middleware reads (ts-rest metadata), instead of matching path strings. */
export interface RouteMetadata {
  auth: 'client';
  /** Only callable with sandbox credentials. */
  sandboxOnly?: boolean;
  /**
   * The codes this route's own service can answer with (the layers every request crosses add theirs: see
   * route-errors.ts). The OpenAPI document's `code` enums and the client's error types are built from it.
   */
  errors: readonly ErrorCode[];
}

const meta = (m: RouteMetadata) => m;

// Every error leaves in the same envelope; listing them once keeps status codes strict everywhere.
const commonResponses = {
  400: ErrorEnvelopeSchema,
  401: ErrorEnvelopeSchema,
  404: ErrorEnvelopeSchema,
  409: ErrorEnvelopeSchema,
  413: ErrorEnvelopeSchema,
  415: ErrorEnvelopeSchema,
  429: ErrorEnvelopeSchema,
  500: ErrorEnvelopeSchema,
  502: ErrorEnvelopeSchema,
};

const ConnectionIdParams = z.object({ connectionId: z.string().min(1).max(64) });
const ProviderIdParams = z.object({ providerId: z.string().min(1).max(64) });
const RequestIdParams = z.object({ requestId: z.string().min(1).max(64) });
const WebhookIdParams = z.object({ webhookId: z.string().min(1).max(64) });
const DeliveryIdParams = z.object({ deliveryId: z.string().min(1).max(64) });
const RedirectUriIdParams = z.object({ redirectUriId: z.string().min(1).max(64) });

export const contract = c.router(
  {
    providers: c.router({
      listProviders: {
        method: 'GET',
        path: '/api/providers',
        responses: { 200: ProviderListSchema },
        summary: 'List the providers of your environment',
        description:
          "The catalogue of providers that the credentials' environment can connect to: the built-in ones, the operator's, and your " +
          "organization's own for this environment (source tells which).",
        metadata: meta({ auth: 'client', errors: [] }),
      },
      createProvider: {
        method: 'POST',
        path: '/api/providers',
        body: ProviderDeclarationSchema,
        responses: { 201: ProviderDetailSchema },
        summary: 'Declare a private provider',
        description:
          'Adds a website your organization can connect to, in the environment of the credentials and visible only there: a ' +
          'declaration (where it signs in, which origins the browser may reach, how a signed-in session is recognised, an optional ' +
          'login recipe). The server assigns providerId. Errors: INVALID_FIELD (the shape; details lists each path), ' +
          'PROVIDER_DECLARATION_INVALID (non-public addresses in production, another environment), PROVIDER_SLUG_TAKEN, PROVIDER_LIMIT.',
        metadata: meta({
          auth: 'client',
          errors: ['INVALID_FIELD', 'PROVIDER_DECLARATION_INVALID', 'PROVIDER_SLUG_TAKEN', 'PROVIDER_LIMIT'],
        }),
      },
      getProvider: {
        method: 'GET',
        path: '/api/providers/:providerId',
        pathParams: ProviderIdParams,
        responses: { 200: ProviderDetailSchema },
        summary: 'Get a provider',
        description: 'One provider of the catalogue (built-in, operator or your own). Errors: PROVIDER_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND'] }),
      },
      updateProvider: {
        method: 'PATCH',
        path: '/api/providers/:providerId',
        pathParams: ProviderIdParams,
        body: UpdateProviderBodySchema,
        responses: { 200: ProviderDetailSchema },
        summary: 'Change a private provider',
        description:
          "Replaces the given top-level fields of your organization's provider; the result is validated whole. Errors: " +
          'PROVIDER_NOT_FOUND, PROVIDER_NOT_EDITABLE (built-in or operator), PROVIDER_DECLARATION_INVALID, PROVIDER_SLUG_TAKEN.',
        metadata: meta({
          auth: 'client',
          errors: ['PROVIDER_NOT_FOUND', 'PROVIDER_NOT_EDITABLE', 'PROVIDER_DECLARATION_INVALID', 'PROVIDER_SLUG_TAKEN'],
        }),
      },
      deleteProvider: {
        method: 'DELETE',
        path: '/api/providers/:providerId',
        pathParams: ProviderIdParams,
        body: c.noBody(),
        responses: { 200: ProviderDetailSchema },
        summary: 'Delete a private provider',
        description:
          "Deletes your organization's provider and returns it. Refused while it has connections that are not revoked, like an " +
          'in-use object elsewhere: they hold sessions and agent requests that would lose their egress policy. Errors: ' +
          'PROVIDER_NOT_FOUND, PROVIDER_NOT_EDITABLE, PROVIDER_IN_USE.',
        metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND', 'PROVIDER_NOT_EDITABLE', 'PROVIDER_IN_USE'] }),
      },
      listProviderActions: {
        method: 'GET',
        path: '/api/providers/:providerId/actions',
        pathParams: ProviderIdParams,
        responses: { 200: ProviderActionListSchema },
        summary: 'List the actions a provider can run without a model',
        description:
          'The action catalogue: each playbook (a tested routine) of the provider, with its description, example requests, parameters ' +
          'as JSON Schema, whether it writes, and the result fields it can fill. An agent request whose action is phrased like an ' +
          'example runs that playbook with no model configured; or name it with `playbook`. Errors: PROVIDER_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND'] }),
      },
    }),
    link: c.router({
      createLinkToken: {
        method: 'POST',
        path: '/api/link-token',
        body: CreateLinkTokenBodySchema,
        responses: { 200: LinkTokenSchema },
        summary: 'Create a link token',
        description:
          'Starts the connect flow for one end user. Pass the returned linkToken to the client SDK (useAgentLink). ' +
          'Single use, valid 30 minutes by default. With connectionId, the flow re-authenticates that connection (update mode). ' +
          'With completionRedirectUri (one of your redirect URIs), a widget opened as a plain page sends the browser there when the ' +
          'flow ends (hosted link). Errors: INVALID_FIELD, UNKNOWN_PROVIDER, CONNECTION_NOT_FOUND and CONNECTION_REVOKED (update mode), ' +
          'REDIRECT_URI_NOT_ALLOWED (details.field).',
        metadata: meta({
          auth: 'client',
          errors: ['INVALID_FIELD', 'UNKNOWN_PROVIDER', 'CONNECTION_NOT_FOUND', 'CONNECTION_REVOKED', 'REDIRECT_URI_NOT_ALLOWED'],
        }),
      },
    }),
    redirectUris: c.router({
      listRedirectUris: {
        method: 'GET',
        path: '/api/redirect-uris',
        responses: { 200: RedirectUriListSchema },
        summary: 'List the allowed redirect URIs',
        description:
          "Where hosted links of the credentials' environment may send the browser when they end (a link token's " +
          'completionRedirectUri), oldest first.',
        metadata: meta({ auth: 'client', errors: [] }),
      },
      createRedirectUri: {
        method: 'POST',
        path: '/api/redirect-uris',
        body: CreateRedirectUriBodySchema,
        responses: { 201: RedirectUriSchema },
        summary: 'Allow a redirect URI',
        description:
          'Registers a URI that link tokens of this environment may name as completionRedirectUri (matched exactly). https only; ' +
          'plain http only for loopback hosts in the sandbox; no fragment, no credentials. At most ' +
          `${REDIRECT_URI_LIMITS.perEnvironmentMax} per organization and environment. Errors: INVALID_FIELD, REDIRECT_URI_INVALID ` +
          '(details.rule), REDIRECT_URI_ALREADY_REGISTERED, REDIRECT_URI_LIMIT.',
        metadata: meta({ auth: 'client', errors: ['REDIRECT_URI_INVALID', 'REDIRECT_URI_ALREADY_REGISTERED', 'REDIRECT_URI_LIMIT'] }),
      },
      deleteRedirectUri: {
        method: 'DELETE',
        path: '/api/redirect-uris/:redirectUriId',
        pathParams: RedirectUriIdParams,
        body: c.noBody(),
        responses: { 200: RedirectUriSchema },
        summary: 'Remove an allowed redirect URI',
        description:
          'Removes it and returns it. Link tokens that already name it no longer redirect there when their flow ends (their ' +
          'LINK.SESSION_FINISHED webhook still goes out). Errors: REDIRECT_URI_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['REDIRECT_URI_NOT_FOUND'] }),
      },
    }),
    connections: c.router({
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
    }),
    agentRequests: c.router({
      createAgentRequest: {
        method: 'POST',
        path: '/api/agent-requests',
        body: CreateAgentRequestBodySchema,
        responses: { 202: AgentRequestAcceptedSchema },
        summary: 'Create an agent request',
        description:
          'Accepts an action to run on a connected account and queues it; the execution starts when this returns. ' +
          'Read the outcome with GET /api/agent-requests/{requestId}. Errors: INVALID_FIELD (with the exact path of a bad ' +
          'responseFormat leaf), INVALID_ACCESS_TOKEN, ACCESS_TOKEN_ENVIRONMENT_MISMATCH, CONNECTION_LOGIN_REQUIRED (409), ' +
          'STARTING_URL_NOT_ALLOWED; with `playbook`: UNKNOWN_PLAYBOOK, PLAYBOOK_PARAMETERS_MISSING, PLAYBOOK_PARAMETERS_INVALID, ' +
          'PLAYBOOK_WRITES_IN_READ_MODE (each with the path of the field to fix in details).',
        metadata: meta({
          auth: 'client',
          errors: [
            'INVALID_ACCESS_TOKEN',
            'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
            'CONNECTION_LOGIN_REQUIRED',
            'UNKNOWN_PROVIDER',
            'STARTING_URL_NOT_ALLOWED',
            'UNKNOWN_PLAYBOOK',
            'PLAYBOOK_PARAMETERS_MISSING',
            'PLAYBOOK_PARAMETERS_INVALID',
            'PLAYBOOK_WRITES_IN_READ_MODE',
          ],
        }),
      },
      listAgentRequests: {
        method: 'GET',
        path: '/api/agent-requests',
        query: ListAgentRequestsQuerySchema,
        responses: { 200: AgentRequestListSchema },
        summary: 'List agent requests',
        description:
          'Your agent requests in this environment, newest first, optionally only those with one status. ' +
          'Pages with limit and cursor (pass the nextCursor of the previous page). Errors: INVALID_FIELD, INVALID_CURSOR.',
        metadata: meta({ auth: 'client', errors: ['INVALID_CURSOR'] }),
      },
      getAgentRequest: {
        method: 'GET',
        path: '/api/agent-requests/:requestId',
        pathParams: RequestIdParams,
        query: GetAgentRequestQuerySchema,
        responses: { 200: AgentRequestSchema },
        summary: 'Get an agent request',
        description:
          'The stored record: status, inputs, result or error (error.code of a run: see the run error table), the step trace, ' +
          'which way ran (method), model usage, timestamps. With waitMs the answer is held until the request reaches a final ' +
          'status or waitMs passes, whichever is first. Only the owning organization and environment can read it.',
        metadata: meta({ auth: 'client', errors: ['AGENT_REQUEST_NOT_FOUND'] }),
      },
      cancelAgentRequest: {
        method: 'POST',
        path: '/api/agent-requests/:requestId/cancel',
        pathParams: RequestIdParams,
        body: c.noBody(),
        responses: { 200: AgentRequestSchema },
        summary: 'Cancel an agent request',
        description:
          'A PENDING request becomes CANCELED at once. A RUNNING one is flagged and its worker stops it within about a second; ' +
          'the answer is the record at that moment (read it again, or with waitMs, to see CANCELED). ' +
          'Errors: AGENT_REQUEST_NOT_FOUND, AGENT_REQUEST_ALREADY_FINISHED (409).',
        metadata: meta({ auth: 'client', errors: ['AGENT_REQUEST_NOT_FOUND', 'AGENT_REQUEST_ALREADY_FINISHED'] }),
      },
    }),
    sandbox: c.router({
      createSandboxPublicToken: {
        method: 'POST',
        path: '/api/sandbox/public_token/create',
        body: CreateSandboxPublicTokenBodySchema,
        responses: { 200: SandboxPublicTokenSchema },
        summary: 'Create a public token without the widget (sandbox only)',
        description:
          'Connects a sandbox test user (default user_good) to a sandbox provider and returns a public token, ' +
          'so an integration can be tested end to end without the connect widget. Errors: SANDBOX_ONLY, UNKNOWN_PROVIDER, UNKNOWN_TEST_USER.',
        metadata: meta({ auth: 'client', sandboxOnly: true, errors: ['UNKNOWN_PROVIDER', 'UNKNOWN_TEST_USER', 'SANDBOX_LOGIN_FAILED'] }),
      },
      resetSandbox: {
        method: 'POST',
        path: '/api/sandbox/reset',
        body: c.noBody(),
        responses: { 200: SandboxResetSchema },
        summary: "Reset your organization's sandbox site data (sandbox only)",
        description:
          "Deletes everything your organization's test users created on the simulated provider sites (posts, repositories, messages …); " +
          'the next visit starts again from the seed content. Login sessions and connections stay valid. Errors: SANDBOX_ONLY.',
        metadata: meta({ auth: 'client', sandboxOnly: true, errors: [] }),
      },
    }),
    webhooks: c.router({
      createWebhookEndpoint: {
        method: 'POST',
        path: '/api/webhooks',
        body: CreateWebhookEndpointBodySchema,
        responses: { 201: WebhookEndpointWithSecretSchema },
        summary: 'Register a webhook endpoint',
        description:
          'Registers an endpoint of your environment for some event types. The answer carries the signing secret (whsec_…) ' +
          'once; it is stored encrypted and never shown again (rotate it to get a new one). At most 20 endpoints per organization and ' +
          'environment. Errors: INVALID_FIELD, WEBHOOK_URL_NOT_ALLOWED, WEBHOOK_ENDPOINT_LIMIT.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_LIMIT'] }),
      },
      listWebhookEndpoints: {
        method: 'GET',
        path: '/api/webhooks',
        responses: { 200: WebhookEndpointListSchema },
        summary: 'List webhook endpoints',
        description: "The endpoints of your organization in the credentials' environment, oldest first (without secrets).",
        metadata: meta({ auth: 'client', errors: [] }),
      },
      getWebhookEndpoint: {
        method: 'GET',
        path: '/api/webhooks/:webhookId',
        pathParams: WebhookIdParams,
        responses: { 200: WebhookEndpointSchema },
        summary: 'Get a webhook endpoint',
        description: 'Errors: WEBHOOK_ENDPOINT_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }),
      },
      updateWebhookEndpoint: {
        method: 'PATCH',
        path: '/api/webhooks/:webhookId',
        pathParams: WebhookIdParams,
        body: UpdateWebhookEndpointBodySchema,
        responses: { 200: WebhookEndpointSchema },
        summary: 'Update a webhook endpoint',
        description:
          'Changes url, events, description or enabled. Errors: INVALID_FIELD, WEBHOOK_URL_NOT_ALLOWED, WEBHOOK_ENDPOINT_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_NOT_FOUND'] }),
      },
      deleteWebhookEndpoint: {
        method: 'DELETE',
        path: '/api/webhooks/:webhookId',
        pathParams: WebhookIdParams,
        body: c.noBody(),
        responses: { 200: WebhookEndpointSchema },
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint and its delivery log; pending deliveries are dropped. Errors: WEBHOOK_ENDPOINT_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }),
      },
      rotateWebhookSecret: {
        method: 'POST',
        path: '/api/webhooks/:webhookId/rotate-secret',
        pathParams: WebhookIdParams,
        body: c.noBody(),
        responses: { 200: WebhookEndpointWithSecretSchema },
        summary: 'Rotate the signing secret of a webhook endpoint',
        description:
          'Issues a new signing secret, shown once. The old secret stops at once: every attempt from now on (retries of ' +
          'earlier events too) is signed with the new one. Errors: WEBHOOK_ENDPOINT_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND'] }),
      },
      listWebhookDeliveries: {
        method: 'GET',
        path: '/api/webhooks/:webhookId/deliveries',
        pathParams: WebhookIdParams,
        query: ListWebhookDeliveriesQuerySchema,
        responses: { 200: WebhookDeliveryListSchema },
        summary: 'List the deliveries of a webhook endpoint',
        description:
          'The delivery log, newest first: status, next attempt, and each attempt with its HTTP status or error. ' +
          'Errors: WEBHOOK_ENDPOINT_NOT_FOUND, INVALID_CURSOR.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_ENDPOINT_NOT_FOUND', 'INVALID_CURSOR'] }),
      },
      resendWebhookDelivery: {
        method: 'POST',
        path: '/api/webhook-deliveries/:deliveryId/resend',
        pathParams: DeliveryIdParams,
        body: c.noBody(),
        responses: { 202: WebhookDeliverySchema },
        summary: 'Send an event to its endpoint again',
        description:
          'Queues a new delivery of the same event (same eventId and body) to the same endpoint, due at once, with the full ' +
          'retry schedule. Errors: WEBHOOK_DELIVERY_NOT_FOUND.',
        metadata: meta({ auth: 'client', errors: ['WEBHOOK_DELIVERY_NOT_FOUND'] }),
      },
    }),
  },
  { commonResponses, strictStatusCodes: true },
);

export type AgentLinkContract = typeof contract;
