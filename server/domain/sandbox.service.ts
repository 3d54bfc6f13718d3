import type { ProviderCatalogue } from '../providers/catalogue';
import { resetTenant } from '../sandbox/kit/seeding';
import { tenantFor } from '../sandbox/site-sessions';
import type { Store } from '../store';
import { findTestUser } from '../sandbox/test-users';
import type { ConnectionService } from './connections.service';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/** Mints a real, logged-in session on a simulated provider site for a test user (Playwright storage state). */
export interface SandboxSessionMinter {
  mint(caller: Caller, providerSlug: string, username: string): Promise<unknown>;
}

/** The Plaid-style sandbox shortcut: a connection and its public token without going through the widget. */
export class SandboxService {
  constructor(
    private readonly catalogue: ProviderCatalogue,
    private readonly connections: ConnectionService,
    private readonly sessions: SandboxSessionMinter,
    private readonly store: Store,
  ) {}

  /** Resets the organization's copy of every simulated site to its seed content. */
  async reset(caller: Caller): Promise<Result<{ providerIds: string[] }>> {
    if (caller.environment !== 'sandbox') return fail('SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
    const providers = this.catalogue.list('sandbox');
    for (const p of providers) await resetTenant(this.store, p.slug, tenantFor(caller.organizationId));
    return ok({ providerIds: providers.map((p) => p.providerId) });
  }

  async createPublicToken(
    caller: Caller,
    input: { providerId: string; clientUserId: string; username?: string },
  ): Promise<Result<{ publicToken: string; expiresAt: Date }>> {
    if (caller.environment !== 'sandbox') return fail('SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
    const provider = this.catalogue.get(input.providerId, 'sandbox');
    if (!provider) return fail('UNKNOWN_PROVIDER', `providerId ${input.providerId} is not a sandbox provider; see GET /api/providers.`);
    const username = input.username ?? 'user_good';
    const user = findTestUser(username);
    if (!user) return fail('UNKNOWN_TEST_USER', `${username} is not a sandbox test user (try user_good).`);
    if (user.behaviour === 'locked') return fail('SANDBOX_LOGIN_FAILED', `${username} cannot log in: the account is locked.`);
    const session = await this.sessions.mint(caller, provider.slug, username);
    const created = await this.connections.create(caller, { providerId: provider.providerId, clientUserId: input.clientUserId, session });
    return ok({ publicToken: created.publicToken, expiresAt: created.expiresAt });
  }
}
