import { EntitySchema } from 'typeorm';

import type { Dialect } from './dialect';
import { entityColumns } from './entity-columns';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEventRecord } from './records';

/** The webhooks' tables: endpoints, the events that happened, and each delivery of an event to an endpoint. */
export function buildWebhookEntities(dialect: Dialect) {
  const { id, str, text, time, json, int } = entityColumns(dialect);

  const WebhookEndpoint = new EntitySchema<WebhookEndpointRecord>({
    name: 'WebhookEndpoint',
    tableName: 'webhook_endpoints',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      url: text('url'),
      description: text('description', true),
      events: json('events'),
      enabled: { name: 'enabled', type: 'boolean', default: true },
      sealedSecret: text('sealed_secret'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
    },
  });

  const WebhookEvent = new EntitySchema<WebhookEventRecord>({
    name: 'WebhookEvent',
    tableName: 'webhook_events',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      type: str('type', { length: 64 }),
      payload: text('payload'),
      createdAt: time('created_at'),
    },
  });

  const WebhookDelivery = new EntitySchema<WebhookDeliveryRecord>({
    name: 'WebhookDelivery',
    tableName: 'webhook_deliveries',
    columns: {
      id: id(),
      endpointId: str('endpoint_id', { length: 64 }),
      eventId: str('event_id', { length: 64 }),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      eventType: str('event_type', { length: 64 }),
      status: str('status', { length: 16 }),
      attempts: int('attempts'),
      nextAttemptAt: time('next_attempt_at', true),
      leaseOwner: str('lease_owner', { length: 128, nullable: true }),
      leaseExpiresAt: time('lease_expires_at', true),
      lastResponseStatus: int('last_response_status', true),
      lastError: text('last_error', true),
      attemptLog: json('attempt_log'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
      completedAt: time('completed_at', true),
    },
  });

  return { WebhookEndpoint, WebhookEvent, WebhookDelivery };
}
