import { z } from 'zod';

import { c, meta } from '../route-kit';
import {
  CreateWebhookEndpointBodySchema,
  ListWebhookDeliveriesQuerySchema,
  UpdateWebhookEndpointBodySchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from '../webhook-schemas';

// Webhook endpoints and their delivery log.

const WebhookIdParams = z.object({ webhookId: z.string().min(1).max(64) });
const DeliveryIdParams = z.object({ deliveryId: z.string().min(1).max(64) });

export const webhooksRoutes = c.router({
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
    description: 'Changes url, events, description or enabled. Errors: INVALID_FIELD, WEBHOOK_URL_NOT_ALLOWED, WEBHOOK_ENDPOINT_NOT_FOUND.',
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
});
