import { seededDevice } from '../browser/device-identity';
import type { DeviceProfile } from '../browser/device-profile';
import type { VirtualCredential } from '../browser/webauthn-environment';
import type { Clock } from '../domain/clock';
import type { ConnectionPasskeys } from '../domain/connection-passkeys.service';
import type { ConnectionService } from '../domain/connections.service';
import { type ErrorCode, fail, ok, type Result } from '../domain/errors';
import { completionRedirectUrl, isEnded, type LinkSessionOutcome } from '../domain/link-completion';
import type { RedirectUriService } from '../domain/redirect-uris/redirect-uris.service';
import type { SignedAgent } from '../domain/signed-agent';
import { hashToken, parseToken } from '../domain/tokens';
import type { RequestSigner } from '../egress/request-signing';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderCatalogue, ProviderDefinition } from '../providers/catalogue';
import type { LinkSessionRecord, LinkSessionStatus, LinkTokenRecord, Store } from '../store';
import {
  CAPABILITIES,
  type LinkErrorDetails,
  type LinkSessionView,
  type LinkStepResult,
  scopeOf,
  widgetProvider,
} from './link-session-view';
import type { LoginEngine, StorageState } from './login-engine';
import type { UserActionLinks } from './user-action-link';

/**
 * What every step of the connect flow shares (link-session.service.ts and the steps it hands to: the login steps,
 * the live sign-in, a paused run's step): the link token's authorization of a widget call, the session's conditional
 * moves from step to step and its one reported end, the view, and this process's in-memory state of the flow.
 */
export interface LinkSessionDeps {
  store: Store;
  clock: Clock;
  catalogue: ProviderCatalogue;
  connections: ConnectionService;
  engine: LoginEngine;
  /** A link token's completionRedirectUri is checked again when its flow ends: a URI removed meanwhile gets nothing. */
  redirectUris: Pick<RedirectUriService, 'isRegistered'>;
  /** Told once for each link session that ends, however it ends (LINK.SESSION_FINISHED); must not throw. */
  onFinished?: (outcome: LinkSessionOutcome) => Promise<void>;
  /** This process's internal URL: recorded on a session whose in-memory part it takes on (server/connect/relay/). */
  hostUrl?: string;
  /** Paused agent runs: a link token made for one opens the widget on that run (user-action-link.ts). */
  userActions?: UserActionLinks;
  /** Where a passkey the person allowed AgentLink to keep is sealed with the new connection (enrollPasskey). */
  passkeys?: ConnectionPasskeys;
  /** Web Bot Auth: who signs a sign-in's requests, where the organization and the provider opted in (absent: never). */
  signing?: Pick<SignedAgent, 'signerFor'>;
}

/** What the link session service needs of the live sign-in (server/connect/live/), set at the composition root. */
export interface LiveSignInPort {
  /** Ends the link session's live browser, if any (the person left, or the flow ended). */
  close(linkSessionId: string): Promise<void>;
  /** The sealed-to-be session once the provider's signed-in signal appeared, and the device it presented; handed out once. */
  takeSignedIn(linkSessionId: string): { state: StorageState; device: DeviceProfile | null; passkey?: VirtualCredential } | null;
}

/**
 * Who a sign-in presents itself as. Update mode signs in as the connection it renews: its device and its exit, or the
 * provider would see a sign-in from a new device (null fields: the flow draws a device, and goes out directly).
 */
export interface SignInIdentity {
  device: DeviceProfile | null;
  exitProxy: UpstreamProxy | null;
  /** Web Bot Auth: the sign-in is signed as the connection's runs will be (null: unsigned). */
  signer: RequestSigner | null;
}

export const OPEN_STATES: LinkSessionStatus[] = ['CONSENT', 'PROVIDER', 'CREDENTIALS', 'MFA_TOTP', 'MFA_SMS', 'HUMAN_CHECK', 'USER_ACTION'];
export const LOGIN_STATES: LinkSessionStatus[] = ['CREDENTIALS', 'MFA_TOTP', 'MFA_SMS', 'HUMAN_CHECK'];

export interface Authorized {
  token: LinkTokenRecord;
  session: LinkSessionRecord;
}

export class LinkSessionFlow {
  /** Sessions with a login step in flight in this process: one step at a time per session. */
  readonly busy = new Set<string>();
  /** Sessions whose recipe met a step it does not know: the engine holds the page for the live view. */
  readonly handedOver = new Set<string>();
  live: LiveSignInPort | null = null;

  constructor(readonly deps: LinkSessionDeps) {}

  /**
   * This process now holds the session's in-memory part (a login that may pause at a code step, a live browser):
   * widget calls for it that reach another API process are relayed here.
   */
  async claimHost(sessionId: string): Promise<void> {
    if (this.deps.hostUrl) await this.deps.store.repos.linkSessions.setHost(sessionId, this.deps.hostUrl);
  }

  /** Paused agent runs, which a link token may be made for (absent: none; such a widget finds its step over). */
  get userActions(): UserActionLinks | undefined {
    return this.deps.userActions;
  }

  /**
   * Update mode: the connection's device and exit; a new connection: none yet. Either way signed where the organization
   * and the provider opted in, as the runs will be. Null when its exit cannot be opened.
   */
  async signInIdentity(token: LinkTokenRecord, provider: ProviderDefinition): Promise<SignInIdentity | null> {
    const { connections } = this.deps;
    const signer = (await this.deps.signing?.signerFor(token, provider)) ?? null;
    const connection = token.connectionId ? await connections.findForRun(token.connectionId) : null;
    if (!connection) return { device: null, exitProxy: null, signer };
    try {
      // Seeded as its runs seed it (deviceForRun): the sign-in presents the very device its runs do.
      const device = seededDevice(connections.deviceOf(connection), connection.id);
      return { device, exitProxy: connections.openExitProxy(connection), signer };
    } catch {
      return null; // sealed under a key this process does not have: never sign in around the exit
    }
  }

  /** Runs a login step (a form post, the live browser's finish): at one of `allowed`, with a provider, one at a time per session. */
  async loginStep(
    linkToken: string,
    sessionId: string,
    allowed: LinkSessionStatus[],
    run: (auth: Authorized, provider: ProviderDefinition) => Promise<Result<LinkStepResult>>,
  ): Promise<Result<LinkStepResult>> {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (!allowed.includes(session.status) || this.busy.has(session.id)) return this.stepNotAllowed(session);
    const provider = session.providerId ? await this.deps.catalogue.find(session.providerId, scopeOf(token)) : undefined;
    if (!provider) return this.stepNotAllowed(session);
    this.busy.add(session.id);
    try {
      return await run(auth.value, provider);
    } finally {
      this.busy.delete(session.id);
    }
  }

  tokenRefusal(token: LinkTokenRecord, now: Date): { code: ErrorCode; message: string } | null {
    // A paused run's link past its step (its pause expired): the step is over, not a connection link to start again.
    if (token.agentRequestId && (token.usedAt || token.expiresAt.getTime() <= now.getTime()))
      return { code: 'USER_ACTION_OVER', message: 'This step is over: the task is not waiting for this any more.' };
    if (token.usedAt) return { code: 'LINK_TOKEN_ALREADY_USED', message: 'This link was already used to connect an account.' };
    if (token.expiresAt.getTime() <= now.getTime()) return { code: 'LINK_TOKEN_EXPIRED', message: 'This link has expired.' };
    return null;
  }

  /** The link token authorizes the widget's calls for the sessions it opened. */
  async authorize(linkToken: string, sessionId: string, opts: { allowClosedToken?: boolean } = {}): Promise<Result<Authorized>> {
    const parsed = parseToken(linkToken);
    if (!parsed || parsed.kind !== 'link') return this.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
    const { store, clock } = this.deps;
    const token = await store.repos.linkTokens.findByHash(hashToken(linkToken));
    if (!token) return this.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
    const session = await store.repos.linkSessions.findById(sessionId);
    if (!session || session.linkTokenId !== token.id)
      return this.fail('LINK_SESSION_NOT_FOUND', 'No such link session for this link.', null);
    if (!opts.allowClosedToken && OPEN_STATES.includes(session.status)) {
      const refusal = this.tokenRefusal(token, clock.now());
      if (refusal) {
        await this.deps.engine.cancel(session.id);
        await this.end(session, 'FAILED', refusal.code, refusal.message);
        return this.fail(refusal.code, refusal.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
      }
    }
    return ok({ token, session });
  }

  async fixedProvider(token: LinkTokenRecord): Promise<ProviderDefinition | undefined> {
    return token.providerId ? this.deps.catalogue.find(token.providerId, scopeOf(token)) : undefined;
  }

  /** Moves the session on (a conditional UPDATE); false when a concurrent step moved it first. */
  async move(session: LinkSessionRecord, from: LinkSessionStatus[], patch: Partial<LinkSessionRecord>): Promise<boolean> {
    return this.deps.store.repos.linkSessions.transition(session.id, from, { ...patch, updatedAt: this.deps.clock.now() });
  }

  /**
   * Ends an open session. Only the caller whose conditional UPDATE ended it reports the end: two exits, an exit racing
   * a failing step, or a call relayed from another process report it once between them.
   */
  async end(session: LinkSessionRecord, status: 'FAILED' | 'EXITED', errorCode: string, errorMessage: string | null) {
    const now = this.deps.clock.now();
    const ended = await this.deps.store.repos.linkSessions.transition(session.id, OPEN_STATES, {
      status,
      errorCode,
      errorMessage,
      completedAt: now,
      updatedAt: now,
    });
    if (ended) await this.finished({ session: await this.reload(session), publicToken: null });
    return ended;
  }

  async finished(outcome: LinkSessionOutcome): Promise<void> {
    await this.deps.onFinished?.(outcome);
  }

  /**
   * The completion redirect of an ended session whose link token names a completionRedirectUri, if that URI is still
   * registered (checked again now: one the organization removed meanwhile receives nothing). Undefined otherwise.
   */
  async redirectFor(token: LinkTokenRecord, outcome: LinkSessionOutcome): Promise<string | undefined> {
    const uri = token.completionRedirectUri;
    if (!uri || !isEnded(outcome.session)) return undefined;
    if (!(await this.deps.redirectUris.isRegistered(token, uri))) return undefined;
    return completionRedirectUrl(uri, outcome) ?? undefined;
  }

  async reload(session: LinkSessionRecord): Promise<LinkSessionRecord> {
    return (await this.deps.store.repos.linkSessions.findById(session.id)) ?? session;
  }

  details(session: LinkSessionRecord, retryable: boolean): LinkErrorDetails {
    return { linkSessionId: session.id, status: session.status, retryable };
  }

  stepNotAllowed<T>(session: LinkSessionRecord): Result<T> {
    return this.fail(
      'LINK_STEP_NOT_ALLOWED',
      OPEN_STATES.includes(session.status)
        ? `The connect flow is at step ${session.status}, or another step is still running.`
        : `The connect flow already ended (${session.status}).`,
      this.details(session, false),
    );
  }

  fail<T>(code: ErrorCode, message: string, details: LinkErrorDetails | null, fieldIssues?: unknown): Result<T> {
    const base = details ?? { linkSessionId: null, status: null, retryable: false };
    return fail(code, message, fieldIssues ? { ...base, issues: fieldIssues } : base);
  }

  async view(session: LinkSessionRecord, token: LinkTokenRecord): Promise<LinkSessionView> {
    const { catalogue, store } = this.deps;
    const org = await store.repos.organizations.findById(session.organizationId);
    const fixed = await this.fixedProvider(token);
    const chosen = session.providerId ? await catalogue.find(session.providerId, scopeOf(session)) : undefined;
    const provider = chosen ?? fixed;
    return {
      linkSessionId: session.id,
      status: session.status,
      environment: session.environment,
      mode: session.mode,
      organization: { name: org?.name ?? 'This app' },
      provider: provider ? widgetProvider(provider) : null,
      providerFixed: !!fixed,
      providers: fixed ? [] : (await catalogue.listFor(scopeOf(session))).map((p) => widgetProvider(p)),
      capabilities: (provider && CAPABILITIES[provider.category]) || CAPABILITIES.any,
      rememberCredentials: token.rememberCredentials,
      mfa: session.status === 'MFA_TOTP' ? { method: 'totp' } : session.status === 'MFA_SMS' ? { method: 'sms' } : null,
      ...this.signInMode(session, token, provider),
      completionRedirect: token.completionRedirectUri !== null,
      userAction: session.mode === 'user_action' ? ((await this.userActions?.viewOf(token)) ?? null) : null,
    };
  }

  signInMode(
    session: LinkSessionRecord,
    token: LinkTokenRecord,
    provider: ProviderDefinition | undefined,
  ): Pick<LinkSessionView, 'signIn' | 'liveReason'> {
    if (token.signIn === 'live') return { signIn: 'live', liveReason: 'requested' };
    if (provider && !provider.login) return { signIn: 'live', liveReason: 'no_recipe' };
    if (this.handedOver.has(session.id)) return { signIn: 'live', liveReason: 'unknown_step' };
    return { signIn: 'form', liveReason: null };
  }
}
