/**
 * What our bearer secrets look like: link / public / access tokens (`public-sandbox-…`) and client secrets
 * (`sk_production_…`). Anything shaped like one, even cut short, is never written to a log line or echoed in an
 * error message: a caller who put a token where an id goes (GET /api/connections/<publicToken>) must not find
 * it in our logs or see it reflected back.
 */
const SECRET_SHAPE = /(?:link|public|access)-(?:sandbox|production)-[A-Za-z0-9_-]{6,}|sk_(?:sandbox|production)_[A-Za-z0-9_-]{6,}/gi;
const HAS_SECRET_SHAPE = /(?:link|public|access)-(?:sandbox|production)-[A-Za-z0-9_-]{6}|sk_(?:sandbox|production)_[A-Za-z0-9_-]{6}/i;

export const REDACTED = '[redacted]';

export function looksLikeSecret(text: string): boolean {
  return HAS_SECRET_SHAPE.test(text);
}

/** The text with every secret-shaped run replaced by [redacted]. */
export function redactSecrets(text: string): string {
  return looksLikeSecret(text) ? text.replace(SECRET_SHAPE, REDACTED) : text;
}

/** Strings anywhere in a small JSON-like value (error details) redacted the same way. */
export function redactSecretsDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactSecretsDeep(v)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactSecretsDeep(v)])) as T;
  }
  return value;
}
