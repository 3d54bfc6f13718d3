import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { AgentRequestSchema, ConnectionSchema, EnvironmentSchema, ProviderIdSchema } from './schemas';

/**
 * Webhooks: endpoints an organization registers per environment, the events they receive, and the
 * delivery log. The signature scheme and the retry schedule are documented here once and in the README.
 */

export const WEBHOOK_EVENT_TYPES = [
  'AGENT_REQUEST.COMPLETED',
  'AGENT_REQUEST.FAILED',
  'AGENT_REQUEST.NEEDS_USER',
  'CONNECTION.CREATED',
  'CONNECTION.LOGIN_REQUIRED',
  'CONNECTION.REVOKED',
  'CONNECTION.SESSION_RENEWED',
  'CONNECTION.RECOVERED',
  'LINK.SESSION_FINISHED',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

/**
 * Delay before each retry after a failed attempt, in seconds (plus up to 10% jitter). The first attempt is
 * immediate; after the last retry fails the delivery is FAILED (about 1.9 days after the event).
 */
export const WEBHOOK_RETRY_SCHEDULE_SECONDS = [10, 30, 90, 300, 900, 2700, 7200, 21_600, 43_200, 86_400] as const;
/** A receiver should refuse a signature whose timestamp is further than this from its own clock. */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;
/** Headers of every delivery (HTTP header names are case-insensitive). */
export const WEBHOOK_HEADERS = {
  signature: 'AgentLink-Signature',
  eventId: 'AgentLink-Event-Id',
  eventType: 'AgentLink-Event-Type',
} as const;
/**
 * The same delivery signed as the Standard Webhooks specification says (standardwebhooks.com), so receivers can use
 * its off-the-shelf verifiers: `webhook-signature: v1,<base64 HMAC-SHA256>` keyed with the base64-decoded part of the
 * secret after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<raw body>`. webhook-id is the eventId (the same on
 * every retry, so receivers deduplicate on it).
 */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;
export const WEBHOOK_LIMITS = {
  endpointsMax: 20,
  urlMax: 2048,
  descriptionMax: 500,
  deliveryPageDefault: 20,
  deliveryPageMax: 100,
} as const;

const isoDate = (description: string) => extendApi(z.string(), { format: 'date-time', description });

const WebhookUrlSchema = extendApi(z.string().min(1).max(WEBHOOK_LIMITS.urlMax), {
  description:
    'Where deliveries are POSTed. https only; http is accepted only for loopback hosts (localhost, 127.0.0.1, ::1) when ' +
    'AgentLink does not run with NODE_ENV=production. Production-environment endpoints never point at loopback or private networks.',
  example: 'https://example.com/agentlink/webhooks',
});

const WebhookEventListSchema = extendApi(
  z
    .array(WebhookEventTypeSchema)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((a) => new Set(a).size === a.length, { message: 'events must not repeat a type' }),
  { description: 'The event types this endpoint receives.' },
);

export const CreateWebhookEndpointBodySchema = extendApi(
  z
    .object({
      url: WebhookUrlSchema,
      events: WebhookEventListSchema,
      description: z.string().max(WEBHOOK_LIMITS.descriptionMax).optional(),
    })
    .strict(),
  {
    title: 'CreateWebhookEndpointRequest',
    example: { url: 'https://example.com/agentlink/webhooks', events: ['AGENT_REQUEST.COMPLETED', 'AGENT_REQUEST.FAILED'] },
  },
);

export const UpdateWebhookEndpointBodySchema = extendApi(
  z
    .object({
      url: WebhookUrlSchema.optional(),
      events: WebhookEventListSchema.optional(),
      description: z.string().max(WEBHOOK_LIMITS.descriptionMax).nullable().optional(),
      enabled: extendApi(z.boolean().optional(), {
        description: 'A disabled endpoint receives nothing; its pending deliveries end FAILED.',
      }),
    })
    .strict()
    .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of url, events, description, enabled' }),
  { title: 'UpdateWebhookEndpointRequest' },
);

export const WebhookEndpointSchema = extendApi(
  z.object({
    webhookId: z.string(),
    url: z.string(),
    events: z.array(WebhookEventTypeSchema),
    description: z.string().nullable(),
    enabled: z.boolean(),
    environment: EnvironmentSchema,
    createdAt: isoDate('Creation time.'),
    updatedAt: isoDate('Last change of the endpoint.'),
  }),
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = extendApi(
  WebhookEndpointSchema.extend({
    secret: extendApi(z.string(), {
      description:
        'The signing secret: whsec_ and 32 random bytes in base64. Shown only in this answer; verify deliveries with it ' +
        '(verifyWebhook in @agentlink/client/webhooks, or any Standard Webhooks library).',
    }),
  }),
  { title: 'WebhookEndpointWithSecret' },
);

export const WebhookEndpointListSchema = z.object({ data: z.array(WebhookEndpointSchema) });

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'DELIVERING', 'SUCCEEDED', 'FAILED'] as const;
export const WebhookDeliveryStatusSchema = z.enum(WEBHOOK_DELIVERY_STATUSES);

export const WebhookDeliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  at: isoDate('When the attempt started.'),
  responseStatus: extendApi(z.number().int().nullable(), {
    description: 'HTTP status the receiver answered; null when there was no answer.',
  }),
  error: extendApi(z.string().nullable(), { description: 'Why the attempt failed (connection refused, timeout, non-2xx …).' }),
  durationMs: z.number().int(),
});

export const WebhookDeliverySchema = extendApi(
  z.object({
    deliveryId: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: WebhookEventTypeSchema,
    status: WebhookDeliveryStatusSchema,
    attempts: z.number().int(),
    nextAttemptAt: isoDate('When the next attempt is due (PENDING only).').nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: isoDate('When the delivery was queued.'),
    completedAt: isoDate('When it SUCCEEDED or FAILED for good.').nullable(),
    attemptLog: z.array(WebhookDeliveryAttemptSchema),
  }),
  { title: 'WebhookDelivery' },
);
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export const ListWebhookDeliveriesQuerySchema = z
  .object({
    limit: extendApi(z.coerce.number().int().min(1).max(WEBHOOK_LIMITS.deliveryPageMax).optional(), {
      description: `Page size (1-${WEBHOOK_LIMITS.deliveryPageMax}, default ${WEBHOOK_LIMITS.deliveryPageDefault}).`,
    }),
    cursor: extendApi(z.string().min(1).max(200).optional(), { description: 'nextCursor of the previous page.' }),
  })
  .strict();

export const WebhookDeliveryListSchema = z.object({
  data: z.array(WebhookDeliverySchema),
  nextCursor: extendApi(z.string().nullable(), { description: 'Pass as cursor for the next page; null on the last page.' }),
});

/** The body of every delivery: the event, with the object as GET /api/connections/{id} or GET /api/agent-requests/{id} returns it. */
export const AgentRequestEventSchema = extendApi(
  z.object({
    eventId: z.string(),
    type: z.enum(['AGENT_REQUEST.COMPLETED', 'AGENT_REQUEST.FAILED', 'AGENT_REQUEST.NEEDS_USER']),
    createdAt: isoDate('When the event happened.'),
    environment: EnvironmentSchema,
    object: AgentRequestSchema,
  }),
  {
    title: 'AgentRequestEvent',
    description:
      'An agent request reached a final status, or paused NEEDS_USER (object.userAction says why, until when, and how the end user ' +
      'joins: linkToken for the widget, url for a hosted page); object is the request as GET /api/agent-requests/{requestId} returns it.',
  },
);

export const ConnectionEventSchema = extendApi(
  z.object({
    eventId: z.string(),
    type: z.enum([
      'CONNECTION.CREATED',
      'CONNECTION.LOGIN_REQUIRED',
      'CONNECTION.REVOKED',
      'CONNECTION.SESSION_RENEWED',
      'CONNECTION.RECOVERED',
    ]),
    createdAt: isoDate('When the event happened.'),
    environment: EnvironmentSchema,
    object: ConnectionSchema,
  }),
  {
    title: 'ConnectionEvent',
    description:
      'A connection was created, had its session renewed silently, needs its user to sign in again, recovered (ACTIVE again), ' +
      'or was revoked; object is the connection as GET /api/connections/{connectionId} returns it (status, lastCheckedAt, lastCheckOutcome).',
  },
);

/** How a link session ended, as LINK.SESSION_FINISHED reports it (Plaid's SESSION_FINISHED: SUCCESS or EXITED). */
export const LINK_SESSION_OUTCOMES = ['SUCCESS', 'EXITED'] as const;

export const LinkSessionFinishedSchema = extendApi(
  z.object({
    linkSessionId: extendApi(z.string(), { description: 'The link session (one opening of the widget); link_session_id of the redirect.' }),
    status: extendApi(z.enum(LINK_SESSION_OUTCOMES), {
      description: 'SUCCESS: an account was connected (or re-authenticated); EXITED: the person left, or the flow could not go on (error).',
    }),
    publicToken: extendApi(z.string().nullable(), {
      description:
        'SUCCESS only: the public token, the same the widget handed over (single use, exchangeable for 30 minutes with ' +
        'POST /api/connections/public_token/exchange). null otherwise.',
    }),
    clientUserId: z.string(),
    providerId: extendApi(ProviderIdSchema.nullable(), {
      description: 'The provider chosen or fixed by the link token; null if none was.',
    }),
    connectionId: extendApi(z.string().nullable(), {
      description: 'The connection created or re-authenticated; in update mode the connection the link token was for. null otherwise.',
    }),
    mode: extendApi(z.enum(['create', 'update', 'user_action']), {
      description:
        'update: the link token re-authenticated an existing connection. user_action: the link token brought the user into a ' +
        'paused agent request (userAction.linkToken); SUCCESS means they finished the step, and there is no public token.',
    }),
    error: extendApi(z.object({ code: z.string(), message: z.string() }).nullable(), {
      description:
        'EXITED: why. code is USER_CLOSED when the person left without an error, otherwise the last error of the flow ' +
        '(INVALID_CREDENTIALS, ACCOUNT_LOCKED, MFA_FAILED, LINK_TOKEN_EXPIRED, LINK_TOKEN_ALREADY_USED, TOO_MANY_LOGIN_ATTEMPTS, …); ' +
        'error_code of the redirect. null on SUCCESS.',
    }),
    createdAt: isoDate('When the link session opened.'),
    finishedAt: isoDate('When it ended.'),
  }),
  { title: 'LinkSessionFinished' },
);
export type LinkSessionFinished = z.infer<typeof LinkSessionFinishedSchema>;

export const LinkSessionEventSchema = extendApi(
  z.object({
    eventId: z.string(),
    type: z.literal('LINK.SESSION_FINISHED'),
    createdAt: isoDate('When the event happened.'),
    environment: EnvironmentSchema,
    object: LinkSessionFinishedSchema,
  }),
  {
    title: 'LinkSessionEvent',
    description: 'A link session ended, however the widget was opened (SDK popup or iframe, webview, plain link): once per link session.',
  },
);

export const WebhookEventSchema = extendApi(
  z.discriminatedUnion('type', [AgentRequestEventSchema, ConnectionEventSchema, LinkSessionEventSchema]),
  {
    title: 'WebhookEvent',
  },
);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;
