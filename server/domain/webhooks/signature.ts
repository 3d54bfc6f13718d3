import { createHmac, randomBytes } from 'node:crypto';

/**
 * Every delivery is signed twice with the endpoint's signing secret (`whsec_` and 32 random bytes in base64):
 *
 * - `AgentLink-Signature: t=<unix seconds>,v1=<hex>` (Stripe's scheme, kept for compatibility): HMAC-SHA256 keyed with
 *   the whole secret string, over `${t}.${rawBody}`. verifyWebhook of @agentlink/client/webhooks checks it.
 * - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>`,
 *   HMAC-SHA256 keyed with the base64-decoded part after `whsec_`, over `${id}.${timestamp}.${rawBody}`, so receivers
 *   can use the off-the-shelf verifiers of every language.
 *
 * Secrets issued before Standard Webhooks signing were base64url; Node's base64 decoder reads both alphabets, so they
 * sign the same key bytes (a receiver whose library only reads standard base64 rotates the secret once).
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function computeWebhookSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

export function webhookSignatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  return `t=${timestampSeconds},v1=${computeWebhookSignature(secret, timestampSeconds, rawBody)}`;
}

/** The `webhook-signature` value of the Standard Webhooks scheme: `v1,<base64 HMAC-SHA256>`. */
export function standardWebhookSignature(secret: string, messageId: string, timestampSeconds: number, rawBody: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${rawBody}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

/** The associated data that binds a sealed signing secret to its endpoint row. */
export const webhookSecretAad = (endpointId: string) => `webhook:${endpointId}:secret`;
