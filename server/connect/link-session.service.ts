import type { AgentLinkMetadata } from '../../contract/link-messages';
import type { RunHandoff } from '../agent/handoff/run-handoff';
import type { DeviceProfile } from '../browser/device-profile';
import type { Environment } from '../config';
import type { Clock } from '../domain/clock';
import type { ConnectionService, IssuedPublicToken, LoginCredentials } from '../domain/connections.service';
import type { Caller } from '../domain/context';
import { type ErrorCode, fail, ok, type Result } from '../domain/errors';
import { newId } from '../domain/ids';
import { completionRedirectUrl, isEnded, type LinkSessionOutcome } from '../domain/link-completion';
import type { RedirectUriService } from '../domain/redirect-uris/redirect-uris.service';
import { hashToken, parseToken } from '../domain/tokens';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderCatalogue, ProviderDefinition } from '../providers/catalogue';
import { providerLogoDataUrl } from '../providers/provider';
import type { LinkSessionRecord, LinkSessionStatus, LinkTokenRecord, Store } from '../store';
import type { LoginEngine, LoginOutcome, StorageState } from './login-engine';
import type { UserActionAnswer, UserActionLinks, UserActionView } from './user-action-link';

/**
 * The connect flow behind the hosted widget (Plaid's link session). Each opening of the widget with a link
 * token is a link session, persisted step by step:
 *
 *   CONSENT → PROVIDER → CREDENTIALS → (MFA_TOTP | MFA_SMS | HUMAN_CHECK) → SUCCEEDED
 *                                 ↑__________ retry (wrong password, locked, unavailable) __|
 *   any open step → FAILED (the link token expired or was used meanwhile) | EXITED (the person left)
 *
 * The widget never logs in by itself: credentials go to the login engine, which drives the provider's page;
 * its code and human-check steps are relayed back to the widget. Expected failures are returned as Results
 * with a stable code, never thrown; `details` tells the widget where the flow now stands.
 */
export interface WidgetProvider {
  providerId: string;
  name: string;
  slug: string;
  category: 'social' | 'developer';
  logo: string;
  /** What the provider calls its username field. */
  usernameLabel: string;
}

/** What the link session service needs of the live sign-in (server/connect/live/), set at the composition root. */
export interface LiveSignInPort {
  /** Ends the link session's live browser, if any (the person left, or the flow ended). */
  close(linkSessionId: string): Promise<void>;
  /** The sealed-to-be session once the provider's signed-in signal appeared, and the device it presented; handed out once. */
  takeSignedIn(linkSessionId: string): { state: StorageState; device: DeviceProfile | null } | null;
}

/**
 * Who a sign-in presents itself as. Update mode signs in as the connection it renews: its device and its exit, or the
 * provider would see a sign-in from a new device (null fields: the flow draws a device, and goes out directly).
 */
export interface SignInIdentity {
  device: DeviceProfile | null;
  exitProxy: UpstreamProxy | null;
}

export interface LinkSessionView {
  linkSessionId: string;
  status: LinkSessionStatus;
  environment: Environment;
  mode: 'create' | 'update' | 'user_action';
  organization: { name: string };
  /** The provider chosen (or fixed by the link token); null until then. */
  provider: WidgetProvider | null;
  /** The link token fixes the provider: the picker is skipped. */
  providerFixed: boolean;
  /** The picker's choices (empty when the provider is fixed). */
  providers: WidgetProvider[];
  /** What the organization will be able to do with the connection (consent screen). */
  capabilities: string[];
  rememberCredentials: boolean;
  mfa: { method: 'totp' | 'sms' } | null;
  /**
   * How the person signs in at the CREDENTIALS step: 'form' (username and password, the recipe fills the provider's
   * form) or 'live' (the provider's real page streamed into the widget); `liveReason` says why it is live.
   */
  signIn: 'form' | 'live';
  liveReason: 'requested' | 'no_recipe' | 'unknown_step' | null;
  /**
   * The link token names a completionRedirectUri: opened as a plain page (not by the SDK), the widget sends the
   * browser there when the flow ends (the URL comes with the final step's answer).
   */
  completionRedirect: boolean;
  /** Mode user_action: the paused run the person is brought into (user-action-link.ts). */
  userAction: UserActionView | null;
}

export interface LinkStepResult {
  view: LinkSessionView;
  /**
   * Present once the connection is made: what the widget hands to the SDK, and, for a hosted link, the completion
   * redirect (completionRedirectUri with public_token, link_session_id and status in its query).
   */
  success?: { publicToken: string; metadata: AgentLinkMetadata; redirectUrl?: string };
}

/** The answer to the widget's exit: how the session ended and, for a hosted link, where the browser goes now. */
export interface LinkExitResult {
  linkSessionId: string;
  status: LinkSessionStatus;
  redirectUrl?: string;
}

/** What the widget learns with an error: where the flow stands, and whether the same step can be tried again. */
export interface LinkErrorDetails {
  linkSessionId: string | null;
  status: LinkSessionStatus | null;
  retryable: boolean;
}

/** Sign-in attempts allowed per link token, over all of its link sessions. */
export const MAX_LOGIN_ATTEMPTS = 10;
/** Link sessions (openings of the widget) allowed per link token. */
export const MAX_SESSIONS_PER_LINK_TOKEN = 5;

const OPEN_STATES: LinkSessionStatus[] = ['CONSENT', 'PROVIDER', 'CREDENTIALS', 'MFA_TOTP', 'MFA_SMS', 'HUMAN_CHECK', 'USER_ACTION'];
const LOGIN_STATES: LinkSessionStatus[] = ['CREDENTIALS', 'MFA_TOTP', 'MFA_SMS', 'HUMAN_CHECK'];

const CAPABILITIES: Record<WidgetProvider['category'] | 'any', string[]> = {
  social: ['See your profile, feed, connections and messages', 'Post, comment, react and send messages as you, when you ask it to'],
  developer: [
    'See your repositories, issues, pull requests and notifications',
    'Open and comment on issues and star repositories as you, when you ask it to',
  ],
  any: ['See what your account can see on the site you choose', 'Take actions as you on that site, when you ask it to'],
};

interface Authorized {
  token: LinkTokenRecord;
  session: LinkSessionRecord;
}

export class LinkSessionService {
  /** Sessions with a login step in flight in this process: one step at a time per session. */
  private readonly busy = new Set<string>();
  /** Sessions whose recipe met a step it does not know: the engine holds the page for the live view. */
  private readonly handedOver = new Set<string>();
  private live: LiveSignInPort | null = null;

  constructor(
    private readonly deps: {
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
    },
  ) {}

  private get userActions(): UserActionLinks | undefined {
    return this.deps.userActions;
  }

  /**
   * This process now holds the session's in-memory part (a login that may pause at a code step, a live browser):
   * widget calls for it that reach another API process are relayed here.
   */
  async claimHost(sessionId: string): Promise<void> {
    if (this.deps.hostUrl) await this.deps.store.repos.linkSessions.setHost(sessionId, this.deps.hostUrl);
  }

  /** The other API process holding this open session's in-memory part, if any (the relay forwards its calls there). */
  async holderOf(sessionId: string): Promise<string | null> {
    if (!this.deps.hostUrl) return null;
    const session = await this.deps.store.repos.linkSessions.findById(sessionId);
    if (!session?.hostUrl || session.hostUrl === this.deps.hostUrl || !OPEN_STATES.includes(session.status)) return null;
    return session.hostUrl;
  }

  /** A holder that could not be reached is forgotten: this process carries on with what the database knows. */
  async forget(sessionId: string, hostUrl: string): Promise<void> {
    await this.deps.store.repos.linkSessions.clearHost(sessionId, hostUrl);
  }

  /** Connects the live sign-in (built after this service, since it authorizes through it). */
  attachLive(live: LiveSignInPort): void {
    this.live = live;
  }

  /** Opens a link session for a link token (each opening of the widget is one). */
  async start(linkToken: string, env?: Environment): Promise<Result<LinkSessionView>> {
    const parsed = parseToken(linkToken);
    if (!parsed || parsed.kind !== 'link') return this.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
    if (env && parsed.environment !== env) {
      return this.fail(
        'LINK_TOKEN_ENVIRONMENT_MISMATCH',
        `The link token belongs to the ${parsed.environment} environment, but the app opened the ${env} environment.`,
        null,
      );
    }
    const { store, clock } = this.deps;
    const token = await store.repos.linkTokens.findByHash(hashToken(linkToken));
    if (!token) return this.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
    const now = clock.now();
    const forRun = !!token.agentRequestId;
    const session: LinkSessionRecord = {
      id: newId('lses'),
      linkTokenId: token.id,
      organizationId: token.organizationId,
      environment: token.environment,
      clientUserId: token.clientUserId,
      mode: forRun ? 'user_action' : token.connectionId ? 'update' : 'create',
      providerId: token.providerId,
      connectionId: token.connectionId,
      status: forRun ? 'USER_ACTION' : 'CONSENT',
      errorCode: null,
      errorMessage: null,
      attempts: 0,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
      // A paused run's browser lives in the worker process that holds it: its widget calls are relayed there.
      ...(forRun && token.hostUrl && token.hostUrl !== this.deps.hostUrl ? { hostUrl: token.hostUrl } : {}),
    };
    const opened = (await store.repos.linkSessions.listForLinkToken(token.id)).length;
    // Refused openings are recorded too, so the organization can see them (up to the cap, so rows stay bounded).
    const refusal = this.tokenRefusal(token, now);
    if (refusal && opened >= MAX_SESSIONS_PER_LINK_TOKEN) return this.fail(refusal.code, refusal.message, null);
    if (!refusal && opened >= MAX_SESSIONS_PER_LINK_TOKEN) {
      return this.fail('TOO_MANY_LINK_SESSIONS', 'This link was opened too many times. Start again from the app.', null);
    }
    if (refusal) {
      const failed: LinkSessionRecord = {
        ...session,
        status: 'FAILED',
        errorCode: refusal.code,
        errorMessage: refusal.message,
        completedAt: now,
      };
      await store.repos.linkSessions.insert(failed);
      // A session that ends as it opens is still a session that ended: the organization hears of it like any other.
      await this.finished({ session: failed, publicToken: null });
      return this.fail(refusal.code, refusal.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    await store.repos.linkSessions.insert(session);
    return ok(await this.view(session, token));
  }

  /** The person agreed; on to the provider picker (or straight to the login when the provider is fixed). */
  async consent(linkToken: string, sessionId: string): Promise<Result<LinkSessionView>> {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status === 'CONSENT') {
      const next: LinkSessionStatus = (await this.fixedProvider(token)) ? 'CREDENTIALS' : 'PROVIDER';
      await this.move(session, ['CONSENT'], { status: next });
    } else if (session.status !== 'PROVIDER' && session.status !== 'CREDENTIALS') {
      return this.stepNotAllowed(session);
    }
    return ok(await this.view(await this.reload(session), token));
  }

  /** The provider picked in the widget. Allowed again from the login step ("use a different provider"). */
  async selectProvider(linkToken: string, sessionId: string, providerId: string): Promise<Result<LinkSessionView>> {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'PROVIDER' && session.status !== 'CREDENTIALS') return this.stepNotAllowed(session);
    if (this.busy.has(session.id)) return this.stepNotAllowed(session);
    const fixed = await this.fixedProvider(token);
    if (fixed && fixed.providerId !== providerId) {
      return this.fail('INVALID_FIELD', 'providerId: this link is for another provider.', this.details(session, true), [
        { path: 'providerId', message: 'this link is for another provider' },
      ]);
    }
    const provider = await this.deps.catalogue.find(providerId, scopeOf(token));
    if (!provider)
      return this.fail('UNKNOWN_PROVIDER', `providerId ${providerId} is not a ${token.environment} provider.`, this.details(session, true));
    await this.move(session, ['PROVIDER', 'CREDENTIALS'], { status: 'CREDENTIALS', providerId });
    return ok(await this.view(await this.reload(session), token));
  }

  /** The person's credentials: the engine signs in on the provider's page and the flow follows what it saw. */
  async submitCredentials(linkToken: string, sessionId: string, credentials: LoginCredentials): Promise<Result<LinkStepResult>> {
    return this.loginStep(linkToken, sessionId, LOGIN_STATES, async ({ token, session }, provider) => {
      // Attempts count per link token: opening more sessions does not buy more password guesses.
      const siblings = await this.deps.store.repos.linkSessions.listForLinkToken(token.id);
      const attempts = siblings.reduce((n, s) => n + (s.id === session.id ? session.attempts : s.attempts), 0);
      if (attempts >= MAX_LOGIN_ATTEMPTS) {
        await this.end(session, 'FAILED', 'TOO_MANY_LOGIN_ATTEMPTS', 'Too many sign-in attempts.');
        return this.fail('TOO_MANY_LOGIN_ATTEMPTS', 'Too many sign-in attempts with this link. Start again from the app.', {
          linkSessionId: session.id,
          status: 'FAILED',
          retryable: false,
        });
      }
      await this.deps.store.repos.linkSessions.transition(session.id, LOGIN_STATES, {
        attempts: session.attempts + 1,
        updatedAt: this.deps.clock.now(),
      });
      await this.claimHost(session.id);
      const identity = await this.signInIdentity(token);
      if (!identity) return this.follow(token, await this.reload(session), provider, { kind: 'unavailable', reason: 'exit proxy' });
      const outcome = await this.deps.engine.start(session.id, {
        provider,
        organizationId: token.organizationId,
        environment: token.environment,
        username: credentials.username,
        password: credentials.password,
        ...identity,
        // Kept in memory only while a code step waits, and only when the organization opted in to storing them.
        ...(token.rememberCredentials ? { carry: { username: credentials.username, password: credentials.password } } : {}),
      });
      return this.follow(token, await this.reload(session), provider, outcome);
    });
  }

  /** The code the person typed for the provider's TOTP or SMS step. */
  async submitMfa(linkToken: string, sessionId: string, code: string): Promise<Result<LinkStepResult>> {
    return this.loginStep(linkToken, sessionId, ['MFA_TOTP', 'MFA_SMS'], async ({ token, session }, provider) =>
      this.follow(token, session, provider, await this.deps.engine.submitCode(session.id, code)),
    );
  }

  /** The person confirmed the provider's human check. */
  async confirmHuman(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.loginStep(linkToken, sessionId, ['HUMAN_CHECK'], async ({ token, session }, provider) =>
      this.follow(token, session, provider, await this.deps.engine.confirmHuman(session.id)),
    );
  }

  /** The person left the widget; records how (the last error they saw, or the one the widget reports). */
  async exit(linkToken: string, sessionId: string, errorCode?: string): Promise<Result<LinkExitResult>> {
    const auth = await this.authorize(linkToken, sessionId, { allowClosedToken: true });
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    await this.deps.engine.cancel(session.id);
    await this.live?.close(session.id);
    this.handedOver.delete(session.id);
    // A paused run's widget: leaving while its ask is open ends the run (USER_ACTION_EXITED); after it, nothing.
    if (session.mode === 'user_action') this.userActions?.leave(token);
    if (OPEN_STATES.includes(session.status)) {
      const code = errorCode ?? session.errorCode ?? 'USER_CLOSED';
      await this.end(session, 'EXITED', code, code === session.errorCode ? session.errorMessage : null);
    }
    const after = await this.reload(session);
    // Also for a session that had already ended (a refused opening, a second exit): the answer is the same each time.
    const redirectUrl = await this.redirectFor(token, { session: after, publicToken: null });
    return ok({ linkSessionId: after.id, status: after.status, ...(redirectUrl ? { redirectUrl } : {}) });
  }

  // ---------- a paused agent run ----------

  /**
   * The person answered the paused run's ask: the page is past the step (done), or the held write is approved or
   * denied. The run goes on (or ends, denied) by itself; this link session is over (SUCCEEDED: the person did their part).
   */
  async answerUserAction(linkToken: string, sessionId: string, decision: UserActionAnswer): Promise<Result<LinkStepResult>> {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'USER_ACTION') return this.stepNotAllowed(session);
    // An answer the open ask does not take (approve a code step, "done" on a held write) changes nothing, and the ask
    // is not over for it: the same step can still be answered as it asks.
    const ask = this.userActions?.askOf(token);
    if (ask && (ask.reason === 'APPROVAL') !== (decision === 'approve' || decision === 'deny')) {
      return this.fail(
        'LINK_STEP_NOT_ALLOWED',
        ask.reason === 'APPROVAL'
          ? 'This step is a write to approve or deny.'
          : 'This step has no write to approve or deny: it is done on the page.',
        this.details(session, true),
      );
    }
    if (!this.userActions?.answer(token, decision)) {
      return this.fail('USER_ACTION_OVER', 'This step is over: the task is not waiting for this any more.', this.details(session, false));
    }
    const now = this.deps.clock.now();
    if (await this.move(session, ['USER_ACTION'], { status: 'SUCCEEDED', completedAt: now })) {
      await this.finished({ session: await this.reload(session), publicToken: null });
    }
    return ok({ view: await this.view(await this.reload(session), token) });
  }

  /** May this link token's widget watch (and, while its ask is open, use) the paused run's page? */
  async authorizeRunView(linkToken: string, sessionId: string): Promise<Result<{ run: RunHandoff; token: LinkTokenRecord }>> {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'USER_ACTION') return this.stepNotAllowed(session);
    const run = this.userActions?.runOf(token);
    if (!run) return this.fail('USER_ACTION_OVER', 'The task is not waiting for you any more.', this.details(session, false));
    return ok({ run, token });
  }

  /** Whether a link token was made for a paused agent run (its widget watches that run instead of a sign-in). */
  async isRunToken(linkToken: string): Promise<boolean> {
    const parsed = parseToken(linkToken);
    if (!parsed || parsed.kind !== 'link') return false;
    return !!(await this.deps.store.repos.linkTokens.findByHash(hashToken(linkToken)))?.agentRequestId;
  }

  // ---------- live sign-in ----------

  /**
   * May this link token's widget open (or reattach to) the live browser of this session? Only at the sign-in step,
   * with a provider chosen and the live view in use. Answers what the live view needs to open the provider's page.
   */
  async authorizeLive(
    linkToken: string,
    sessionId: string,
  ): Promise<
    Result<{ provider: ProviderDefinition; organizationId: string; expiresAt: Date; handedOver: boolean; identity: SignInIdentity }>
  > {
    const auth = await this.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    // An organization's own provider too (find, not get: get knows the built-in and operator providers only).
    const provider = session.providerId ? await this.deps.catalogue.find(session.providerId, scopeOf(token)) : undefined;
    if (session.status !== 'CREDENTIALS' || !provider || this.signInMode(session, token, provider).signIn !== 'live') {
      return this.stepNotAllowed(session);
    }
    const identity = await this.signInIdentity(token);
    if (!identity) return this.fail('PROVIDER_UNAVAILABLE', "The connection's exit could not be opened.", this.details(session, false));
    return ok({
      provider,
      organizationId: token.organizationId,
      expiresAt: token.expiresAt,
      handedOver: this.handedOver.has(session.id),
      identity,
    });
  }

  /** Update mode: the connection's device and exit; a new connection: none yet. Null when its exit cannot be opened. */
  private async signInIdentity(token: LinkTokenRecord): Promise<SignInIdentity | null> {
    const { connections } = this.deps;
    const connection = token.connectionId ? await connections.findForRun(token.connectionId) : null;
    if (!connection) return { device: null, exitProxy: null };
    try {
      return { device: connections.deviceOf(connection), exitProxy: connections.openExitProxy(connection) };
    } catch {
      return null; // sealed under a key this process does not have: never sign in around the exit
    }
  }

  /** The page the engine left at a step it does not know, for the live view to take over (null when none). */
  takeHandedOverPage(sessionId: string) {
    return this.deps.engine.handOver(sessionId);
  }

  /** The live browser saw the provider's signed-in signal: seal its session and hand the public token back, as the form does. */
  async finishLive(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.loginStep(linkToken, sessionId, ['CREDENTIALS'], async ({ token, session }, provider) => {
      const signedIn = this.live?.takeSignedIn(session.id) ?? null;
      if (!signedIn) {
        return this.fail(
          'LIVE_NOT_SIGNED_IN',
          `You are not signed in to ${provider.name.replace(/\s*\(.*\)$/, '')} yet.`,
          this.details(session, true),
        );
      }
      this.handedOver.delete(session.id);
      return this.finish(token, await this.reload(session), provider, signedIn.state, signedIn.device, undefined);
    });
  }

  /** The live browser ended without a sign-in (idle timeout): recorded so the organization can see it. */
  async liveEnded(sessionId: string, code: ErrorCode, message: string): Promise<void> {
    const session = await this.deps.store.repos.linkSessions.findById(sessionId);
    if (session?.status === 'CREDENTIALS') await this.move(session, ['CREDENTIALS'], { errorCode: code, errorMessage: message });
  }

  // ---------- the login steps ----------

  private async loginStep(
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

  /** Turns what the engine saw into the next step of the flow. */
  private async follow(
    token: LinkTokenRecord,
    before: LinkSessionRecord,
    provider: ProviderDefinition,
    outcome: LoginOutcome,
  ): Promise<Result<LinkStepResult>> {
    const name = provider.name.replace(/\s*\(.*\)$/, '');
    // The person may have left (or the token expired) while the provider was working: nothing more happens.
    const session = await this.reload(before);
    if (!LOGIN_STATES.includes(session.status)) {
      await this.deps.engine.cancel(session.id);
      return this.stepNotAllowed(session);
    }
    switch (outcome.kind) {
      case 'success':
        return this.finish(token, session, provider, outcome.storageState, outcome.device, outcome.carry as LoginCredentials | undefined);
      case 'mfa': {
        const status: LinkSessionStatus = outcome.method === 'totp' ? 'MFA_TOTP' : 'MFA_SMS';
        if (outcome.rejected) {
          const message = `${name} did not accept that code. Check it and try again.`;
          await this.move(session, LOGIN_STATES, { status, errorCode: 'MFA_FAILED', errorMessage: message });
          return this.fail('MFA_FAILED', message, { linkSessionId: session.id, status, retryable: true });
        }
        await this.move(session, LOGIN_STATES, { status, errorCode: null, errorMessage: null });
        return ok({ view: await this.view(await this.reload(session), token) });
      }
      case 'human_check':
        await this.move(session, LOGIN_STATES, { status: 'HUMAN_CHECK', errorCode: null, errorMessage: null });
        return ok({ view: await this.view(await this.reload(session), token) });
      case 'invalid_credentials':
        return this.backToLogin(session, 'INVALID_CREDENTIALS', `${name} did not accept that username and password.`);
      case 'locked':
        return this.backToLogin(
          session,
          'ACCOUNT_LOCKED',
          `${name} says this account is locked. Unlock it on ${name}, or use a different account.`,
        );
      case 'mfa_failed':
        return this.backToLogin(
          session,
          'MFA_FAILED',
          `${name} stopped accepting codes for this sign-in. Sign in again to get a new code.`,
          false,
        );
      case 'unknown_step':
        // The provider shows something the recipe cannot fill in: the person finishes on the real page (live view).
        this.handedOver.add(session.id);
        await this.move(session, LOGIN_STATES, { status: 'CREDENTIALS', errorCode: null, errorMessage: null });
        return ok({ view: await this.view(await this.reload(session), token) });
      case 'expired':
        return this.backToLogin(session, 'LOGIN_TIMED_OUT', 'The verification step was not completed in time. Sign in again.', false);
      case 'unavailable':
        return this.backToLogin(
          session,
          'PROVIDER_UNAVAILABLE',
          `We could not complete the sign-in on ${name} right now. Try again in a moment.`,
        );
    }
  }

  /** A failed sign-in: the flow goes back to the login form, with the error recorded. */
  private async backToLogin(
    session: LinkSessionRecord,
    code: ErrorCode,
    message: string,
    retryable = true,
  ): Promise<Result<LinkStepResult>> {
    await this.move(session, LOGIN_STATES, { status: 'CREDENTIALS', errorCode: code, errorMessage: message });
    return this.fail(code, message, { linkSessionId: session.id, status: 'CREDENTIALS', retryable });
  }

  /** Signed in: claim the single-use link token, store the sealed session, and hand a public token back. */
  private async finish(
    token: LinkTokenRecord,
    session: LinkSessionRecord,
    provider: ProviderDefinition,
    storageState: StorageState,
    device: DeviceProfile | null,
    credentials: LoginCredentials | undefined,
  ): Promise<Result<LinkStepResult>> {
    const { store, clock, connections } = this.deps;
    const fresh = (await store.repos.linkTokens.findByHash(token.tokenHash)) ?? token;
    const refusal = this.tokenRefusal(fresh, clock.now());
    if (refusal) {
      await this.end(session, 'FAILED', refusal.code, refusal.message);
      return this.fail(refusal.code, refusal.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    const caller: Caller = { organizationId: token.organizationId, environment: token.environment };
    const connectionId = token.connectionId ?? newId('conn');
    // The conditional claim decides between two sessions of one link token finishing at once.
    if (!(await store.repos.linkTokens.markUsed(token.id, clock.now(), connectionId))) {
      const message = 'This link was already used to connect an account.';
      await this.end(session, 'FAILED', 'LINK_TOKEN_ALREADY_USED', message);
      return this.fail('LINK_TOKEN_ALREADY_USED', message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    const remember = token.rememberCredentials && credentials ? { credentials } : {};
    let issued: IssuedPublicToken;
    if (token.connectionId) {
      const result = await connections.reauthenticate(caller, token.connectionId, { session: storageState, device, ...remember });
      if (!result.ok) {
        await this.end(session, 'FAILED', result.error.code, result.error.message);
        return this.fail(result.error.code, result.error.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
      }
      issued = result.value;
    } else {
      issued = await connections.create(caller, {
        connectionId,
        providerId: provider.providerId,
        clientUserId: token.clientUserId,
        session: storageState,
        device,
        ...remember,
      });
    }
    const now = clock.now();
    const succeeded = await this.move(session, LOGIN_STATES, {
      status: 'SUCCEEDED',
      connectionId: issued.connection.id,
      errorCode: null,
      errorMessage: null,
      completedAt: now,
    });
    const after = await this.reload(session);
    const outcome: LinkSessionOutcome = { session: after, publicToken: issued.publicToken };
    // Told only by the step that moved the session to SUCCEEDED (an exit that won the race told its own end).
    if (succeeded) await this.finished(outcome);
    const redirectUrl = await this.redirectFor(token, outcome);
    const view = await this.view(after, token);
    return ok({
      view,
      success: {
        ...(redirectUrl ? { redirectUrl } : {}),
        publicToken: issued.publicToken,
        metadata: {
          providerId: provider.providerId,
          providerName: provider.name,
          clientUserId: token.clientUserId,
          linkSessionId: session.id,
          connectionStatus: issued.connection.status,
        },
      },
    });
  }

  // ---------- helpers ----------

  private tokenRefusal(token: LinkTokenRecord, now: Date): { code: ErrorCode; message: string } | null {
    if (token.usedAt) return { code: 'LINK_TOKEN_ALREADY_USED', message: 'This link was already used to connect an account.' };
    if (token.expiresAt.getTime() <= now.getTime()) return { code: 'LINK_TOKEN_EXPIRED', message: 'This link has expired.' };
    return null;
  }

  /** The link token authorizes the widget's calls for the sessions it opened. */
  private async authorize(linkToken: string, sessionId: string, opts: { allowClosedToken?: boolean } = {}): Promise<Result<Authorized>> {
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

  private async fixedProvider(token: LinkTokenRecord): Promise<ProviderDefinition | undefined> {
    return token.providerId ? this.deps.catalogue.find(token.providerId, scopeOf(token)) : undefined;
  }

  /** Moves the session on (a conditional UPDATE); false when a concurrent step moved it first. */
  private async move(session: LinkSessionRecord, from: LinkSessionStatus[], patch: Partial<LinkSessionRecord>): Promise<boolean> {
    return this.deps.store.repos.linkSessions.transition(session.id, from, { ...patch, updatedAt: this.deps.clock.now() });
  }

  /**
   * Ends an open session. Only the caller whose conditional UPDATE ended it reports the end: two exits, an exit racing
   * a failing step, or a call relayed from another process report it once between them.
   */
  private async end(session: LinkSessionRecord, status: 'FAILED' | 'EXITED', errorCode: string, errorMessage: string | null) {
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

  private async finished(outcome: LinkSessionOutcome): Promise<void> {
    await this.deps.onFinished?.(outcome);
  }

  /**
   * The completion redirect of an ended session whose link token names a completionRedirectUri, if that URI is still
   * registered (checked again now: one the organization removed meanwhile receives nothing). Undefined otherwise.
   */
  private async redirectFor(token: LinkTokenRecord, outcome: LinkSessionOutcome): Promise<string | undefined> {
    const uri = token.completionRedirectUri;
    if (!uri || !isEnded(outcome.session)) return undefined;
    if (!(await this.deps.redirectUris.isRegistered(token, uri))) return undefined;
    return completionRedirectUrl(uri, outcome) ?? undefined;
  }

  private async reload(session: LinkSessionRecord): Promise<LinkSessionRecord> {
    return (await this.deps.store.repos.linkSessions.findById(session.id)) ?? session;
  }

  private details(session: LinkSessionRecord, retryable: boolean): LinkErrorDetails {
    return { linkSessionId: session.id, status: session.status, retryable };
  }

  private stepNotAllowed<T>(session: LinkSessionRecord): Result<T> {
    return this.fail(
      'LINK_STEP_NOT_ALLOWED',
      OPEN_STATES.includes(session.status)
        ? `The connect flow is at step ${session.status}, or another step is still running.`
        : `The connect flow already ended (${session.status}).`,
      this.details(session, false),
    );
  }

  private fail<T>(code: ErrorCode, message: string, details: LinkErrorDetails | null, fieldIssues?: unknown): Result<T> {
    const base = details ?? { linkSessionId: null, status: null, retryable: false };
    return fail(code, message, fieldIssues ? { ...base, issues: fieldIssues } : base);
  }

  private widgetProvider(p: ProviderDefinition): WidgetProvider {
    return {
      providerId: p.providerId,
      name: p.name,
      slug: p.slug,
      category: p.category,
      logo: providerLogoDataUrl(p),
      usernameLabel: p.login?.usernameLabel ?? 'Username',
    };
  }

  private async view(session: LinkSessionRecord, token: LinkTokenRecord): Promise<LinkSessionView> {
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
      provider: provider ? this.widgetProvider(provider) : null,
      providerFixed: !!fixed,
      providers: fixed ? [] : (await catalogue.listFor(scopeOf(session))).map((p) => this.widgetProvider(p)),
      capabilities: CAPABILITIES[provider?.category ?? 'any'],
      rememberCredentials: token.rememberCredentials,
      mfa: session.status === 'MFA_TOTP' ? { method: 'totp' } : session.status === 'MFA_SMS' ? { method: 'sms' } : null,
      ...this.signInMode(session, token, provider),
      completionRedirect: token.completionRedirectUri !== null,
      userAction: session.mode === 'user_action' ? ((await this.userActions?.viewOf(token)) ?? null) : null,
    };
  }

  private signInMode(
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

/** The catalogue an organization sees in an environment (its own providers included). */
function scopeOf(owner: { organizationId: string; environment: LinkTokenRecord['environment'] }) {
  return { organizationId: owner.organizationId, environment: owner.environment };
}
