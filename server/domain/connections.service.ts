import { type DeviceProfile, parseDevice } from '../browser/device-profile';
import { type ProviderSession, readSession } from '../browser/session-format';
import type { AppConfig } from '../config';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import {
  type AccessGrant,
  type ConnectionRecord,
  type ConnectionStatus,
  decodeKeysetCursor,
  encodeKeysetCursor,
  type KeysetPosition,
  type Store,
} from '../store';
import { resealAll, type ResealReport, type SealedPages, sealedValuesByKey } from '../vault/reseal';
import type { Vault } from '../vault/vault';
import type { Clock } from './clock';
import { ConnectionTokens, type ExchangedToken, type KnownGrant } from './connection-tokens';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { checkExitProxy, type ExitProxyInput, readExitProxy } from './exit-proxy';
import { newId } from './ids';
import type { WebhookEvents } from './webhooks/events.service';

export interface NewConnection {
  providerId: string;
  clientUserId: string;
  /** The session captured by a sign-in (server/browser/session-format.ts); sealed before it is stored. */
  session?: ProviderSession;
  /** The device the sign-in presented, which every later run of the connection presents too. */
  device?: DeviceProfile | null;
  /** Only when the organization opted in (link token rememberCredentials): sealed for silent re-login. */
  credentials?: LoginCredentials;
  /** The id to use, when the caller reserved one first (the connect flow claims its link token with it). */
  connectionId?: string;
}

export interface LoginCredentials {
  username: string;
  password: string;
}

export interface IssuedPublicToken {
  connection: ConnectionRecord;
  publicToken: string;
  expiresAt: Date;
}

/** The associated data that binds a sealed session to its connection row. */
export const sessionAad = (connectionId: string) => `connection:${connectionId}:session`;
/** The associated data that binds sealed credentials to their connection row. */
export const credentialsAad = (connectionId: string) => `connection:${connectionId}:credentials`;
/** The associated data that binds a sealed exit proxy (address and credentials) to its connection row. */
export const exitProxyAad = (connectionId: string) => `connection:${connectionId}:exit-proxy`;
/** The connection's own passkey (connection-passkeys.ts): bound to the connection, so no other row can open it. */
export const passkeyAad = (connectionId: string) => `connection:${connectionId}:passkey`;

export type { ProviderSession } from '../browser/session-format';
export type { ResealReport } from '../vault/reseal';
export type { ExchangedToken, KnownGrant } from './connection-tokens';

/** Connections, and the public → access token exchange that hands one to the caller's backend. */
export class ConnectionService {
  /** Public and access tokens of connections: issued, exchanged, resolved. */
  private readonly tokens: ConnectionTokens;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly vault: Vault,
    private readonly config: Pick<AppConfig, 'publicTokenTtlSeconds'>,
    /** CONNECTION.* webhook events (persisted before the call returns; delivered in the background). */
    private readonly webhooks?: WebhookEvents,
  ) {
    this.tokens = new ConnectionTokens(store, clock, config);
  }

  private readonly endedListeners: ((connectionId: string) => void)[] = [];

  /**
   * `fn` hears of each connection whose session stops being usable (revoked, LOGIN_REQUIRED) by this process: what
   * holds a copy of that session here (a browser context kept warm between runs) lets go of it at once.
   */
  onSessionEnded(fn: (connectionId: string) => void): void {
    this.endedListeners.push(fn);
  }

  private sessionEnded(connectionId: string): void {
    for (const fn of this.endedListeners) {
      try {
        fn(connectionId);
      } catch {
        // a listener's failure never fails the revoke
      }
    }
  }

  /** Creates an ACTIVE connection with its (sealed) session and the public token that claims it. */
  async create(caller: Caller, input: NewConnection): Promise<IssuedPublicToken> {
    const now = this.clock.now();
    const id = input.connectionId ?? newId('conn');
    const connection: ConnectionRecord = {
      id,
      organizationId: caller.organizationId,
      environment: caller.environment,
      providerId: input.providerId,
      clientUserId: input.clientUserId,
      status: 'ACTIVE',
      sealedSession: input.session === undefined ? null : this.sealSession(id, input.session),
      sealedCredentials: input.credentials ? this.sealCredentials(id, input.credentials) : null,
      device: input.device ? { ...input.device } : null,
      sealedExitProxy: null,
      exitProxyLabel: null,
      createdAt: now,
      updatedAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.store.repos.connections.insert(connection);
    const issued = { connection, ...(await this.tokens.issuePublicToken(caller, id, now)) };
    await this.webhooks?.connectionEvent(connection, 'CONNECTION.CREATED');
    return issued;
  }

  /**
   * Update mode: a fresh session for an existing connection, ACTIVE again, and a public token for the SDK's
   * onSuccess (exchanging it is optional: the connection's access tokens keep working). Credentials are kept
   * only when this flow opted in; otherwise any stored ones are dropped. The device the sign-in presented (the
   * connection's own, or one drawn for a connection that had none) is kept with it. A connection that was
   * LOGIN_REQUIRED recovered: CONNECTION.RECOVERED.
   */
  async reauthenticate(
    caller: Caller,
    connectionId: string,
    input: { session: ProviderSession; credentials?: LoginCredentials; device?: DeviceProfile | null },
  ): Promise<Result<IssuedPublicToken>> {
    const repos = this.store.repos;
    const existing = await repos.connections.findOwned(connectionId, caller);
    if (!existing) return fail('CONNECTION_NOT_FOUND', `No connection ${connectionId}.`);
    const now = this.clock.now();
    const sealedSession = this.sealSession(connectionId, input.session);
    const sealedCredentials = input.credentials ? this.sealCredentials(connectionId, input.credentials) : null;
    const device = input.device ? { ...input.device } : null;
    // Each attempt is one conditional UPDATE from a status it names, so the one that wins says whether this was a
    // recovery; a run marking the connection LOGIN_REQUIRED between two attempts only sends us round once more.
    let recovered: boolean | null = null;
    for (let attempt = 0; attempt < 3 && recovered === null; attempt++) {
      if (await repos.connections.reauthenticate(connectionId, 'LOGIN_REQUIRED', sealedSession, sealedCredentials, now, device))
        recovered = true;
      else if (await repos.connections.reauthenticate(connectionId, 'ACTIVE', sealedSession, sealedCredentials, now, device))
        recovered = false;
      else if ((await repos.connections.findById(connectionId))?.status === 'REVOKED') break;
    }
    if (recovered === null) return fail('CONNECTION_REVOKED', 'The connection was revoked.');
    const connection = (await repos.connections.findById(connectionId))!;
    if (recovered) await this.webhooks?.connectionEvent(connection, 'CONNECTION.RECOVERED');
    return ok({ connection, ...(await this.tokens.issuePublicToken(caller, connectionId, now)) });
  }

  /**
   * The connection an agent run works on, by id alone: the run's request row already carries (and was
   * checked for) its organization and environment. Whether it is usable is the caller's to check.
   */
  findForRun(connectionId: string): Promise<ConnectionRecord | null> {
    return this.store.repos.connections.findById(connectionId);
  }

  /**
   * The unsealed provider session of a connection (either format: server/browser/session-format.ts); null when none is
   * stored. Throws when it cannot be opened (another key) or is not a session this version can restore.
   */
  openSession(connection: Pick<ConnectionRecord, 'id' | 'sealedSession'>): ProviderSession | null {
    if (!connection.sealedSession) return null;
    return readSession(JSON.parse(this.vault.open(connection.sealedSession, sessionAad(connection.id))));
  }

  /** The connection's device, or null when it has none yet (or a stored one this version cannot use: a new one is drawn). */
  deviceOf(connection: Pick<ConnectionRecord, 'device'>): DeviceProfile | null {
    return parseDevice(connection.device);
  }

  /** Stores the device a run chose for a connection that had none, or the same device after a browser upgrade. */
  async keepDevice(connectionId: string, device: DeviceProfile): Promise<void> {
    await this.store.repos.connections.setDevice(connectionId, { ...device }, this.clock.now());
  }

  /** The upstream proxy the connection's traffic leaves through; null: direct. Throws when it cannot be opened (another key). */
  openExitProxy(connection: Pick<ConnectionRecord, 'id' | 'sealedExitProxy'>): UpstreamProxy | null {
    if (!connection.sealedExitProxy) return null;
    return readExitProxy(JSON.parse(this.vault.open(connection.sealedExitProxy, exitProxyAad(connection.id))));
  }

  /**
   * Sets (or with null, removes) the connection's exit: the upstream proxy every run, check and re-login of it goes
   * through from now on. Its address and credentials are sealed; only its label is shown.
   */
  async setExitProxy(caller: Caller, connectionId: string, input: ExitProxyInput | null): Promise<Result<ConnectionRecord>> {
    const repos = this.store.repos;
    const connection = await repos.connections.findOwned(connectionId, caller);
    if (!connection) return fail('CONNECTION_NOT_FOUND', `No connection ${connectionId}.`);
    if (connection.status === 'REVOKED') return fail('CONNECTION_REVOKED', 'The connection was revoked.');
    let sealed: string | null = null;
    let label: string | null = null;
    if (input) {
      const checked = checkExitProxy(input, caller.environment);
      if (!checked.ok) return checked;
      sealed = this.vault.seal(JSON.stringify(checked.value.proxy), exitProxyAad(connectionId));
      label = checked.value.label;
    }
    if (!(await repos.connections.setExitProxy(connectionId, sealed, label, this.clock.now()))) {
      return fail('CONNECTION_REVOKED', 'The connection was revoked.');
    }
    return ok((await repos.connections.findById(connectionId))!);
  }

  /**
   * Seals a fresh provider session onto the connection, only while it is still ACTIVE: one conditional UPDATE,
   * so a revoke or LOGIN_REQUIRED that lands after the caller read the connection wins and the live session is
   * dropped, never put back on a connection that should have none. `used` also marks the connection used (a
   * finished run). False when nothing was written.
   */
  saveSession(connectionId: string, session: ProviderSession, opts: { used?: boolean } = {}): Promise<boolean> {
    return this.store.repos.connections.setSessionIfActive(connectionId, this.sealSession(connectionId, session), this.clock.now(), opts);
  }

  /**
   * A run ended with the very session it was loaded with: the connection is marked used, as saveSession(…, { used })
   * would, without sealing and writing the same session again. False when it is no longer ACTIVE.
   */
  markUsed(connectionId: string): Promise<boolean> {
    return this.store.repos.connections.markUsedIfActive(connectionId, this.clock.now());
  }

  /**
   * A silent re-login renewed the provider session (a health check, or an agent run that found it ended): sealed onto
   * the connection, then CONNECTION.SESSION_RENEWED; a connection that was LOGIN_REQUIRED is ACTIVE again, and
   * CONNECTION.RECOVERED follows. What it did: 'renewed', 'recovered', or null (revoked meanwhile: nothing written).
   */
  async sessionRenewed(connectionId: string, session: ProviderSession): Promise<'renewed' | 'recovered' | null> {
    const repos = this.store.repos;
    let did: 'renewed' | 'recovered' | null = null;
    if (await this.saveSession(connectionId, session)) did = 'renewed';
    else if (await repos.connections.recover(connectionId, this.sealSession(connectionId, session), this.clock.now())) did = 'recovered';
    if (!did) return null;
    const connection = await repos.connections.findById(connectionId);
    if (connection) {
      await this.webhooks?.connectionEvent(connection, 'CONNECTION.SESSION_RENEWED');
      if (did === 'recovered') await this.webhooks?.connectionEvent(connection, 'CONNECTION.RECOVERED');
    }
    return did;
  }

  /**
   * A check found the session of a LOGIN_REQUIRED connection signed in after all (the provider was down, or let the user
   * back in): ACTIVE again with that session, and CONNECTION.RECOVERED. False when it was not LOGIN_REQUIRED.
   */
  async recoverSession(connectionId: string, session: ProviderSession): Promise<boolean> {
    const repos = this.store.repos;
    if (!(await repos.connections.recover(connectionId, this.sealSession(connectionId, session), this.clock.now()))) return false;
    const connection = await repos.connections.findById(connectionId);
    if (connection) await this.webhooks?.connectionEvent(connection, 'CONNECTION.RECOVERED');
    return true;
  }

  /** The sealed credentials of a connection, for silent re-login; null when none are stored. */
  openCredentials(connection: ConnectionRecord): LoginCredentials | null {
    if (!connection.sealedCredentials) return null;
    return JSON.parse(this.vault.open(connection.sealedCredentials, credentialsAad(connection.id))) as LoginCredentials;
  }

  /** Re-seals every stored session and credentials value with the vault's primary key (after a key rotation). */
  resealAll(opts: { batchSize?: number } = {}): Promise<ResealReport> {
    return resealAll(this.vault, this.sealedPages(), opts.batchSize);
  }

  /** How many stored sealed values each key id protects (for `vault status` and after a rotation). */
  sealedValuesByKey(): Promise<Record<string, number>> {
    return sealedValuesByKey(this.vault, this.sealedPages());
  }

  private sealedPages(): SealedPages {
    const repo = this.store.repos.connections;
    return async (after, limit) =>
      (await repo.listSealed(after, limit)).map((row) => ({
        id: row.id,
        values: [
          {
            value: row.sealedSession,
            aad: sessionAad(row.id),
            replace: (next: string) => repo.replaceSealed(row.id, 'sealedSession', row.sealedSession!, next),
          },
          {
            value: row.sealedCredentials,
            aad: credentialsAad(row.id),
            replace: (next: string) => repo.replaceSealed(row.id, 'sealedCredentials', row.sealedCredentials!, next),
          },
          {
            value: row.sealedExitProxy,
            aad: exitProxyAad(row.id),
            replace: (next: string) => repo.replaceSealed(row.id, 'sealedExitProxy', row.sealedExitProxy!, next),
          },
          {
            value: row.sealedPasskey ?? null,
            aad: passkeyAad(row.id),
            replace: (next: string) => repo.replaceSealed(row.id, 'sealedPasskey', row.sealedPasskey!, next),
          },
        ],
      }));
  }

  private sealSession(connectionId: string, session: ProviderSession): string {
    return this.vault.seal(JSON.stringify(session), sessionAad(connectionId));
  }

  private sealCredentials(connectionId: string, credentials: LoginCredentials): string {
    return this.vault.seal(
      JSON.stringify({ username: credentials.username, password: credentials.password }),
      credentialsAad(connectionId),
    );
  }

  async get(caller: Caller, connectionId: string): Promise<Result<ConnectionRecord>> {
    const connection = await this.store.repos.connections.findOwned(connectionId, caller);
    return connection ? ok(connection) : fail('CONNECTION_NOT_FOUND', `No connection ${connectionId}.`);
  }

  /** The caller's connections, newest first, optionally of one end user or status, one page at a time; the cursor is opaque to callers. */
  async list(
    caller: Caller,
    query: { limit: number; cursor?: string; clientUserId?: string; status?: ConnectionStatus },
  ): Promise<Result<{ records: ConnectionRecord[]; nextCursor: string | null }>> {
    let after: KeysetPosition | undefined;
    if (query.cursor) {
      const decoded = decodeKeysetCursor(query.cursor, 'conn');
      if (!decoded) return fail('INVALID_CURSOR', 'cursor is not a cursor this API returned; pass nextCursor of the previous page.');
      after = decoded;
    }
    const page = await this.store.repos.connections.listOwned(caller, {
      limit: query.limit,
      ...(after ? { after } : {}),
      ...(query.clientUserId !== undefined ? { clientUserId: query.clientUserId } : {}),
      ...(query.status ? { status: query.status } : {}),
    });
    return ok({ records: page.records, nextCursor: page.next ? encodeKeysetCursor(page.next) : null });
  }

  /** Revokes the connection and every access token it has. Revoking twice is not an error. */
  async revoke(caller: Caller, connectionId: string): Promise<Result<ConnectionRecord>> {
    const repos = this.store.repos;
    const connection = await repos.connections.findOwned(connectionId, caller);
    if (!connection) return fail('CONNECTION_NOT_FOUND', `No connection ${connectionId}.`);
    if (connection.status !== 'REVOKED') {
      const now = this.clock.now();
      await repos.accessTokens.revokeAllForConnection(connection.id, now);
      if (await repos.connections.revoke(connection.id, now)) {
        this.sessionEnded(connection.id);
        const revoked = (await repos.connections.findById(connection.id))!;
        await this.webhooks?.connectionEvent(revoked, 'CONNECTION.REVOKED');
        return ok(revoked);
      }
    }
    return ok((await repos.connections.findById(connection.id))!);
  }

  /** The provider session died and could not be renewed: ACTIVE → LOGIN_REQUIRED (once), with its webhook event. */
  async markLoginRequired(connectionId: string): Promise<void> {
    const repos = this.store.repos;
    if (await repos.connections.markLoginRequired(connectionId, this.clock.now())) {
      this.sessionEnded(connectionId);
      const connection = await repos.connections.findById(connectionId);
      if (connection) await this.webhooks?.connectionEvent(connection, 'CONNECTION.LOGIN_REQUIRED');
    }
  }

  /** The public → access token exchange (connection-tokens.ts). */
  exchangePublicToken(caller: Caller, publicToken: string): Promise<Result<ExchangedToken>> {
    return this.tokens.exchangePublicToken(caller, publicToken);
  }

  /** What this process remembers of an access token (connection-tokens.ts): usability is NOT remembered. */
  knownGrant(caller: Caller, accessToken: string): KnownGrant | null {
    return this.tokens.knownGrant(caller, accessToken);
  }

  /** An access token's usable connection, or precisely why it cannot be used (connection-tokens.ts). */
  resolveAccessToken(caller: Caller, accessToken: string): Promise<Result<AccessGrant['connection']>> {
    return this.tokens.resolveAccessToken(caller, accessToken);
  }
}
