import { generateSchema } from '@anatine/zod-openapi';

import {
  AgentRequestEventSchema,
  ConnectionEventSchema,
  LinkSessionEventSchema,
  LinkSessionFinishedSchema,
  STANDARD_WEBHOOK_HEADERS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WEBHOOK_RETRY_SCHEDULE_SECONDS,
  WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
  type WebhookEventType,
} from '../contract/webhook-schemas';

/**
 * The deliveries AgentLink POSTs to a registered endpoint, as OpenAPI 3.1 `webhooks`: one operation per event type,
 * with the body schema and the signature headers, so receivers can generate handlers and check payloads.
 */
const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'AGENT_REQUEST.COMPLETED': 'An agent request finished with status COMPLETED; object.result holds the answer.',
  'AGENT_REQUEST.FAILED': 'An agent request ended FAILED, TIMED_OUT or CANCELED; object.error says why.',
  'AGENT_REQUEST.NEEDS_USER':
    'An agent request paused: only its end user can go on (a code, a captcha, a device approval, a write to approve). ' +
    'object.userAction says why and until when; send the user to userAction.url, or open the widget with userAction.linkToken. ' +
    'The run resumes by itself once the user is done.',
  'CONNECTION.CREATED': 'The connect widget created a connection (before your backend exchanged its public token).',
  'CONNECTION.LOGIN_REQUIRED': 'The provider session of a connection ended and could not be renewed: send the user through update mode.',
  'CONNECTION.REVOKED': 'A connection was revoked; its access tokens no longer work.',
  'CONNECTION.SESSION_RENEWED':
    'The provider session of a connection had ended and was renewed by a silent re-login with the stored credentials (during a ' +
    'health check or an agent run); nothing for the user to do.',
  'CONNECTION.RECOVERED':
    'A LOGIN_REQUIRED connection is ACTIVE again: the user signed in again through update mode, or a check found its session ' +
    'signed in or renewed it. Agent requests on it are accepted again.',
  'LINK.SESSION_FINISHED':
    'A link session ended (SUCCESS or EXITED), however the widget was opened: SDK popup or iframe, mobile webview, or a plain ' +
    'link. On SUCCESS object.publicToken is the public token to exchange; this is how a hosted link (completionRedirectUri) ' +
    'hands it to your backend without a page of yours in between. Emitted once per link session.',
};

const operationId = (type: WebhookEventType) =>
  'on' + type.toLowerCase().replace(/(^|[._])([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

/** Replaces every nested schema whose title names a component by a $ref to it. */
function refComponents(schema: unknown, components: Record<string, unknown>, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((s) => refComponents(s, components, false));
  if (typeof schema !== 'object' || schema === null) return schema;
  const title = (schema as { title?: unknown }).title;
  if (!root && typeof title === 'string' && title in components) return { $ref: `#/components/schemas/${title}` };
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, refComponents(v, components, false)]));
}

/** Adds AgentRequestEvent, ConnectionEvent, LinkSessionFinished and LinkSessionEvent to the components (3.0 schemas; upgraded with the rest). */
export function addWebhookEventSchemas(components: Record<string, unknown>): void {
  components.AgentRequestEvent = refComponents(generateSchema(AgentRequestEventSchema), components);
  components.ConnectionEvent = refComponents(generateSchema(ConnectionEventSchema), components);
  // The object of LINK.SESSION_FINISHED is no API response, so it is added here to be a named type of its own.
  components.LinkSessionFinished = generateSchema(LinkSessionFinishedSchema);
  components.LinkSessionEvent = refComponents(generateSchema(LinkSessionEventSchema), components);
}

/** The component of each event type's body. */
const eventVariant = (type: WebhookEventType) =>
  type.startsWith('AGENT_REQUEST.') ? 'AgentRequestEvent' : type.startsWith('LINK.') ? 'LinkSessionEvent' : 'ConnectionEvent';

const header = (name: string, description: string, schema: Record<string, unknown>) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

const DELIVERY_HEADERS = [
  header(STANDARD_WEBHOOK_HEADERS.id, 'Standard Webhooks: the eventId, the same on every retry; deduplicate on it.', {
    type: 'string',
    examples: ['evt_5f2c0f3a9d0e4b7c1a2b3c4d'],
  }),
  header(
    STANDARD_WEBHOOK_HEADERS.timestamp,
    `Standard Webhooks: when this attempt was signed, in Unix seconds; refuse it further than ${WEBHOOK_SIGNATURE_TOLERANCE_SECONDS} s from your clock.`,
    { type: 'string', pattern: '^[0-9]+$', examples: ['1767225600'] },
  ),
  header(
    STANDARD_WEBHOOK_HEADERS.signature,
    'Standard Webhooks: `v1,<base64 HMAC-SHA256>` keyed with the base64-decoded secret after whsec_, over ' +
      '`<webhook-id>.<webhook-timestamp>.<raw body>`. Verify it with any Standard Webhooks library or verifyWebhook of @agentlink/client/webhooks.',
    { type: 'string', examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='] },
  ),
  header(
    WEBHOOK_HEADERS.signature,
    'The AgentLink scheme (kept for compatibility): `t=<unix seconds>,v1=<hex HMAC-SHA256>` keyed with the whole secret string, ' +
      'over `<t>.<raw body>`.',
    { type: 'string', examples: ['t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'] },
  ),
  header(WEBHOOK_HEADERS.eventId, 'The eventId (as webhook-id).', { type: 'string', examples: ['evt_5f2c0f3a9d0e4b7c1a2b3c4d'] }),
  header(WEBHOOK_HEADERS.eventType, 'The event type.', { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }),
];

const retries = WEBHOOK_RETRY_SCHEDULE_SECONDS.map((s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`)).join(', ');

export function webhookOperations(tag: string): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const variant = eventVariant(type);
      return [
        type,
        {
          post: {
            operationId: operationId(type),
            summary: type,
            description: `${EVENT_DESCRIPTIONS[type]} Delivered at least once, to every enabled endpoint subscribed to ${type}.`,
            tags: [tag],
            security: [],
            parameters: DELIVERY_HEADERS,
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    allOf: [{ $ref: `#/components/schemas/${variant}` }, { type: 'object', properties: { type: { const: type } } }],
                  },
                },
              },
            },
            responses: {
              '2XX': { description: 'Received. Answer quickly (within 10 s) and process the event afterwards.' },
              '4XX': { description: `Refused: the delivery is retried after ${retries} (plus up to 10% jitter), then FAILED.` },
              '5XX': { description: 'Failed: retried on the same schedule as 4XX.' },
            },
          },
        },
      ];
    }),
  );
}
