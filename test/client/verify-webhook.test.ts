import {
  verifyWebhook,
  WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from '@agentlink/client/webhooks';
import { Webhook } from 'standardwebhooks';

import { WEBHOOK_SIGNATURE_TOLERANCE_SECONDS as CONTRACT_TOLERANCE } from '../../contract/webhook-schemas';
import {
  computeWebhookSignature,
  generateWebhookSecret,
  standardWebhookSignature,
  webhookSignatureHeader,
} from '../../server/domain/webhooks/signature';

/** verifyWebhook of @agentlink/client/webhooks (Web Crypto) against the signatures the server makes. */
const secret = generateWebhookSecret();
const body = JSON.stringify({
  eventId: 'evt_1',
  type: 'CONNECTION.CREATED',
  createdAt: '2026-01-01T12:00:00.000Z',
  environment: 'sandbox',
  object: { connectionId: 'conn_1' },
});
const t = 1_767_268_800; // 2026-01-01T12:00:00Z
const now = new Date(t * 1000);
const standardHeaders = (over: Record<string, string> = {}) => ({
  'webhook-id': 'evt_1',
  'webhook-timestamp': String(t),
  'webhook-signature': standardWebhookSignature(secret, 'evt_1', t, body),
  ...over,
});

async function codeOf(p: Promise<unknown>): Promise<WebhookVerificationErrorCode | 'verified'> {
  try {
    await p;
    return 'verified';
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
}

describe('verifyWebhook: AgentLink-Signature', () => {
  it('returns the parsed event for a signature the server made', async () => {
    const event = await verifyWebhook({ payload: body, header: webhookSignatureHeader(secret, t, body), secret, now });
    expect(event).toEqual(JSON.parse(body));
  });

  it('accepts bytes as the payload, the header among all headers, and any matching v1 among several', async () => {
    const header = `t=${t},v1=${computeWebhookSignature('whsec_old', t, body)},v1=${computeWebhookSignature(secret, t, body)}`;
    expect((await verifyWebhook({ payload: Buffer.from(body), header, secret, now })).eventId).toBe('evt_1');
    expect((await verifyWebhook({ payload: new TextEncoder().encode(body).buffer, header, secret, now })).eventId).toBe('evt_1');
    expect((await verifyWebhook({ payload: body, headers: new Headers({ 'AgentLink-Signature': header }), secret, now })).eventId).toBe(
      'evt_1',
    );
  });

  it('refuses a tampered body, a wrong secret and a changed timestamp', async () => {
    const header = webhookSignatureHeader(secret, t, body);
    expect(await codeOf(verifyWebhook({ payload: body.replace('conn_1', 'conn_2'), header, secret, now }))).toBe('SIGNATURE_MISMATCH');
    expect(await codeOf(verifyWebhook({ payload: body, header, secret: generateWebhookSecret(), now }))).toBe('SIGNATURE_MISMATCH');
    expect(await codeOf(verifyWebhook({ payload: body, header: header.replace(`t=${t}`, `t=${t + 1}`), secret, now }))).toBe(
      'SIGNATURE_MISMATCH',
    );
  });

  it('refuses timestamps outside the tolerance (default 300 s, the server’s), both ways', async () => {
    expect(WEBHOOK_SIGNATURE_TOLERANCE_SECONDS).toBe(CONTRACT_TOLERANCE);
    const header = webhookSignatureHeader(secret, t, body);
    expect(await codeOf(verifyWebhook({ payload: body, header, secret, now: (t + 300) * 1000 }))).toBe('verified');
    expect(await codeOf(verifyWebhook({ payload: body, header, secret, now: (t + 301) * 1000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(await codeOf(verifyWebhook({ payload: body, header, secret, now: (t - 301) * 1000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(await codeOf(verifyWebhook({ payload: body, header, secret, now: (t + 3000) * 1000, toleranceSeconds: 3600 }))).toBe('verified');
  });

  it('refuses a missing or malformed header', async () => {
    expect(await codeOf(verifyWebhook({ payload: body, header: undefined, secret, now }))).toBe('MISSING_SIGNATURE');
    expect(await codeOf(verifyWebhook({ payload: body, header: '', secret, now }))).toBe('MISSING_SIGNATURE');
    expect(await codeOf(verifyWebhook({ payload: body, header: 'v1=abc', secret, now }))).toBe('MALFORMED_SIGNATURE');
    expect(await codeOf(verifyWebhook({ payload: body, header: `t=${t}`, secret, now }))).toBe('MALFORMED_SIGNATURE');
    expect(await codeOf(verifyWebhook({ payload: body, header: `t=${t},v1=zz`, secret, now }))).toBe('MALFORMED_SIGNATURE');
  });

  it('refuses a signed payload that is not JSON', async () => {
    const raw = 'not json';
    expect(await codeOf(verifyWebhook({ payload: raw, header: webhookSignatureHeader(secret, t, raw), secret, now }))).toBe(
      'INVALID_PAYLOAD',
    );
  });
});

describe('verifyWebhook: Standard Webhooks', () => {
  it('verifies webhook-signature with the base64 key after whsec_, as the reference library signs it', async () => {
    expect((await verifyWebhook({ payload: body, headers: standardHeaders(), secret, now })).eventId).toBe('evt_1');
    // The reference implementation's own signature (with its own clock handling aside) is accepted the same.
    const reference = new Webhook(secret).sign('evt_1', now, body);
    expect(reference).toBe(standardHeaders()['webhook-signature']);
    // Several space-separated signatures (a rotation on the sender's side): any match counts.
    const other = standardWebhookSignature(generateWebhookSecret(), 'evt_1', t, body);
    const headers = standardHeaders({ 'webhook-signature': `${other} ${reference}` });
    expect((await verifyWebhook({ payload: body, headers: new Headers(headers), secret, now })).eventId).toBe('evt_1');
  });

  it('takes Node’s IncomingHttpHeaders shape, any header case, and prefers it over AgentLink-Signature', async () => {
    const headers = {
      'Webhook-Id': 'evt_1',
      'WEBHOOK-TIMESTAMP': String(t),
      'webhook-signature': [standardHeaders()['webhook-signature']],
    };
    expect((await verifyWebhook({ payload: body, headers, secret, now })).eventId).toBe('evt_1');
  });

  it('refuses another message id, body, secret or timestamp, and malformed headers', async () => {
    const v = (headers: Record<string, string>, opts: { payload?: string; secret?: string; now?: Date } = {}) =>
      codeOf(verifyWebhook({ payload: opts.payload ?? body, headers, secret: opts.secret ?? secret, now: opts.now ?? now }));
    expect(await v(standardHeaders({ 'webhook-id': 'evt_2' }))).toBe('SIGNATURE_MISMATCH');
    expect(await v(standardHeaders(), { payload: body.replace('conn_1', 'conn_2') })).toBe('SIGNATURE_MISMATCH');
    expect(await v(standardHeaders(), { secret: generateWebhookSecret() })).toBe('SIGNATURE_MISMATCH');
    expect(await v(standardHeaders(), { now: new Date((t + 301) * 1000) })).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(await v(standardHeaders({ 'webhook-signature': 'v2,abc' }))).toBe('MALFORMED_SIGNATURE');
    expect(await v(standardHeaders({ 'webhook-timestamp': 'soon' }))).toBe('MALFORMED_SIGNATURE');
    expect(await v(standardHeaders(), { secret: 'whsec_***' })).toBe('INVALID_SECRET');
  });
});
