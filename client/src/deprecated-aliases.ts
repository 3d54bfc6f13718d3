import type { LegacyClient } from './operations';

/**
 * The method names of earlier versions (the contract's operation ids, with `{ params, query, body }`), kept working
 * and marked deprecated so editors strike them through and point at the resource method that replaces each.
 * (connections.exchangePublicToken keeps its name: its `{ body }` form is a deprecated overload in resources.ts.)
 */
export interface DeprecatedAliases {
  providers: {
    /** @deprecated Use `providers.list()`. */
    listProviders: LegacyClient['providers']['listProviders'];
    /** @deprecated Use `providers.create(body)`. */
    createProvider: LegacyClient['providers']['createProvider'];
    /** @deprecated Use `providers.retrieve(providerId)`. */
    getProvider: LegacyClient['providers']['getProvider'];
    /** @deprecated Use `providers.update(providerId, body)`. */
    updateProvider: LegacyClient['providers']['updateProvider'];
    /** @deprecated Use `providers.del(providerId)`. */
    deleteProvider: LegacyClient['providers']['deleteProvider'];
    /** @deprecated Use `providers.listActions(providerId)`. */
    listProviderActions: LegacyClient['providers']['listProviderActions'];
  };
  /** @deprecated Use `linkTokens`. */
  link: {
    /** @deprecated Use `linkTokens.create(body)`. */
    createLinkToken: LegacyClient['link']['createLinkToken'];
  };
  redirectUris: {
    /** @deprecated Use `redirectUris.list()`. */
    listRedirectUris: LegacyClient['redirectUris']['listRedirectUris'];
    /** @deprecated Use `redirectUris.create(body)`. */
    createRedirectUri: LegacyClient['redirectUris']['createRedirectUri'];
    /** @deprecated Use `redirectUris.del(redirectUriId)`. */
    deleteRedirectUri: LegacyClient['redirectUris']['deleteRedirectUri'];
  };
  connections: {
    /** @deprecated Use `connections.retrieveSettings()`. */
    getConnectionSettings: LegacyClient['connections']['getConnectionSettings'];
    /** @deprecated Use `connections.updateSettings(body)`. */
    updateConnectionSettings: LegacyClient['connections']['updateConnectionSettings'];
    /** @deprecated Use `connections.list(query)`. */
    listConnections: LegacyClient['connections']['listConnections'];
    /** @deprecated Use `connections.retrieve(connectionId)`. */
    getConnection: LegacyClient['connections']['getConnection'];
    /** @deprecated Use `connections.update(connectionId, body)`. */
    updateConnection: LegacyClient['connections']['updateConnection'];
    /** @deprecated Use `connections.revoke(connectionId)`. */
    revokeConnection: LegacyClient['connections']['revokeConnection'];
    /** @deprecated Use `connections.check(connectionId)`. */
    checkConnection: LegacyClient['connections']['checkConnection'];
  };
  agentRequests: {
    /** @deprecated Use `agentRequests.create(body)`. */
    createAgentRequest: LegacyClient['agentRequests']['createAgentRequest'];
    /** @deprecated Use `agentRequests.list(query)`. */
    listAgentRequests: LegacyClient['agentRequests']['listAgentRequests'];
    /** @deprecated Use `agentRequests.retrieve(requestId, { waitMs })`. */
    getAgentRequest: LegacyClient['agentRequests']['getAgentRequest'];
    /** @deprecated Use `agentRequests.cancel(requestId)`. */
    cancelAgentRequest: LegacyClient['agentRequests']['cancelAgentRequest'];
  };
  sandbox: {
    /** @deprecated Use `sandbox.createPublicToken(body)`. */
    createSandboxPublicToken: LegacyClient['sandbox']['createSandboxPublicToken'];
    /** @deprecated Use `sandbox.reset()`. */
    resetSandbox: LegacyClient['sandbox']['resetSandbox'];
  };
  webhooks: {
    /** @deprecated Use `webhooks.create(body)`. */
    createWebhookEndpoint: LegacyClient['webhooks']['createWebhookEndpoint'];
    /** @deprecated Use `webhooks.list()`. */
    listWebhookEndpoints: LegacyClient['webhooks']['listWebhookEndpoints'];
    /** @deprecated Use `webhooks.retrieve(webhookId)`. */
    getWebhookEndpoint: LegacyClient['webhooks']['getWebhookEndpoint'];
    /** @deprecated Use `webhooks.update(webhookId, body)`. */
    updateWebhookEndpoint: LegacyClient['webhooks']['updateWebhookEndpoint'];
    /** @deprecated Use `webhooks.del(webhookId)`. */
    deleteWebhookEndpoint: LegacyClient['webhooks']['deleteWebhookEndpoint'];
    /** @deprecated Use `webhooks.rotateSecret(webhookId)`. */
    rotateWebhookSecret: LegacyClient['webhooks']['rotateWebhookSecret'];
    /** @deprecated Use `webhooks.listDeliveries(webhookId, query)`. */
    listWebhookDeliveries: LegacyClient['webhooks']['listWebhookDeliveries'];
    /** @deprecated Use `webhookDeliveries.resend(deliveryId)`. */
    resendWebhookDelivery: LegacyClient['webhooks']['resendWebhookDelivery'];
  };
}
