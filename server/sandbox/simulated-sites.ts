import type { Store } from '../store';
import { resetTenant } from './kit/seeding';
import type { SiteDefinition } from './kit/site';
import { type PlaywrightStorageState, type SandboxOwner, type SiteSessions, tenantFor } from './site-sessions';
import { findTestUser } from './test-users';

export type MintOutcome =
  { ok: true; session: PlaywrightStorageState } | { ok: false; reason: 'NO_SITE' | 'UNKNOWN_TEST_USER' | 'LOCKED_TEST_USER' };

/**
 * The simulated sites as the rest of the service sees them: sign a test user in without the login form, and
 * reset an organization's copy. domain/ is handed this object (structurally, as its SandboxSites) and so never
 * imports the kit.
 */
export class SimulatedSites {
  private readonly slugs: Set<string>;

  constructor(
    private readonly store: Store,
    private readonly sessions: SiteSessions,
    sites: SiteDefinition[],
  ) {
    this.slugs = new Set(sites.map((s) => s.slug));
  }

  /** A logged-in browser state for a test user, as if they had signed in through the site's form. */
  async mint(owner: SandboxOwner, siteSlug: string, username: string): Promise<MintOutcome> {
    if (!this.slugs.has(siteSlug)) return { ok: false, reason: 'NO_SITE' };
    const user = findTestUser(username);
    if (!user) return { ok: false, reason: 'UNKNOWN_TEST_USER' };
    if (user.behaviour === 'locked') return { ok: false, reason: 'LOCKED_TEST_USER' };
    return { ok: true, session: await this.sessions.mint(owner, siteSlug, username) };
  }

  /** Forgets the owner's content on a site; the next visit seeds it afresh. */
  async reset(owner: SandboxOwner, siteSlug: string): Promise<void> {
    await resetTenant(this.store, siteSlug, tenantFor(owner.organizationId));
  }
}
