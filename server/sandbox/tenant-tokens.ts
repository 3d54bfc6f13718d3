import { createHmac, timingSafeEqual } from 'node:crypto';

import type { KitClock } from './kit/site';
import { tenantFor } from './site-sessions';

/** Long enough for a sign-in with a verification step; short, because the token is a bearer credential for a copy. */
const TOKEN_SECONDS = 15 * 60;
const TOKEN_PATTERN = /^(t_[0-9a-f]{24})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Signed, expiring tickets into an organization's copy of a simulated site: `<tenant>.<expires>.<HMAC-SHA256>`.
 *
 * The login engine opens a sandbox site's sign-in page with one (`?tenant_token=`), so the session it creates
 * lands in its organization's copy. A tenant name alone proves nothing (it is a hash of the organization id,
 * which is no secret), so the sites accept only a token this service signed, for that site, not yet expired;
 * without one a visitor gets the public copy. The key comes from the composition root (derived from the vault's).
 */
export class TenantTokens {
  constructor(
    private readonly key: Buffer,
    private readonly clock: KitClock,
  ) {
    if (key.length < 32) throw new Error('a tenant token key must be at least 32 bytes');
  }

  issue(organizationId: string, site: string): string {
    const tenant = tenantFor(organizationId);
    const expires = Math.floor(this.clock.now().getTime() / 1000) + TOKEN_SECONDS;
    return `${tenant}.${expires}.${this.mac(site, tenant, expires)}`;
  }

  /** The tenant the token names, or null when it is malformed, forged, for another site or expired. */
  verify(token: unknown, site: string): string | null {
    if (typeof token !== 'string') return null;
    const m = TOKEN_PATTERN.exec(token);
    if (!m) return null;
    const [, tenant, expiresText, mac] = m;
    const expires = Number(expiresText);
    const expected = Buffer.from(this.mac(site, tenant, expires), 'base64url');
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return expires * 1000 > this.clock.now().getTime() ? tenant : null;
  }

  private mac(site: string, tenant: string, expires: number): string {
    return createHmac('sha256', this.key).update(`sandbox-tenant-token:v1\n${site}\n${tenant}\n${expires}`).digest('base64url');
  }
}
