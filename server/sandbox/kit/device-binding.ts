import type { Store } from '../../store';
import type { KitClock } from './site';

/**
 * user_bound's sessions are bound to the device they were signed in from, as real sites bind theirs: the user agent
 * the sign-in came with (a header the site reads on every request) and the time zone its page reported (a hint the
 * site's own script sends). A session presented by anything else is signed out, and stays signed out.
 */
export interface BoundDevice {
  userAgent: string;
  timeZone: string;
}

/** What a request showed of its device: the time zone only where the site's page sent it (its /app API calls). */
export interface SeenDevice {
  userAgent: string;
  timeZone?: string;
}

const TENANT = '__auth';
const KIND = 'device_binding';
const MAX = 300;

/** Why the request is not the session's device, or null when it is. */
export function deviceMismatch(bound: BoundDevice, seen: SeenDevice): string | null {
  if (seen.userAgent.slice(0, MAX) !== bound.userAgent) return 'another user agent';
  if (seen.timeZone !== undefined && seen.timeZone !== bound.timeZone) return 'another time zone';
  return null;
}

export function deviceBindings(store: Store, clock: KitClock, site: string) {
  const repo = store.repos.sandboxDocs;
  const idOf = (sessionId: string) => `bind_${sessionId.slice(0, 56)}`;
  return {
    async bind(sessionId: string, device: BoundDevice): Promise<void> {
      const now = clock.now();
      await repo.insert({
        id: idOf(sessionId),
        tenant: TENANT,
        site,
        kind: KIND,
        data: { userAgent: device.userAgent.slice(0, MAX), timeZone: device.timeZone.slice(0, 64) },
        createdAt: now,
        updatedAt: now,
      });
    },
    async find(sessionId: string): Promise<BoundDevice | null> {
      const doc = await repo.find(TENANT, site, idOf(sessionId));
      if (!doc || doc.kind !== KIND) return null;
      return { userAgent: String(doc.data.userAgent), timeZone: String(doc.data.timeZone) };
    },
    async drop(sessionId: string): Promise<void> {
      await repo.delete(TENANT, site, idOf(sessionId));
    },
  };
}

export type DeviceBindings = ReturnType<typeof deviceBindings>;
