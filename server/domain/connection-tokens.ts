import type { AppConfig, Environment } from '../config';
import type { AccessGrant, ConnectionRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { generateToken, hashToken, parseToken } from './tokens';

export interface ExchangedToken {
  accessToken: string;
  connection: ConnectionRecord;
}

/** An access token's fixed facts, remembered from an earlier resolution (see knownGrant). */
export interface KnownGrant {
  tokenHash: string;
  connectionId: string;
  providerId: string;
}

const KNOWN_GRANTS_MAX = 10_000;

/**
 * The tokens of connections (ConnectionService's part): a public token issued when a connection is made or renewed,
 * exchanged once for an access token by the caller's backend, and access tokens resolved to their connection.
 */
export class ConnectionTokens {
  /** Token hash → its organization, environment, connection and provider (facts that never change for a token). */
  private readonly grants = new Map<
    string,
    { organizationId: string; environment: Environment; connectionId: string; providerId: string }
  >();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: Pick<AppConfig, 'publicTokenTtlSeconds'>,
  ) {}

  async issuePublicToken(caller: Caller, connectionId: string, now: Date): Promise<{ publicToken: string; expiresAt: Date }> {
    const publicToken = generateToken('public', caller.environment);
    const expiresAt = new Date(now.getTime() + this.config.publicTokenTtlSeconds * 1000);
    await this.store.repos.publicTokens.insert({
      id: newId('ptok'),
      tokenHash: hashToken(publicToken),
      organizationId: caller.organizationId,
      environment: caller.environment,
      connectionId,
      expiresAt,
      exchangedAt: null,
      createdAt: now,
    });
    return { publicToken, expiresAt };
  }

  async exchangePublicToken(caller: Caller, publicToken: string): Promise<Result<ExchangedToken>> {
    const parsed = parseToken(publicToken);
    if (!parsed || parsed.kind !== 'public') {
      return fail('PUBLIC_TOKEN_MALFORMED', 'publicToken is not a public token (expected public-<environment>-…).');
    }
    if (parsed.environment !== caller.environment) {
      return fail(
        'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH',
        `publicToken belongs to the ${parsed.environment} environment, but the credentials are ${caller.environment} credentials.`,
      );
    }
    const repos = this.store.repos;
    const token = await repos.publicTokens.findByHash(hashToken(publicToken));
    if (!token) return fail('INVALID_PUBLIC_TOKEN', 'publicToken is not known.');
    if (token.organizationId !== caller.organizationId) {
      return fail('PUBLIC_TOKEN_ORGANIZATION_MISMATCH', 'publicToken was issued to another organization.');
    }
    const now = this.clock.now();
    if (token.exchangedAt)
      return fail('PUBLIC_TOKEN_ALREADY_USED', 'publicToken was already exchanged; each public token is exchangeable once.');
    if (token.expiresAt.getTime() <= now.getTime()) {
      return fail('PUBLIC_TOKEN_EXPIRED', 'publicToken expired; run the connect flow again for a new one.');
    }
    const connection = await repos.connections.findById(token.connectionId);
    if (!connection || connection.status === 'REVOKED') {
      return fail('CONNECTION_REVOKED', 'The connection of this publicToken was revoked.');
    }
    // The conditional claim decides between concurrent exchanges; only the winner mints an access token.
    if (!(await repos.publicTokens.claimExchange(token.id, now))) {
      return fail('PUBLIC_TOKEN_ALREADY_USED', 'publicToken was already exchanged; each public token is exchangeable once.');
    }
    const accessToken = generateToken('access', caller.environment);
    try {
      await repos.accessTokens.insert({
        id: newId('atok'),
        tokenHash: hashToken(accessToken),
        organizationId: caller.organizationId,
        environment: caller.environment,
        connectionId: connection.id,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      });
    } catch (err) {
      // Give the claim back so the caller can retry instead of losing the connection.
      await repos.publicTokens.releaseExchange(token.id);
      throw err;
    }
    return ok({ accessToken, connection });
  }

  /**
   * The connection and provider of an access token this process resolved before, for this caller. They never
   * change for a token, so they can be remembered; whether the token and its connection are still usable is
   * NOT remembered and must be checked by the caller (AgentRequestRepository.insertIfGranted does, atomically).
   */
  knownGrant(caller: Caller, accessToken: string): KnownGrant | null {
    const parsed = parseToken(accessToken);
    if (!parsed || parsed.kind !== 'access' || parsed.environment !== caller.environment) return null;
    const tokenHash = hashToken(accessToken);
    const known = this.grants.get(tokenHash);
    if (!known || known.organizationId !== caller.organizationId || known.environment !== caller.environment) return null;
    return { tokenHash, connectionId: known.connectionId, providerId: known.providerId };
  }

  /** Resolves an access token to its usable connection, or says precisely why it cannot be used. */
  async resolveAccessToken(caller: Caller, accessToken: string): Promise<Result<AccessGrant['connection']>> {
    const invalid = fail<AccessGrant['connection']>(
      'INVALID_ACCESS_TOKEN',
      'accessToken is not valid (unknown, revoked, or not issued to these credentials).',
    );
    const parsed = parseToken(accessToken);
    if (!parsed || parsed.kind !== 'access') return invalid;
    if (parsed.environment !== caller.environment) {
      return fail(
        'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
        `accessToken belongs to the ${parsed.environment} environment, but the credentials are ${caller.environment} credentials.`,
      );
    }
    const tokenHash = hashToken(accessToken);
    const grant = await this.store.repos.accessTokens.findGrant(tokenHash);
    if (!grant || grant.revoked || grant.organizationId !== caller.organizationId || grant.environment !== caller.environment)
      return invalid;
    const { connection } = grant;
    if (this.grants.size >= KNOWN_GRANTS_MAX) this.grants.delete(this.grants.keys().next().value!);
    this.grants.set(tokenHash, {
      organizationId: grant.organizationId,
      environment: grant.environment,
      connectionId: connection.id,
      providerId: connection.providerId,
    });
    if (connection.status === 'REVOKED') return invalid;
    if (connection.status === 'LOGIN_REQUIRED') {
      return fail(
        'CONNECTION_LOGIN_REQUIRED',
        'The provider session of this connection ended; send the user through the connect flow again (update mode).',
      );
    }
    return ok(connection);
  }
}
