import { verifyWebhook, WebhookVerificationError, type WebhookVerificationErrorCode } from '../../client';
import { computeWebhookSignature, generateWebhookSecret, webhookSignatureHeader } from '../../server/domain/webhooks/signature';

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

function codeOf(fn: () => unknown): WebhookVerificationErrorCode | 'verified' {
  try {
    fn();
    return 'verified';
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
}

describe('verifyWebhook', () => {
  it('returns the parsed event for a signature the server made', () => {
    const event = verifyWebhook({ payload: body, header: webhookSignatureHeader(secret, t, body), secret, now });
    expect(event).toEqual(JSON.parse(body));
  });

  it('accepts a Buffer payload and any matching v1 among several (e.g. old and new secret)', () => {
    const header = `t=${t},v1=${computeWebhookSignature('whsec_old', t, body)},v1=${computeWebhookSignature(secret, t, body)}`;
    expect(verifyWebhook({ payload: Buffer.from(body), header, secret, now }).eventId).toBe('evt_1');
  });

  it('refuses a tampered body, a wrong secret and a changed timestamp', () => {
    const header = webhookSignatureHeader(secret, t, body);
    expect(codeOf(() => verifyWebhook({ payload: body.replace('conn_1', 'conn_2'), header, secret, now }))).toBe('SIGNATURE_MISMATCH');
    expect(codeOf(() => verifyWebhook({ payload: body, header, secret: generateWebhookSecret(), now }))).toBe('SIGNATURE_MISMATCH');
    expect(codeOf(() => verifyWebhook({ payload: body, header: header.replace(`t=${t}`, `t=${t + 1}`), secret, now }))).toBe(
      'SIGNATURE_MISMATCH',
    );
  });

  it('refuses timestamps outside the tolerance (default 300 s), both ways', () => {
    const header = webhookSignatureHeader(secret, t, body);
    expect(codeOf(() => verifyWebhook({ payload: body, header, secret, now: (t + 300) * 1000 }))).toBe('verified');
    expect(codeOf(() => verifyWebhook({ payload: body, header, secret, now: (t + 301) * 1000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(codeOf(() => verifyWebhook({ payload: body, header, secret, now: (t - 301) * 1000 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(codeOf(() => verifyWebhook({ payload: body, header, secret, now: (t + 3000) * 1000, toleranceSeconds: 3600 }))).toBe('verified');
  });

  it('refuses a missing or malformed header', () => {
    expect(codeOf(() => verifyWebhook({ payload: body, header: undefined, secret, now }))).toBe('MISSING_SIGNATURE');
    expect(codeOf(() => verifyWebhook({ payload: body, header: '', secret, now }))).toBe('MISSING_SIGNATURE');
    expect(codeOf(() => verifyWebhook({ payload: body, header: 'v1=abc', secret, now }))).toBe('MALFORMED_SIGNATURE');
    expect(codeOf(() => verifyWebhook({ payload: body, header: `t=${t}`, secret, now }))).toBe('MALFORMED_SIGNATURE');
    expect(codeOf(() => verifyWebhook({ payload: body, header: `t=${t},v1=zz`, secret, now }))).toBe('MALFORMED_SIGNATURE');
  });

  it('refuses a signed payload that is not JSON', () => {
    const raw = 'not json';
    expect(codeOf(() => verifyWebhook({ payload: raw, header: webhookSignatureHeader(secret, t, raw), secret, now }))).toBe(
      'INVALID_PAYLOAD',
    );
  });
});
