import { initServer } from '@ts-rest/express';

import { CONNECTION_LIST_LIMITS, contract } from '../../contract';
import { askKey } from '../agent/handoff/stored-decision';
import { presentAgentRequest, presentConnection, presentProvider, presentProviderDetail } from '../domain/presenters';
import { errorEnvelope } from '../http/api-error';
import { callerOf } from '../http/auth';
import type { Services } from '../services';
import type { AgentRequestRecord } from '../store';
import { connectionHealthHandlers } from './connection-health.routes';
import { redirectUriHandlers } from './redirect-uris.routes';
import { webhookHandlers } from './webhooks.routes';

/**
 * How long a decision's answer waits for the run to show it past the decided pause (an approved write resumes it in
 * milliseconds; a denied one ends it once its page has been answered): the decision is applied either way.
 */
const DECISION_ANSWER_WAIT_MS = 5_000;

/** Thin handlers: the caller from auth, the body from the contract, a service call, a presenter. */
export function apiRouter(services: Services) {
  const s = initServer();
  return s.router(contract, {
    providers: {
      listProviders: async ({ res }) => ({
        status: 200,
        body: { providers: (await services.catalogue.listFor(callerOf(res))).map(presentProvider) },
      }),
      createProvider: async ({ body, res }) => {
        const result = await services.organizationProviders.create(callerOf(res), body);
        return result.ok ? { status: 201, body: presentProviderDetail(result.value) } : errorEnvelope(res, result.error);
      },
      getProvider: async ({ params, res }) => {
        const result = await services.organizationProviders.view(callerOf(res), params.providerId);
        return result.ok ? { status: 200, body: presentProviderDetail(result.value) } : errorEnvelope(res, result.error);
      },
      updateProvider: async ({ params, body, res }) => {
        const result = await services.organizationProviders.update(callerOf(res), params.providerId, body);
        return result.ok ? { status: 200, body: presentProviderDetail(result.value) } : errorEnvelope(res, result.error);
      },
      deleteProvider: async ({ params, res }) => {
        const result = await services.organizationProviders.delete(callerOf(res), params.providerId);
        return result.ok ? { status: 200, body: presentProviderDetail(result.value) } : errorEnvelope(res, result.error);
      },
      listProviderActions: async ({ params, res }) => {
        const result = await services.providerActions.list(callerOf(res), params.providerId);
        return result.ok ? { status: 200, body: result.value } : errorEnvelope(res, result.error);
      },
    },
    link: {
      createLinkToken: async ({ body, res }) => {
        const result = await services.linkTokens.create(callerOf(res), body);
        if (!result.ok) return errorEnvelope(res, result.error);
        const { linkToken, record } = result.value;
        return { status: 200, body: { linkToken, expiration: record.expiresAt.toISOString(), environment: record.environment } };
      },
    },
    redirectUris: redirectUriHandlers(services),
    connections: {
      ...connectionHealthHandlers(services),
      exchangePublicToken: async ({ body, res }) => {
        const result = await services.connections.exchangePublicToken(callerOf(res), body.publicToken);
        if (!result.ok) return errorEnvelope(res, result.error);
        const { accessToken, connection } = result.value;
        return {
          status: 200,
          body: {
            access_token: accessToken,
            connectionId: connection.id,
            providerId: connection.providerId,
            clientUserId: connection.clientUserId,
            environment: connection.environment,
            status: connection.status,
          },
        };
      },
      listConnections: async ({ query, res }) => {
        const result = await services.connections.list(callerOf(res), {
          ...query,
          limit: query.limit ?? CONNECTION_LIST_LIMITS.default,
        });
        if (!result.ok) return errorEnvelope(res, result.error);
        return { status: 200, body: { data: result.value.records.map(presentConnection), nextCursor: result.value.nextCursor } };
      },
      getConnection: async ({ params, res }) => {
        const result = await services.connections.get(callerOf(res), params.connectionId);
        return result.ok ? { status: 200, body: presentConnection(result.value) } : errorEnvelope(res, result.error);
      },
      updateConnection: async ({ params, body, res }) => {
        const result = await services.connections.setExitProxy(callerOf(res), params.connectionId, body.upstreamProxy);
        return result.ok ? { status: 200, body: presentConnection(result.value) } : errorEnvelope(res, result.error);
      },
      revokeConnection: async ({ params, res }) => {
        const result = await services.connections.revoke(callerOf(res), params.connectionId);
        return result.ok ? { status: 200, body: presentConnection(result.value) } : errorEnvelope(res, result.error);
      },
    },
    agentRequests: {
      createAgentRequest: async ({ body, res }) => {
        const result = await services.agentRequests.create(callerOf(res), body);
        if (!result.ok) return errorEnvelope(res, result.error);
        const r = result.value;
        return {
          status: 202,
          body: {
            requestId: r.id,
            status: r.status,
            connectionId: r.connectionId,
            providerId: r.providerId,
            createdAt: r.createdAt.toISOString(),
          },
        };
      },
      listAgentRequests: async ({ query, res }) => {
        const result = await services.agentRequests.list(callerOf(res), query);
        if (!result.ok) return errorEnvelope(res, result.error);
        return {
          status: 200,
          body: {
            data: result.value.records.map((r) => presentAgentRequest(r, services.userActions.open(r))),
            nextCursor: result.value.nextCursor,
          },
        };
      },
      getAgentRequest: async ({ params, query, res }) => {
        const caller = callerOf(res);
        let result;
        if (query.waitMs) {
          // Stop holding the answer when the caller goes away.
          const gone = new AbortController();
          const onClose = () => gone.abort();
          res.on('close', onClose);
          try {
            result = await services.agentRequests.wait(caller, params.requestId, query.waitMs, gone.signal);
          } finally {
            res.off('close', onClose);
          }
        } else {
          result = await services.agentRequests.get(caller, params.requestId);
        }
        return result.ok
          ? { status: 200, body: presentAgentRequest(result.value, services.userActions.open(result.value)) }
          : errorEnvelope(res, result.error);
      },
      cancelAgentRequest: async ({ params, res }) => {
        const result = await services.agentRequests.cancel(callerOf(res), params.requestId);
        return result.ok
          ? { status: 200, body: presentAgentRequest(result.value, services.userActions.open(result.value)) }
          : errorEnvelope(res, result.error);
      },
      decideAgentRequestUserAction: async ({ params, body, res }) => {
        const caller = callerOf(res);
        const found = await services.agentRequests.get(caller, params.requestId);
        if (!found.ok) return errorEnvelope(res, found.error);
        // Decided where the run's page is (this process's hand-offs, or the holder's through the store); no held write: 409.
        const decided = await services.userActionLinks.decideHeldWrite(caller, found.value.id, body.decision, body.writeId);
        if (!decided) {
          return errorEnvelope(res, {
            code: 'USER_ACTION_OVER',
            message: `Agent request ${params.requestId} holds no write for a decision now (status ${found.value.status}).`,
          });
        }
        // Answered as the run is once past the decided pause (resumed, ended or paused again), not as it was before.
        const decidedAsk = askKey(decided);
        const stillPaused = (record: AgentRequestRecord) => {
          const open = services.userActions.open(record);
          return !!open && askKey(open) === decidedAsk;
        };
        const after = await services.agentRequests.pastPause(caller, params.requestId, stillPaused, DECISION_ANSWER_WAIT_MS);
        if (!after.ok) return errorEnvelope(res, after.error);
        return { status: 200, body: presentAgentRequest(after.value, services.userActions.open(after.value)) };
      },
    },
    sandbox: {
      createSandboxPublicToken: async ({ body, res }) => {
        const result = await services.sandbox.createPublicToken(callerOf(res), body);
        if (!result.ok) return errorEnvelope(res, result.error);
        return { status: 200, body: { publicToken: result.value.publicToken, expiration: result.value.expiresAt.toISOString() } };
      },
      resetSandbox: async ({ res }) => {
        const result = await services.sandbox.reset(callerOf(res));
        return result.ok
          ? { status: 200, body: { reset: true as const, providerIds: result.value.providerIds } }
          : errorEnvelope(res, result.error);
      },
    },
    webhooks: webhookHandlers(services),
  });
}
