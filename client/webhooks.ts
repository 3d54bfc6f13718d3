import { createHmac, timingSafeEqual } from 'node:crypto';

import { WEBHOOK_SIGNATURE_TOLERANCE_SECONDS, type WebhookEvent } from '../contract/webhook-schemas';

/**
 * Verifies a webhook delivery in the caller's backend (Node.js). Pass the raw request body exactly as received
 * (not re-serialized JSON), the AgentLink-Signature header and the endpoint's signing secret:
 *
 *   app.post('/agentlink/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *     const event = verifyWebhook({ payload: req.body, header: req.get('AgentLink-Signature'), secret });
 *     res.sendStatus(200);           // answer 2xx quickly; anything else is retried
 *   });
 *
 * The header is `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`; it may hold several v1 values
 * (any match is accepted). A timestamp further than `toleranceSeconds` (default 300) from now is refused, which
 * bounds replays. Delivery is at least once: deduplicate on event.eventId.
 */
export type WebhookVerificationErrorCode =
  'MISSING_SIGNATURE' | 'MALFORMED_SIGNATURE' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'SIGNATURE_MISMATCH' | 'INVALID_PAYLOAD';

export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** The raw body as received. */
  payload: string | Buffer | Uint8Array;
  /** The AgentLink-Signature header. */
  header: string | string[] | null | undefined;
  /** The endpoint's signing secret (whsec_…). */
  secret: string;
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** The receiver's clock (default now). */
  now?: Date | number;
}

export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent {
  const header = Array.isArray(options.header) ? options.header.join(',') : options.header;
  if (!header) throw new WebhookVerificationError('MISSING_SIGNATURE', 'The AgentLink-Signature header is missing.');
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === null || signatures.length === 0) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', 'The AgentLink-Signature header is not t=<seconds>,v1=<hex>.');
  }
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const tolerance = options.toleranceSeconds ?? WEBHOOK_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_TOLERANCE', `The signature timestamp is more than ${tolerance} s from now.`);
  }
  const raw = typeof options.payload === 'string' ? Buffer.from(options.payload, 'utf8') : Buffer.from(options.payload);
  const expected = createHmac('sha256', options.secret).update(`${timestamp}.`, 'utf8').update(raw).digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'No signature matches the payload and the secret.');
  try {
    return JSON.parse(raw.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The payload is not JSON.');
  }
}
