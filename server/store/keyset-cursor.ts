import type { KeysetPosition } from './repositories/base.repository';

/**
 * The one cursor of every newest-first listing, for the API and the dashboard alike: the (createdAt, id) of the
 * last record of a page (see BaseRepository.keysetPage), as base64url of `<createdAt in ms>.<id>`.
 *
 * Callers treat it as opaque, but cursors outlive the process that issued them (clients keep them between
 * calls, the dashboard puts them in links), so the format is a compatibility promise: a change here makes the
 * cursors clients hold answer INVALID_CURSOR.
 */
export function encodeKeysetCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.createdAt.getTime()}.${position.id}`, 'utf8').toString('base64url');
}

/**
 * The position a cursor names, or null when it is not a cursor of this listing: malformed, or naming an id of
 * another kind than `idPrefix` (ids are `<prefix>_` and 24 hex digits, see server/domain/ids.ts), so a cursor
 * of one listing is refused by another rather than silently paging it from a meaningless place.
 */
export function decodeKeysetCursor(cursor: string, idPrefix: string): KeysetPosition | null {
  const m = cursorPattern(idPrefix).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? { createdAt: new Date(Number(m[1])), id: m[2] } : null;
}

// At most 15 digits of milliseconds: every such number is a valid Date (the limit is 8.64e15).
const patterns = new Map<string, RegExp>();
function cursorPattern(idPrefix: string): RegExp {
  let pattern = patterns.get(idPrefix);
  if (!pattern) {
    if (!/^[a-z]{1,16}$/.test(idPrefix)) throw new Error(`not an id prefix: ${JSON.stringify(idPrefix)}`);
    pattern = new RegExp(`^(\\d{1,15})\\.(${idPrefix}_[0-9a-f]{24})$`);
    patterns.set(idPrefix, pattern);
  }
  return pattern;
}
