import { createHash, randomBytes } from 'node:crypto';

import type { Environment } from '../config';

/**
 * Bearer tokens: `<kind>-<environment>-<43 base64url chars>` (256 random bits). The prefix lets us
 * reject a token of the wrong kind or environment without a lookup, and lets secret scanners spot
 * leaked ones. Only the SHA-256 hash is stored; a fast hash is right here because the token itself
 * has full entropy (unlike a password).
 */
export type TokenKind = 'link' | 'public' | 'access';

const TOKEN_PATTERN = /^(link|public|access)-(sandbox|production)-([A-Za-z0-9_-]{43})$/;

export function generateToken(kind: TokenKind, environment: Environment): string {
  return `${kind}-${environment}-${randomBytes(32).toString('base64url')}`;
}

export function parseToken(token: string): { kind: TokenKind; environment: Environment } | null {
  const m = TOKEN_PATTERN.exec(token);
  if (!m) return null;
  return { kind: m[1] as TokenKind, environment: m[2] as Environment };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
