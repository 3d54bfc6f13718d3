import type { APIPromise, Page, PagePromise } from './api-promise';
import type { AgentRequest, Operations } from './generated/api';
import type { LegacyClient, Operation } from './operations';
import type { RequestOptions } from './transport';
import { waitForAgentRequest, type WaitForAgentRequestOptions } from './wait';

/**
 * The client as stripe-node reads: one resource per noun, verbs as methods, ids as plain arguments, bodies as the
 * first argument — `agentlink.linkTokens.create({ clientUserId })`, `agentlink.agentRequests.retrieve(id, { waitMs })`.
 * Each method is the operation method of the API's contract (client.ts) under a product name: same types, errors,
 * retries, Idempotency-Key and pagination.
 */
type Op<G extends keyof Operations, K extends keyof Operations[G]> = Operations[G][K] extends Operation ? Operations[G][K] : never;
type Body<G extends keyof Operations, K extends keyof Operations[G]> = Op<G, K>['body'];
type Query<G extends keyof Operations, K extends keyof Operations[G]> = NonNullable<Op<G, K>['query']>;
type One<G extends keyof Operations, K extends keyof Operations[G]> = APIPromise<Op<G, K>['response']>;
type List<G extends keyof Operations, K extends keyof Operations[G]> =
  Op<G, K>['response'] extends Page<infer Item> ? PagePromise<Op<G, K>['response'], Item> : never;

export interface ProvidersResource {
  /** The providers of your environment (GET /api/providers). */
  list(options?: RequestOptions): One<'providers', 'listProviders'>;
  /** Declares a private provider (POST /api/providers). */
  create(body: Body<'providers', 'createProvider'>, options?: RequestOptions): One<'providers', 'createProvider'>;
  retrieve(providerId: string, options?: RequestOptions): One<'providers', 'getProvider'>;
  update(providerId: string, body: Body<'providers', 'updateProvider'>, options?: RequestOptions): One<'providers', 'updateProvider'>;
  del(providerId: string, options?: RequestOptions): One<'providers', 'deleteProvider'>;
  /** What the provider can do: its action catalogue (GET /api/providers/{providerId}/actions). */
  listActions(providerId: string, options?: RequestOptions): One<'providers', 'listProviderActions'>;
}

export interface LinkTokensResource {
  /** Starts the connect flow for one of your end users (POST /api/link-token). */
  create(body: Body<'link', 'createLinkToken'>, options?: RequestOptions): One<'link', 'createLinkToken'>;
}

export interface RedirectUrisResource {
  list(options?: RequestOptions): One<'redirectUris', 'listRedirectUris'>;
  create(body: Body<'redirectUris', 'createRedirectUri'>, options?: RequestOptions): One<'redirectUris', 'createRedirectUri'>;
  del(redirectUriId: string, options?: RequestOptions): One<'redirectUris', 'deleteRedirectUri'>;
}

export interface ConnectionsResource {
  /** Trades the widget's public token for the connection's access token (POST /api/connections/public_token/exchange). */
  exchangePublicToken(
    body: Body<'connections', 'exchangePublicToken'>,
    options?: RequestOptions,
  ): One<'connections', 'exchangePublicToken'>;
  /** @deprecated Pass the body itself: `exchangePublicToken({ publicToken })`. */
  exchangePublicToken(
    args: { body: Body<'connections', 'exchangePublicToken'> },
    options?: RequestOptions,
  ): One<'connections', 'exchangePublicToken'>;
  /** Your connections, newest first: await the first page, or `for await` every connection. */
  list(query?: Query<'connections', 'listConnections'>, options?: RequestOptions): List<'connections', 'listConnections'>;
  retrieve(connectionId: string, options?: RequestOptions): One<'connections', 'getConnection'>;
  update(
    connectionId: string,
    body: Body<'connections', 'updateConnection'>,
    options?: RequestOptions,
  ): One<'connections', 'updateConnection'>;
  /** Revokes the connection and its access tokens. */
  revoke(connectionId: string, options?: RequestOptions): One<'connections', 'revokeConnection'>;
  /** Checks the connection's session now. */
  check(connectionId: string, options?: RequestOptions): One<'connections', 'checkConnection'>;
  retrieveSettings(options?: RequestOptions): One<'connections', 'getConnectionSettings'>;
  updateSettings(
    body: Body<'connections', 'updateConnectionSettings'>,
    options?: RequestOptions,
  ): One<'connections', 'updateConnectionSettings'>;
}

/** createAndWait's options: the wait's (waitForAgentRequest), and the create call's Idempotency-Key. */
export interface CreateAndWaitOptions extends WaitForAgentRequestOptions {
  /**
   * The create call's Idempotency-Key (default: a random one, reused by its retries). Pass your own to make the whole
   * createAndWait safe to repeat: a second call with the same key and body waits on the same request.
   */
  idempotencyKey?: string;
}

export interface AgentRequestsResource {
  /** Accepts an agent request (202, PENDING) and queues it (POST /api/agent-requests). */
  create(body: Body<'agentRequests', 'createAgentRequest'>, options?: RequestOptions): One<'agentRequests', 'createAgentRequest'>;
  list(query?: Query<'agentRequests', 'listAgentRequests'>, options?: RequestOptions): List<'agentRequests', 'listAgentRequests'>;
  /** Reads a request; with waitMs (at most 30 000), the server holds the answer until it ends or needs its user. */
  retrieve(
    requestId: string,
    query?: Query<'agentRequests', 'getAgentRequest'>,
    options?: RequestOptions,
  ): One<'agentRequests', 'getAgentRequest'>;
  cancel(requestId: string, options?: RequestOptions): One<'agentRequests', 'cancelAgentRequest'>;
  /** Sends the write a NEEDS_USER request holds for approval, once (POST …/user-action, decision approve). */
  /** `writeId` (userAction.write.id, recommended): decide that write only; another held since is a 409 USER_ACTION_OVER. */
  approve(requestId: string, options?: DecisionOptions): One<'agentRequests', 'decideAgentRequestUserAction'>;
  /** Refuses the held write: it is never sent, and the request ends DENIED_BY_USER (decision deny). */
  deny(requestId: string, options?: DecisionOptions): One<'agentRequests', 'decideAgentRequestUserAction'>;
  /**
   * Creates the request, then waits for it as long as it takes (or `timeoutMs`), reading it again past the server's
   * 30 s cap on each read: resolves at a final status, or at NEEDS_USER unless `until: 'final'` (waitForAgentRequest).
   */
  createAndWait(body: Body<'agentRequests', 'createAgentRequest'>, options?: CreateAndWaitOptions): Promise<AgentRequest>;
}

export interface SandboxResource {
  /** A public token for a sandbox test user, without the widget (POST /api/sandbox/public_token/create). */
  createPublicToken(
    body: Body<'sandbox', 'createSandboxPublicToken'>,
    options?: RequestOptions,
  ): One<'sandbox', 'createSandboxPublicToken'>;
  reset(options?: RequestOptions): One<'sandbox', 'resetSandbox'>;
}

export interface WebhooksResource {
  create(body: Body<'webhooks', 'createWebhookEndpoint'>, options?: RequestOptions): One<'webhooks', 'createWebhookEndpoint'>;
  list(options?: RequestOptions): One<'webhooks', 'listWebhookEndpoints'>;
  retrieve(webhookId: string, options?: RequestOptions): One<'webhooks', 'getWebhookEndpoint'>;
  update(
    webhookId: string,
    body: Body<'webhooks', 'updateWebhookEndpoint'>,
    options?: RequestOptions,
  ): One<'webhooks', 'updateWebhookEndpoint'>;
  del(webhookId: string, options?: RequestOptions): One<'webhooks', 'deleteWebhookEndpoint'>;
  rotateSecret(webhookId: string, options?: RequestOptions): One<'webhooks', 'rotateWebhookSecret'>;
  listDeliveries(
    webhookId: string,
    query?: Query<'webhooks', 'listWebhookDeliveries'>,
    options?: RequestOptions,
  ): List<'webhooks', 'listWebhookDeliveries'>;
}

export interface WebhookDeliveriesResource {
  resend(deliveryId: string, options?: RequestOptions): One<'webhooks', 'resendWebhookDelivery'>;
}

/** Options of a decision on a held write: the request options, and the id of the write the user decided on. */
export type DecisionOptions = RequestOptions & { writeId?: string };

export interface Resources {
  providers: ProvidersResource;
  linkTokens: LinkTokensResource;
  redirectUris: RedirectUrisResource;
  connections: ConnectionsResource;
  agentRequests: AgentRequestsResource;
  sandbox: SandboxResource;
  webhooks: WebhooksResource;
  webhookDeliveries: WebhookDeliveriesResource;
}

/** Builds the resources over the contract's operation methods. */
export function buildResources(ops: LegacyClient): Resources {
  const decide = (requestId: string, decision: 'approve' | 'deny', options: DecisionOptions = {}) => {
    const { writeId, ...request } = options;
    return ops.agentRequests.decideAgentRequestUserAction(
      { params: { requestId }, body: { decision, ...(writeId ? { writeId } : {}) } },
      request,
    );
  };
  const agentRequests: AgentRequestsResource = {
    create: (body, options) => ops.agentRequests.createAgentRequest({ body }, options),
    list: (query, options) => ops.agentRequests.listAgentRequests({ ...(query ? { query } : {}) }, options),
    retrieve: (requestId, query, options) =>
      ops.agentRequests.getAgentRequest({ params: { requestId }, ...(query ? { query } : {}) }, options),
    cancel: (requestId, options) => ops.agentRequests.cancelAgentRequest({ params: { requestId } }, options),
    approve: (requestId, options) => decide(requestId, 'approve', options),
    deny: (requestId, options) => decide(requestId, 'deny', options),
    async createAndWait(body, options = {}) {
      const { idempotencyKey, ...wait } = options;
      const { requestId } = await ops.agentRequests.createAgentRequest(
        { body },
        { ...wait.requestOptions, ...(idempotencyKey ? { idempotencyKey } : {}), ...(wait.signal ? { signal: wait.signal } : {}) },
      );
      return waitForAgentRequest(ops, requestId, wait);
    },
  };
  return {
    providers: {
      list: (options) => ops.providers.listProviders({}, options),
      create: (body, options) => ops.providers.createProvider({ body }, options),
      retrieve: (providerId, options) => ops.providers.getProvider({ params: { providerId } }, options),
      update: (providerId, body, options) => ops.providers.updateProvider({ params: { providerId }, body }, options),
      del: (providerId, options) => ops.providers.deleteProvider({ params: { providerId } }, options),
      listActions: (providerId, options) => ops.providers.listProviderActions({ params: { providerId } }, options),
    },
    linkTokens: { create: (body, options) => ops.link.createLinkToken({ body }, options) },
    redirectUris: {
      list: (options) => ops.redirectUris.listRedirectUris({}, options),
      create: (body, options) => ops.redirectUris.createRedirectUri({ body }, options),
      del: (redirectUriId, options) => ops.redirectUris.deleteRedirectUri({ params: { redirectUriId } }, options),
    },
    connections: {
      // The contract's method took { body }; a body never has a `body` field (it is { publicToken }), so both forms are told apart.
      exchangePublicToken: (
        args: Body<'connections', 'exchangePublicToken'> | { body: Body<'connections', 'exchangePublicToken'> },
        options?: RequestOptions,
      ) => ops.connections.exchangePublicToken('body' in args ? args : { body: args }, options),
      list: (query, options) => ops.connections.listConnections({ ...(query ? { query } : {}) }, options),
      retrieve: (connectionId, options) => ops.connections.getConnection({ params: { connectionId } }, options),
      update: (connectionId, body, options) => ops.connections.updateConnection({ params: { connectionId }, body }, options),
      revoke: (connectionId, options) => ops.connections.revokeConnection({ params: { connectionId } }, options),
      check: (connectionId, options) => ops.connections.checkConnection({ params: { connectionId } }, options),
      retrieveSettings: (options) => ops.connections.getConnectionSettings({}, options),
      updateSettings: (body, options) => ops.connections.updateConnectionSettings({ body }, options),
    } as ConnectionsResource,
    agentRequests,
    sandbox: {
      createPublicToken: (body, options) => ops.sandbox.createSandboxPublicToken({ body }, options),
      reset: (options) => ops.sandbox.resetSandbox({}, options),
    },
    webhooks: {
      create: (body, options) => ops.webhooks.createWebhookEndpoint({ body }, options),
      list: (options) => ops.webhooks.listWebhookEndpoints({}, options),
      retrieve: (webhookId, options) => ops.webhooks.getWebhookEndpoint({ params: { webhookId } }, options),
      update: (webhookId, body, options) => ops.webhooks.updateWebhookEndpoint({ params: { webhookId }, body }, options),
      del: (webhookId, options) => ops.webhooks.deleteWebhookEndpoint({ params: { webhookId } }, options),
      rotateSecret: (webhookId, options) => ops.webhooks.rotateWebhookSecret({ params: { webhookId } }, options),
      listDeliveries: (webhookId, query, options) =>
        ops.webhooks.listWebhookDeliveries({ params: { webhookId }, ...(query ? { query } : {}) }, options),
    },
    webhookDeliveries: { resend: (deliveryId, options) => ops.webhooks.resendWebhookDelivery({ params: { deliveryId } }, options) },
  };
}
