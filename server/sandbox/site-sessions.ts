import { createHash, randomBytes } from 'node:crypto';

import type { SandboxSessionRecord, Store } from '../store';
import type { KitClock } from './kit/site';
import { EXPIRING_SESSION_SECONDS, findTestUser } from './test-users';

/** A normal site session lasts a week, like a real "remember me" cookie. */
const SESSION_SECONDS = 7 * 24 * 3600;

/** Each organization sees its own copy of the sandbox sites; the tenant key names that copy without exposing the org id. */
export function tenantFor(organizationId: string): string {
  return `t_${createHash('sha256').update(`sandbox-tenant:${organizationId}`).digest('hex').slice(0, 24)}`;
}

/** The shared copy a person gets when they open a sandbox site directly, without a tenant. */
export const PUBLIC_TENANT = 'public';

export const sessionCookieName = (site: string) => `${site}_sid`;

/** Whose copy of the sites a session belongs to (the service's Caller fits it). */
export interface SandboxOwner {
  organizationId: string;
  environment: string;
}

export interface PlaywrightStorageState {
  cookies: {
    name: string;
    value: string;
    domain: string;
    path: string;
    expires: number;
    httpOnly: boolean;
    secure: boolean;
    sameSite: 'Strict' | 'Lax' | 'None';
  }[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

/** Login sessions of the simulated sites, stored in AgentLink's database so every process sees them. */
export class SiteSessions {
  constructor(
    private readonly store: Store,
    private readonly clock: KitClock,
    /** Sites answer on `<slug>.<hostSuffix>`; a minted cookie is scoped to that host. */
    private readonly hostSuffix: string,
    /** How long user_expiring's sessions last (AGENTLINK_SANDBOX_EXPIRING_SESSION_SECONDS): tests of expiry set it short. */
    private readonly expiringSeconds = EXPIRING_SESSION_SECONDS,
  ) {}

  async create(tenant: string, site: string, username: string): Promise<{ cookieValue: string; record: SandboxSessionRecord }> {
    const now = this.clock.now();
    const cookieValue = randomBytes(32).toString('base64url');
    const seconds = findTestUser(username)?.behaviour === 'expiring' ? this.expiringSeconds : SESSION_SECONDS;
    const record: SandboxSessionRecord = {
      id: hash(cookieValue),
      tenant,
      site,
      username,
      csrfToken: randomBytes(24).toString('base64url'),
      createdAt: now,
      expiresAt: new Date(now.getTime() + seconds * 1000),
    };
    await this.store.repos.sandboxSessions.insert(record);
    return { cookieValue, record };
  }

  /** The live session behind a cookie value, or null when it is unknown or expired. */
  async resolve(site: string, cookieValue: string | undefined): Promise<SandboxSessionRecord | null> {
    if (!cookieValue || cookieValue.length > 100) return null;
    const record = await this.store.repos.sandboxSessions.findById(hash(cookieValue));
    if (!record || record.site !== site) return null;
    if (record.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return record;
  }

  /** resolve(), and whether the session's tenant has its copy of the site already (one query: every page asks both). */
  async resolveForPage(site: string, cookieValue: string | undefined): Promise<{ session: SandboxSessionRecord; seeded: boolean } | null> {
    if (!cookieValue || cookieValue.length > 100) return null;
    const found = await this.store.repos.sandboxSessions.findWithSeed(hash(cookieValue));
    if (!found || found.session.site !== site) return null;
    if (found.session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return found;
  }

  async destroy(cookieValue: string) {
    await this.store.repos.sandboxSessions.delete(hash(cookieValue));
  }

  /** A logged-in browser state for a test user on a site, as if they had logged in through the login form. */
  async mint(owner: SandboxOwner, siteSlug: string, username: string): Promise<PlaywrightStorageState> {
    const { cookieValue, record } = await this.create(tenantFor(owner.organizationId), siteSlug, username);
    return {
      cookies: [
        {
          name: sessionCookieName(siteSlug),
          value: cookieValue,
          domain: `${siteSlug}.${this.hostSuffix}`,
          path: '/',
          expires: Math.floor(record.expiresAt.getTime() / 1000),
          httpOnly: true,
          secure: false,
          sameSite: 'Lax',
        },
      ],
      origins: [],
    };
  }
}

function hash(v: string) {
  return createHash('sha256').update(v).digest('hex');
}
