import type { Environment } from '../config';

/** The webhooks' stored rows (server/webhooks): plain shapes, as in records.ts. */

/** A webhook endpoint of one organization and environment; the signing secret is sealed with the vault (we must sign with it). */
export interface WebhookEndpointRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  url: string;
  description: string | null;
  /** The event types it receives (WEBHOOK_EVENT_TYPES). */
  events: string[];
  enabled: boolean;
  sealedSecret: string;
  createdAt: Date;
  updatedAt: Date;
}

/** One event that happened, with the exact JSON body every delivery of it sends. */
export interface WebhookEventRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  type: string;
  /** The serialized event (the raw body that is signed and POSTed). */
  payload: string;
  createdAt: Date;
}

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERING' | 'SUCCEEDED' | 'FAILED';

export interface WebhookDeliveryAttemptRecord {
  attempt: number;
  at: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * One event to one endpoint: persisted before any attempt, claimed by a dispatcher with a lease
 * (DELIVERING until `leaseExpiresAt`), retried on the schedule until SUCCEEDED or FAILED.
 */
export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  organizationId: string;
  environment: Environment;
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  attemptLog: WebhookDeliveryAttemptRecord[];
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}
