import type { AppConfig } from '../config';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { AgentRequestRecord, LinkTokenRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { checkRedirectUri } from './redirect-uris/redirect-uri.policy';
import type { RedirectUriService } from './redirect-uris/redirect-uris.service';
import { generateToken, hashToken } from './tokens';

export interface NewLinkToken {
  clientUserId: string;
  providerId?: string;
  connectionId?: string;
  rememberCredentials?: boolean;
  enrollPasskey?: boolean;
  signIn?: 'auto' | 'live';
  completionRedirectUri?: string;
}

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
    private readonly config: Pick<AppConfig, 'linkTokenTtlSeconds' | 'internalUrl'>,
    private readonly redirectUris: Pick<RedirectUriService, 'isRegistered'>,
  ) {}

  async create(caller: Caller, input: NewLinkToken): Promise<Result<CreatedLinkToken>> {
    if (input.completionRedirectUri !== undefined && !(await this.redirectUris.isRegistered(caller, input.completionRedirectUri))) {
      return this.redirectNotAllowed(caller, input.completionRedirectUri);
    }
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
      enrollPasskey: input.enrollPasskey ?? false,
      signIn: input.signIn ?? 'auto',
      completionRedirectUri: input.completionRedirectUri ?? null,
      expiresAt: new Date(now.getTime() + this.config.linkTokenTtlSeconds * 1000),
      usedAt: null,
      createdAt: now,
    };
    await this.store.repos.linkTokens.insert(record);
    return ok({ linkToken, record });
  }

  /**
   * The link token that brings the end user into a paused agent request (userAction.linkToken): the connection's own
   * provider and user, valid until the pause expires. Made by the worker when the run pauses; never by a caller.
   */
  async createForUserAction(request: AgentRequestRecord, expiresAt: Date): Promise<string> {
    const connection = await this.store.repos.connections.findById(request.connectionId);
    const linkToken = generateToken('link', request.environment);
    await this.store.repos.linkTokens.insert({
      id: newId('ltok'),
      tokenHash: hashToken(linkToken),
      organizationId: request.organizationId,
      environment: request.environment,
      clientUserId: connection?.clientUserId ?? '',
      providerId: request.providerId,
      connectionId: request.connectionId,
      agentRequestId: request.id,
      // The run's browser is in this process: a widget call reaching another one is relayed here.
      hostUrl: this.config.internalUrl,
      rememberCredentials: false,
      signIn: 'live',
      completionRedirectUri: null,
      expiresAt,
      usedAt: null,
      createdAt: this.clock.now(),
    });
    return linkToken;
  }

  /** Not registered (matched exactly); the rule it breaks too, if any, since registering it would not help then. */
  private redirectNotAllowed(caller: Caller, uri: string): Result<CreatedLinkToken> {
    const verdict = checkRedirectUri(uri, caller.environment);
    const field = 'completionRedirectUri';
    if (!verdict.ok) {
      return fail('REDIRECT_URI_NOT_ALLOWED', `${field} ${verdict.reason}.`, { field, rule: verdict.rule });
    }
    return fail(
      'REDIRECT_URI_NOT_ALLOWED',
      `${field} is not one of your ${caller.environment} redirect URIs (matched exactly); register it with POST /api/redirect-uris.`,
      { field },
    );
  }
}
