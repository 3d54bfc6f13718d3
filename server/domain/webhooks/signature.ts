import { createHmac, randomBytes } from 'node:crypto';

/**
 * The signature of a delivery (Stripe's scheme): `AgentLink-Signature: t=<unix seconds>,v1=<hex>` where the hex is
 * HMAC-SHA256, keyed with the whole signing secret string (whsec_…), over `${t}.${rawBody}`. Receivers check it
 * with verifyWebhook from the client (client/webhooks.ts), which also refuses timestamps outside the tolerance.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function computeWebhookSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

export function webhookSignatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  return `t=${timestampSeconds},v1=${computeWebhookSignature(secret, timestampSeconds, rawBody)}`;
}

/** The associated data that binds a sealed signing secret to its endpoint row. */
export const webhookSecretAad = (endpointId: string) => `webhook:${endpointId}:secret`;
