/** A base nothing real lives on: `next` must resolve to it and stay on it. */
const NEXT_BASE = 'http://site.invalid';

/**
 * Where to go after sign-in: only a path on this very site. Judged the way the browser will judge the Location
 * header (WHATWG URL parsing, which turns a backslash into `/` and drops tabs and newlines): `/\evil.example/`, `//evil`,
 * `/%5Cevil` (once decoded by a later hop), `javascript:` and every other form that leaves the origin is refused.
 * The answer is the normalised path, so what the browser follows is exactly what was checked.
 */
export function safeNext(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || next.length === 0 || next.length >= 500 || !next.startsWith('/')) return fallback;
  // Backslashes, control characters and whitespace have no place in a path we hand out (raw or percent-encoded).
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern exists to find.
  if (/[\\\s\x00-\x1f\x7f]|%5c|%0[0-9a-f]|%1[0-9a-f]|%7f/i.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE || url.username || url.password) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path that starts with two slashes is read as another host when the browser resolves it again.
  return path.startsWith('//') ? fallback : path;
}
