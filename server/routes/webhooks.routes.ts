import { initServer } from '@ts-rest/express';

import { contract } from '../../contract';
import { presentWebhookDelivery, presentWebhookEndpoint } from '../domain/presenters';
import { errorEnvelope } from '../http/api-error';
import { callerOf } from '../http/auth';
import type { Services } from '../services';

/** The webhooks group of the contract: endpoints, their secrets (shown once) and the delivery log. */
export function webhookHandlers(services: Services) {
  const s = initServer();
  const endpoints = services.webhookEndpoints;
  return s.router(contract.webhooks, {
    createWebhookEndpoint: async ({ body, res }) => {
      const result = await endpoints.create(callerOf(res), body);
      if (!result.ok) return errorEnvelope(res, result.error);
      return { status: 201, body: { ...presentWebhookEndpoint(result.value.endpoint), secret: result.value.secret } };
    },
    listWebhookEndpoints: async ({ res }) => ({
      status: 200,
      body: { data: (await endpoints.list(callerOf(res))).map(presentWebhookEndpoint) },
    }),
    getWebhookEndpoint: async ({ params, res }) => {
      const result = await endpoints.get(callerOf(res), params.webhookId);
      return result.ok ? { status: 200, body: presentWebhookEndpoint(result.value) } : errorEnvelope(res, result.error);
    },
    updateWebhookEndpoint: async ({ params, body, res }) => {
      const result = await endpoints.update(callerOf(res), params.webhookId, body);
      return result.ok ? { status: 200, body: presentWebhookEndpoint(result.value) } : errorEnvelope(res, result.error);
    },
    deleteWebhookEndpoint: async ({ params, res }) => {
      const result = await endpoints.delete(callerOf(res), params.webhookId);
      return result.ok ? { status: 200, body: presentWebhookEndpoint(result.value) } : errorEnvelope(res, result.error);
    },
    rotateWebhookSecret: async ({ params, res }) => {
      const result = await endpoints.rotateSecret(callerOf(res), params.webhookId);
      if (!result.ok) return errorEnvelope(res, result.error);
      return { status: 200, body: { ...presentWebhookEndpoint(result.value.endpoint), secret: result.value.secret } };
    },
    listWebhookDeliveries: async ({ params, query, res }) => {
      const result = await endpoints.listDeliveries(callerOf(res), params.webhookId, query);
      if (!result.ok) return errorEnvelope(res, result.error);
      return { status: 200, body: { data: result.value.records.map(presentWebhookDelivery), nextCursor: result.value.nextCursor } };
    },
    resendWebhookDelivery: async ({ params, res }) => {
      const result = await endpoints.resend(callerOf(res), params.deliveryId);
      return result.ok ? { status: 202, body: presentWebhookDelivery(result.value) } : errorEnvelope(res, result.error);
    },
  });
}
