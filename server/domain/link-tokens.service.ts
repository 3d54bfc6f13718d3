import type { AppConfig } from '../config';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { LinkTokenRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { generateToken, hashToken } from './tokens';

export interface CreatedLinkToken {
  linkToken: string;
  record: LinkTokenRecord;
}

/** Link tokens start the connect flow for one end user; single use, short-lived. */
export class LinkTokenService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly catalogue: ProviderCatalogue,
    private readonly config: Pick<AppConfig, 'linkTokenTtlSeconds'>,
  ) {}

  async create(caller: Caller, input: { clientUserId: string; providerId?: string }): Promise<Result<CreatedLinkToken>> {
    if (input.providerId && !this.catalogue.get(input.providerId, caller.environment)) {
      return fail('UNKNOWN_PROVIDER', `providerId ${input.providerId} is not a ${caller.environment} provider; see GET /api/providers.`);
    }
    const now = this.clock.now();
    const linkToken = generateToken('link', caller.environment);
    const record: LinkTokenRecord = {
      id: newId('ltok'),
      tokenHash: hashToken(linkToken),
      organizationId: caller.organizationId,
      environment: caller.environment,
      clientUserId: input.clientUserId,
      providerId: input.providerId ?? null,
      connectionId: null,
      expiresAt: new Date(now.getTime() + this.config.linkTokenTtlSeconds * 1000),
      usedAt: null,
      createdAt: now,
    };
    await this.store.repos.linkTokens.insert(record);
    return ok({ linkToken, record });
  }
}
