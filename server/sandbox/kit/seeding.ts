import { randomBytes } from 'node:crypto';

import type { Store } from '../../store';
import type { KitClock, SiteDefinition } from './site';

/**
 * A tenant's copy of a site is created on first use. The seed marker row is claimed first (a primary-key
 * insert), so concurrent first requests from several processes seed it once.
 */
export async function ensureSeeded(store: Store, clock: KitClock, site: SiteDefinition, tenant: string): Promise<void> {
  const now = clock.now();
  if (!(await store.repos.sandboxTenants.claimSeed(tenant, site.slug, now))) return;
  const docs = site.seed().map((d) => {
    const createdAt = new Date(now.getTime() - (d.ageMinutes ?? 0) * 60_000);
    return {
      id: `${d.kind.slice(0, 3)}_${randomBytes(8).toString('hex')}`,
      tenant,
      site: site.slug,
      kind: d.kind,
      data: d.data,
      createdAt,
      updatedAt: createdAt,
    };
  });
  await store.repos.sandboxDocs.insertMany(docs);
}

/** Forgets a tenant's content on a site; the next visit seeds it afresh. Sessions stay valid. */
export async function resetTenant(store: Store, site: string, tenant: string): Promise<void> {
  await store.repos.sandboxDocs.deleteTenant(tenant, site);
  await store.repos.sandboxTenants.delete(tenant, site);
}
