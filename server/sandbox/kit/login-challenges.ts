import { createHash, randomBytes } from 'node:crypto';

import type { Response } from 'express';

import type { Store } from '../../store';
import type { KitClock } from './site';

/**
 * A sign-in between its password and its last step (a code, the human check, the device prompt): kept as a document
 * of the site's hidden '__auth' tenant, found again by a random value in a cookie (only its hash is stored), for at
 * most CHALLENGE_SECONDS.
 */
export const CHALLENGE_SECONDS = 10 * 60;

export interface Challenge {
  username: string;
  tenant: string;
  /** The ticket the sign-in came with, so a form shown again keeps it (it is checked again when posted). */
  tenantToken?: string;
  next: string;
  step: 'captcha' | 'totp' | 'sms' | 'device';
  passwordOk: boolean;
  humanNonce?: string;
  attempts: number;
  expiresAt: string;
}

export interface LoginChallenges {
  save(res: Response, c: Challenge, existingId?: string): Promise<void>;
  load(res: Response): Promise<{ id: string; c: Challenge } | null>;
  drop(res: Response, id: string): Promise<void>;
}

const sha = (v: string) => createHash('sha256').update(v).digest('hex');

export function loginChallenges(deps: {
  store: Store;
  clock: KitClock;
  site: { slug: string };
  /** The cookie that holds the challenge's value. */
  chalName: string;
  cookieOpts: { httpOnly: boolean; sameSite: 'lax'; path: string };
  cookies(res: Response): Record<string, string | undefined>;
}): LoginChallenges {
  const { store, clock, site, chalName, cookieOpts, cookies } = deps;
  const saveChallenge = async (res: Response, c: Challenge, existingId?: string) => {
    const repo = store.repos.sandboxDocs;
    if (existingId) {
      await repo.update('__auth', site.slug, existingId, c as unknown as Record<string, unknown>, clock.now());
      return;
    }
    const value = randomBytes(24).toString('base64url');
    const now = clock.now();
    await repo.insert({
      id: sha(value).slice(0, 64),
      tenant: '__auth',
      site: site.slug,
      kind: 'login_challenge',
      data: c as unknown as Record<string, unknown>,
      createdAt: now,
      updatedAt: now,
    });
    res.cookie(chalName, value, cookieOpts);
  };
  const loadChallenge = async (res: Response): Promise<{ id: string; c: Challenge } | null> => {
    const value = cookies(res)[chalName];
    if (!value || value.length > 64) return null;
    const id = sha(value).slice(0, 64);
    const doc = await store.repos.sandboxDocs.find('__auth', site.slug, id);
    if (!doc) return null;
    const c = doc.data as unknown as Challenge;
    if (new Date(c.expiresAt).getTime() <= clock.now().getTime()) {
      await store.repos.sandboxDocs.delete('__auth', site.slug, id);
      return null;
    }
    return { id, c };
  };
  const dropChallenge = async (res: Response, id: string) => {
    await store.repos.sandboxDocs.delete('__auth', site.slug, id);
    res.clearCookie(chalName, cookieOpts);
  };
  return { save: saveChallenge, load: loadChallenge, drop: dropChallenge };
}
