import type { BrowserContextOptions } from 'playwright-core';

/**
 * A provider session as it is sealed in the vault: all of the storage a site may keep its sign-in in, for the
 * provider's origins. Cookies, and per origin localStorage and IndexedDB (Playwright's storage state, with
 * `indexedDB: true`), plus sessionStorage (not part of a storage state: captured from the pages, see
 * session-capture.ts).
 *
 * Versioned by `format`: 2 is this shape. A session sealed before (a plain storage state: cookies and localStorage)
 * has no `format` and is read as it is; a version this code does not know is refused rather than half-restored.
 */
export const SESSION_FORMAT = 2;

/** A sealed session's JSON is bounded: each run seals it again, and it travels in and out of the database each time. */
export const SESSION_MAX_BYTES = 4 * 1024 * 1024;

export interface SessionCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
}

export interface StorageItem {
  name: string;
  value: string;
}

export interface SessionOrigin {
  origin: string;
  localStorage: StorageItem[];
  /** Playwright's serialisation of the origin's databases (opaque here; Playwright restores it). */
  indexedDB?: unknown[];
}

export interface SessionStorageOrigin {
  origin: string;
  items: StorageItem[];
}

export interface ProviderSession {
  format?: typeof SESSION_FORMAT;
  cookies: SessionCookie[];
  origins: SessionOrigin[];
  sessionStorage?: SessionStorageOrigin[];
}

export class SessionFormatError extends Error {
  override name = 'SessionFormatError';
}

const isItems = (v: unknown): v is StorageItem[] =>
  Array.isArray(v) && v.every((i) => !!i && typeof i.name === 'string' && typeof i.value === 'string');

/** A stored session, checked for its shape (either format); throws SessionFormatError when it is not one. */
export function readSession(value: unknown): ProviderSession {
  const s = value as Partial<ProviderSession> | null;
  if (!s || typeof s !== 'object' || !Array.isArray(s.cookies) || !Array.isArray(s.origins)) {
    throw new SessionFormatError('not a provider session');
  }
  if (s.format !== undefined && s.format !== SESSION_FORMAT) throw new SessionFormatError(`unknown session format ${String(s.format)}`);
  for (const o of s.origins) {
    if (!o || typeof o.origin !== 'string' || !isItems(o.localStorage) || (o.indexedDB !== undefined && !Array.isArray(o.indexedDB))) {
      throw new SessionFormatError('an origin of the session is malformed');
    }
  }
  const sessionStorage = s.sessionStorage ?? [];
  if (!Array.isArray(sessionStorage) || !sessionStorage.every((o) => !!o && typeof o.origin === 'string' && isItems(o.items))) {
    throw new SessionFormatError('the sessionStorage of the session is malformed');
  }
  return s as ProviderSession;
}

/** What Playwright's newContext restores (cookies, localStorage, IndexedDB) for the origins `keep` accepts. */
export function contextStorageState(session: ProviderSession, keep: (origin: string) => boolean): BrowserContextOptions['storageState'] {
  return { cookies: session.cookies, origins: session.origins.filter((o) => keep(o.origin)) };
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/**
 * The session within `maxBytes`: the largest parts go first (one IndexedDB database, or one origin's localStorage or
 * sessionStorage, at a time) until it fits, because a sign-in is a small token and what grows is a site's cache.
 * Cookies are never dropped. `dropped` names each part given up, for the run's trace; `session` is null when even the
 * cookies do not fit (the caller keeps the session it had and says so).
 */
export function boundSession(
  session: ProviderSession,
  maxBytes = SESSION_MAX_BYTES,
): { session: ProviderSession | null; dropped: string[] } {
  let size = bytes(session);
  if (size <= maxBytes) return { session, dropped: [] };
  const origins = session.origins.map((o) => ({ ...o, ...(o.indexedDB ? { indexedDB: [...o.indexedDB] } : {}) }));
  const sessionStorage = (session.sessionStorage ?? []).map((o) => ({ ...o }));
  const databaseName = (db: unknown) => String((db as { name?: unknown } | null)?.name ?? 'unnamed').slice(0, 100);
  const parts = [
    ...origins.flatMap((o) => [
      ...(o.indexedDB ?? []).map((db) => ({
        label: `IndexedDB ${databaseName(db)} of ${o.origin}`,
        size: bytes(db),
        drop: () => (o.indexedDB = o.indexedDB!.filter((d) => d !== db)),
      })),
      { label: `localStorage of ${o.origin}`, size: bytes(o.localStorage), drop: () => (o.localStorage = []) },
    ]),
    ...sessionStorage.map((o) => ({ label: `sessionStorage of ${o.origin}`, size: bytes(o.items), drop: () => (o.items = []) })),
  ]
    .filter((p) => p.size > 2)
    .sort((a, b) => b.size - a.size);
  const build = (): ProviderSession => ({ ...session, origins, sessionStorage: sessionStorage.filter((o) => o.items.length > 0) });
  const dropped: string[] = [];
  for (const part of parts) {
    // The running size is an estimate (separators); it is measured exactly once it says the session fits.
    if (size <= maxBytes && (size = bytes(build())) <= maxBytes) break;
    part.drop();
    dropped.push(`${part.label} (${part.size} bytes)`);
    size -= part.size;
  }
  const trimmed = build();
  return bytes(trimmed) <= maxBytes ? { session: trimmed, dropped } : { session: null, dropped };
}
