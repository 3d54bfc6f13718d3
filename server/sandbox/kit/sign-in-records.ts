import { createHash, randomBytes } from 'node:crypto';

import type { Store } from '../../store';
import type { KitClock, SignInRecords } from './site';

const TENANT = '__auth';
const idOf = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 64);

export function signInRecords(store: Store, clock: KitClock): SignInRecords {
  const repo = store.repos.sandboxDocs;
  const get = async (site: string, kind: string, value: string) => {
    if (!value || value.length > 100) return null;
    const doc = await repo.find(TENANT, site, idOf(value));
    if (!doc || doc.kind !== kind) return null;
    const expiresAt = Number(doc.data.expiresAt);
    if (!(expiresAt > clock.now().getTime())) return null;
    return doc.data;
  };
  return {
    async put(site, kind, data, ttlSeconds) {
      const value = randomBytes(24).toString('base64url');
      const now = clock.now();
      await repo.insert({
        id: idOf(value),
        tenant: TENANT,
        site,
        kind,
        data: { ...data, expiresAt: now.getTime() + ttlSeconds * 1000 },
        createdAt: now,
        updatedAt: now,
      });
      return value;
    },
    get,
    async take(site, kind, value) {
      const data = await get(site, kind, value);
      if (data) await repo.delete(TENANT, site, idOf(value));
      return data;
    },
  };
}
