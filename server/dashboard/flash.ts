import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import type { Environment } from '../config';

/**
 * What a page redirected to after a POST shows once (POST/redirect/GET): new secrets, an invitation link. It is kept on
 * the session row, sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the session cookie, which the server
 * never stores (it keeps only the cookie's SHA-256): the database alone cannot open it. Taking it clears it, so a
 * reload shows it no more, and never repeats the POST.
 */
export interface Flash {
  organizationId: string;
  /** Secrets shown once (a new organization: both; a rotation: one). */
  secrets?: Partial<Record<Environment, string>>;
  /** An invitation link shown once. */
  invitationUrl?: string;
  message?: string;
}

const INFO = Buffer.from('agentlink dashboard flash v1');

function keyOf(cookie: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(cookie, 'utf8'), Buffer.alloc(0), INFO, 32));
}

export function sealFlash(cookie: string, flash: Flash): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(cookie), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The flash, or null when it does not open with this cookie (another session's, tampered with, or malformed). */
export function openFlash(cookie: string, sealed: string): Flash | null {
  if (!sealed.startsWith('v1.')) return null;
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  if (raw.length < 29) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(cookie), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as Flash;
  } catch {
    return null;
  }
}
