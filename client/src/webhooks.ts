import type { WebhookEvent } from './generated/api';

/**
 * @agentlink/client/webhooks: verifies a webhook delivery in your backend, on Web Crypto (Node 20+, Deno, Bun,
 * Cloudflare Workers, Vercel Edge, browsers), so it needs no Node built-in. Pass the raw body exactly as received (not
 * re-serialized JSON), the request's headers and the endpoint's signing secret:
 *
 *   app.post('/agentlink/webhooks', express.raw({ type: 'application/json' }), async (req, res) => {
 *     const event = await verifyWebhook({ payload: req.body, headers: req.headers, secret });
 *     res.sendStatus(200);         // answer 2xx quickly; anything else is retried
 *   });
 *
 * Every delivery is signed twice; either signature suffices:
 * - Standard Webhooks (checked when `webhook-signature` is present): `webhook-signature: v1,<base64>`, HMAC-SHA256
 *   keyed with the base64-decoded secret after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<raw body>`. Any
 *   Standard Webhooks library verifies it too.
 * - AgentLink-Signature: `t=<unix seconds>,v1=<hex>`, HMAC-SHA256 keyed with the whole secret string, over
 *   `<t>.<raw body>` (several v1 values may be present; any match is accepted).
 * A timestamp further than `toleranceSeconds` (default 300) from now is refused, which bounds replays. Delivery is at
 * least once: deduplicate on event.eventId (= webhook-id).
 */
export type { AgentRequestEvent, ConnectionEvent, LinkSessionEvent, WebhookEvent } from './generated/api';

/** A receiver refuses a signature whose timestamp is further than this from its clock (the server's tolerance too). */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;

export type WebhookVerificationErrorCode =
  'MISSING_SIGNATURE' | 'MALFORMED_SIGNATURE' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'SIGNATURE_MISMATCH' | 'INVALID_SECRET' | 'INVALID_PAYLOAD';

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A Fetch API Headers, Node's IncomingHttpHeaders, or a plain record (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The raw body as received. */
  payload: string | Uint8Array | ArrayBuffer;
  /** The delivery's headers (webhook-id, webhook-timestamp, webhook-signature and/or AgentLink-Signature). */
  headers?: WebhookHeaders;
  /** The AgentLink-Signature header alone (instead of `headers`). */
  header?: string | string[] | null;
  /** The endpoint's signing secret (whsec_…). */
  secret: string;
  /** Default 300 s. */
  toleranceSeconds?: number;
  /** The receiver's clock (default now). */
  now?: Date | number;
}

const encoder = new TextEncoder();

function headerOf(headers: WebhookHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

function bytesOf(payload: VerifyWebhookOptions['payload']): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  return payload instanceof Uint8Array ? payload : new Uint8Array(payload);
}

function concat(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

function base64Decode(text: string): Uint8Array<ArrayBuffer> | null {
  // Standard and URL-safe alphabets (secrets issued before Standard Webhooks signing were base64url).
  const normal = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return null;
  try {
    const binary = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function hexDecode(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function hmacKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** crypto.subtle.verify compares in constant time. */
async function anyMatches(key: CryptoKey, signatures: Uint8Array<ArrayBuffer>[], data: Uint8Array<ArrayBuffer>): Promise<boolean> {
  for (const signature of signatures) if (await globalThis.crypto.subtle.verify('HMAC', key, signature, data)) return true;
  return false;
}

function checkTimestamp(timestamp: number, options: VerifyWebhookOptions): void {
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  const tolerance = options.toleranceSeconds ?? WEBHOOK_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookVerificationError('TIMESTAMP_OUT_OF_TOLERANCE', `The signature timestamp is more than ${tolerance} s from now.`);
  }
}

async function verifyStandard(body: Uint8Array, headers: WebhookHeaders, signatureHeader: string, options: VerifyWebhookOptions) {
  const id = headerOf(headers, 'webhook-id');
  const ts = headerOf(headers, 'webhook-timestamp');
  if (!id || !ts || !/^\d{1,12}$/.test(ts)) {
    throw new WebhookVerificationError(
      'MALFORMED_SIGNATURE',
      'webhook-id and webhook-timestamp (Unix seconds) must come with webhook-signature.',
    );
  }
  const signatures = signatureHeader
    .split(' ')
    .map((s) => s.split(','))
    .filter(([version, value]) => version === 'v1' && value)
    .map(([, value]) => base64Decode(value))
    .filter((s): s is Uint8Array<ArrayBuffer> => s !== null && s.length === 32);
  if (signatures.length === 0)
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', 'webhook-signature holds no v1,<base64> signature.');
  checkTimestamp(Number(ts), options);
  const secret = options.secret.startsWith('whsec_') ? options.secret.slice('whsec_'.length) : options.secret;
  const key = base64Decode(secret);
  if (!key || key.length === 0) throw new WebhookVerificationError('INVALID_SECRET', 'The secret is not whsec_ followed by base64.');
  return anyMatches(await hmacKey(key), signatures, concat(`${id}.${ts}.`, body));
}

async function verifyAgentLink(body: Uint8Array, header: string, options: VerifyWebhookOptions) {
  let timestamp: number | null = null;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) signatures.push(hexDecode(v.toLowerCase()));
  }
  if (timestamp === null || signatures.length === 0) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', 'The AgentLink-Signature header is not t=<seconds>,v1=<hex>.');
  }
  checkTimestamp(timestamp, options);
  return anyMatches(await hmacKey(encoder.encode(options.secret)), signatures, concat(`${timestamp}.`, body));
}

/** Checks the signature of a delivery and returns its event; throws WebhookVerificationError otherwise. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const body = bytesOf(options.payload);
  const standard = headerOf(options.headers, 'webhook-signature');
  const legacyHeader = Array.isArray(options.header)
    ? options.header.join(',')
    : (options.header ?? headerOf(options.headers, 'agentlink-signature'));
  let matched: boolean;
  if (standard) matched = await verifyStandard(body, options.headers!, standard, options);
  else if (legacyHeader) matched = await verifyAgentLink(body, legacyHeader, options);
  else throw new WebhookVerificationError('MISSING_SIGNATURE', 'Neither webhook-signature nor AgentLink-Signature is present.');
  if (!matched) throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'No signature matches the payload and the secret.');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The payload is not JSON.');
  }
}
