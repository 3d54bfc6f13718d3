import { initClient } from '@ts-rest/core';

import { contract } from '../contract';

/**
 * The typed AgentLink API client for a caller's backend, built from the same ts-rest contract as the server:
 *
 *   const agentlink = createAgentLinkClient({ baseUrl, clientId, clientSecret });
 *   const res = await agentlink.link.createLinkToken({ body: { clientUserId: 'user-42' } });
 *   if (res.status === 200) res.body.linkToken;
 *
 * Every call answers `{ status, body, headers }`; errors come back as values (the error envelope with its
 * status), never as exceptions, except for network failures. Keep the client secret on the server.
 */
export interface AgentLinkClientOptions {
  /** Where AgentLink runs, e.g. http://localhost:4000 (no /api suffix). */
  baseUrl: string;
  clientId: string;
  /** The sandbox or the production secret; it decides the environment of every call. */
  clientSecret: string;
  /** Extra headers sent on every call. */
  headers?: Record<string, string>;
}

export function createAgentLinkClient(options: AgentLinkClientOptions) {
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {
      ...options.headers,
      'x-client-id': options.clientId,
      'x-client-secret': options.clientSecret,
    },
    throwOnUnknownStatus: true,
  });
}

export type AgentLinkClient = ReturnType<typeof createAgentLinkClient>;

export { contract };
export type { AgentLinkContract, RouteMetadata } from '../contract';
export * from '../contract/error-codes';
export * from '../contract/provider-declaration';
export * from '../contract/response-format';
export * from '../contract/schemas';
export * from '../contract/webhook-schemas';
export type { VerifyWebhookOptions, WebhookVerificationErrorCode } from './webhooks';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
