import { looksLikeSecret, REDACTED } from './secret-shapes';

/**
 * URLs as they may be logged. Query parameters are compared by their decoded name (`?%74oken=` is `token`, and
 * `link-token`, `LinkToken` and `link_token` are one name), so an encoding cannot smuggle a secret past the list;
 * a path segment or parameter whose decoded text is shaped like one of our tokens or secrets is redacted too,
 * whatever its name.
 */
const SECRET_PARAM_NAMES = new Set([
  'token',
  'linktoken',
  'publictoken',
  'accesstoken',
  'secret',
  'clientsecret',
  'password',
  'code',
  'session',
  'tenanttoken',
]);

/** Decoded like a query string is (`+` is a space); undecodable text is kept raw (and still checked). */
function decode(part: string): string {
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

const normalisedName = (name: string) => name.toLowerCase().replace(/[\s_.-]/g, '');

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      const name = decode(rawName);
      if (looksLikeSecret(name)) return REDACTED;
      if (eq === -1) return pair;
      const value = decode(pair.slice(eq + 1));
      return SECRET_PARAM_NAMES.has(normalisedName(name)) || looksLikeSecret(value) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
}

export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return url;
  const q = url.indexOf('?');
  const pathPart = q === -1 ? url : url.slice(0, q);
  // The common case (a plain path, no query) costs one scan.
  const path =
    pathPart.includes('%') || looksLikeSecret(pathPart)
      ? pathPart
          .split('/')
          .map((segment) => (looksLikeSecret(decode(segment)) ? REDACTED : segment))
          .join('/')
      : pathPart;
  return q === -1 ? path : `${path}?${redactQuery(url.slice(q + 1))}`;
}
