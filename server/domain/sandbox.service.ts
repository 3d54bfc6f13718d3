import type { ProviderCatalogue } from '../providers/catalogue';
import type { ConnectionService, ProviderSession } from './connections.service';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/**
 * The simulated provider sites, as this service needs them. The composition root hands in the sandbox kit's
 * implementation (server/sandbox/simulated-sites.ts), so domain/ never imports the kit.
 */
export interface SandboxSites {
  /** A real, logged-in session of a test user on a simulated site (Playwright storage state), or why not. */
  mint(
    caller: Caller,
    siteSlug: string,
    username: string,
  ): Promise<{ ok: true; session: ProviderSession } | { ok: false; reason: 'NO_SITE' | 'UNKNOWN_TEST_USER' | 'LOCKED_TEST_USER' }>;
  /** Resets the caller's copy of a site to its seed content. */
  reset(caller: Caller, siteSlug: string): Promise<void>;
}

/** The Plaid-style sandbox shortcut: a connection and its public token without going through the widget. */
export class SandboxService {
  constructor(
    private readonly catalogue: ProviderCatalogue,
    private readonly connections: ConnectionService,
    private readonly sites: SandboxSites,
  ) {}

  /** Resets the organization's copy of every simulated site to its seed content. */
  async reset(caller: Caller): Promise<Result<{ providerIds: string[] }>> {
    if (caller.environment !== 'sandbox')
      return fail('SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
    const providers = this.catalogue.list('sandbox');
    for (const p of providers) await this.sites.reset(caller, p.slug);
    return ok({ providerIds: providers.map((p) => p.providerId) });
  }

  async createPublicToken(
    caller: Caller,
    input: { providerId: string; clientUserId: string; username?: string },
  ): Promise<Result<{ publicToken: string; expiresAt: Date }>> {
    if (caller.environment !== 'sandbox')
      return fail('SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
    const provider = this.catalogue.get(input.providerId, 'sandbox');
    if (!provider) return fail('UNKNOWN_PROVIDER', `providerId ${input.providerId} is not a sandbox provider; see GET /api/providers.`);
    const username = input.username ?? 'user_good';
    const minted = await this.sites.mint(caller, provider.slug, username);
    if (!minted.ok) {
      switch (minted.reason) {
        case 'UNKNOWN_TEST_USER':
          return fail('UNKNOWN_TEST_USER', `${username} is not a sandbox test user (try user_good).`);
        case 'LOCKED_TEST_USER':
          return fail('SANDBOX_LOGIN_FAILED', `${username} cannot log in: the account is locked.`);
        case 'NO_SITE':
          return fail('SANDBOX_LOGIN_FAILED', `${provider.name} has no simulated site to sign in to; connect it through the widget.`);
      }
    }
    const created = await this.connections.create(caller, {
      providerId: provider.providerId,
      clientUserId: input.clientUserId,
      session: minted.session,
    });
    return ok({ publicToken: created.publicToken, expiresAt: created.expiresAt });
  }
}
