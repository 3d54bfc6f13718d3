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

  async create(
    caller: Caller,
    input: { clientUserId: string; providerId?: string; connectionId?: string; rememberCredentials?: boolean; signIn?: 'auto' | 'live' },
  ): Promise<Result<CreatedLinkToken>> {
    if (input.providerId && !(await this.catalogue.find(input.providerId, caller))) {
      return fail('UNKNOWN_PROVIDER', `providerId ${input.providerId} is not a ${caller.environment} provider; see GET /api/providers.`);
    }
    let providerId = input.providerId ?? null;
    if (input.connectionId) {
      // Update mode (Plaid): the flow re-authenticates this connection, so it fixes provider and end user.
      const connection = await this.store.repos.connections.findOwned(input.connectionId, caller);
      if (!connection) return fail('CONNECTION_NOT_FOUND', `No connection ${input.connectionId}.`);
      if (connection.status === 'REVOKED')
        return fail('CONNECTION_REVOKED', 'The connection was revoked; create a new one instead (omit connectionId).');
      const mismatch = (path: string, message: string) =>
        fail<CreatedLinkToken>('INVALID_FIELD', `${path}: ${message}`, [{ path, message }]);
      if (input.clientUserId !== connection.clientUserId) return mismatch('clientUserId', 'must be the clientUserId of the connection');
      if (providerId && providerId !== connection.providerId) return mismatch('providerId', 'must be the providerId of the connection');
      providerId = connection.providerId;
    }
    const now = this.clock.now();
    const linkToken = generateToken('link', caller.environment);
    const record: LinkTokenRecord = {
      id: newId('ltok'),
      tokenHash: hashToken(linkToken),
      organizationId: caller.organizationId,
      environment: caller.environment,
      clientUserId: input.clientUserId,
      providerId,
      connectionId: input.connectionId ?? null,
      rememberCredentials: input.rememberCredentials ?? false,
      signIn: input.signIn ?? 'auto',
      completionRedirectUri: null,
      expiresAt: new Date(now.getTime() + this.config.linkTokenTtlSeconds * 1000),
      usedAt: null,
      createdAt: now,
    };
    await this.store.repos.linkTokens.insert(record);
    return ok({ linkToken, record });
  }
}
