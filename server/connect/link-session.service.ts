import type { RunHandoff } from '../agent/handoff/run-handoff';
import type { Environment } from '../config';
import type { LoginCredentials } from '../domain/connections.service';
import { type ErrorCode, ok, type Result } from '../domain/errors';
import { newId } from '../domain/ids';
import { hashToken, parseToken } from '../domain/tokens';
import type { LinkSessionRecord, LinkSessionStatus, LinkTokenRecord } from '../store';
import { type LinkSessionDeps, LinkSessionFlow, type LiveSignInPort, OPEN_STATES } from './link-session-flow';
import { LiveSteps } from './link-session-live';
import { LoginSteps } from './link-session-login';
import { UserActionSteps } from './link-session-user-action';
import { type LinkExitResult, type LinkSessionView, type LinkStepResult, scopeOf } from './link-session-view';
import type { UserActionAnswer } from './user-action-link';

export type { LinkSessionDeps, LiveSignInPort, SignInIdentity } from './link-session-flow';
export { MAX_LOGIN_ATTEMPTS } from './link-session-login';
export type { LinkErrorDetails, LinkExitResult, LinkSessionView, LinkStepResult, WidgetProvider } from './link-session-view';

/** Link sessions (openings of the widget) allowed per link token. */
export const MAX_SESSIONS_PER_LINK_TOKEN = 5;

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
 *
 * This service opens a session and moves it through consent and the provider picker, and ends it when the person
 * leaves; the login steps (link-session-login.ts), the live sign-in (link-session-live.ts) and a paused run's step
 * (link-session-user-action.ts) are their own files, on the state they share (link-session-flow.ts).
 */
export class LinkSessionService {
  private readonly flow: LinkSessionFlow;
  private readonly login: LoginSteps;
  private readonly liveSteps: LiveSteps;
  private readonly runs: UserActionSteps;

  constructor(deps: LinkSessionDeps) {
    this.flow = new LinkSessionFlow(deps);
    this.login = new LoginSteps(this.flow);
    this.liveSteps = new LiveSteps(this.flow, this.login);
    this.runs = new UserActionSteps(this.flow);
  }

  /**
   * This process now holds the session's in-memory part (a login that may pause at a code step, a live browser):
   * widget calls for it that reach another API process are relayed here.
   */
  claimHost(sessionId: string): Promise<void> {
    return this.flow.claimHost(sessionId);
  }

  /** The other API process holding this open session's in-memory part, if any (the relay forwards its calls there). */
  async holderOf(sessionId: string): Promise<string | null> {
    if (!this.flow.deps.hostUrl) return null;
    const session = await this.flow.deps.store.repos.linkSessions.findById(sessionId);
    if (!session?.hostUrl || session.hostUrl === this.flow.deps.hostUrl || !OPEN_STATES.includes(session.status)) return null;
    return session.hostUrl;
  }

  /** A holder that could not be reached is forgotten: this process carries on with what the database knows. */
  async forget(sessionId: string, hostUrl: string): Promise<void> {
    await this.flow.deps.store.repos.linkSessions.clearHost(sessionId, hostUrl);
  }

  /** Connects the live sign-in (built after this service, since it authorizes through it). */
  attachLive(live: LiveSignInPort): void {
    this.flow.live = live;
  }

  /** Opens a link session for a link token (each opening of the widget is one). */
  async start(linkToken: string, env?: Environment): Promise<Result<LinkSessionView>> {
    const parsed = parseToken(linkToken);
    if (!parsed || parsed.kind !== 'link') return this.flow.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
    if (env && parsed.environment !== env) {
      return this.flow.fail(
        'LINK_TOKEN_ENVIRONMENT_MISMATCH',
        `The link token belongs to the ${parsed.environment} environment, but the app opened the ${env} environment.`,
        null,
      );
    }
    const { store, clock } = this.flow.deps;
    const token = await store.repos.linkTokens.findByHash(hashToken(linkToken));
    if (!token) return this.flow.fail('INVALID_LINK_TOKEN', 'This link is not valid.', null);
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
      ...(forRun && token.hostUrl && token.hostUrl !== this.flow.deps.hostUrl ? { hostUrl: token.hostUrl } : {}),
    };
    const opened = (await store.repos.linkSessions.listForLinkToken(token.id)).length;
    // Refused openings are recorded too, so the organization can see them (up to the cap, so rows stay bounded).
    const refusal = this.flow.tokenRefusal(token, now);
    if (refusal && opened >= MAX_SESSIONS_PER_LINK_TOKEN) return this.flow.fail(refusal.code, refusal.message, null);
    if (!refusal && opened >= MAX_SESSIONS_PER_LINK_TOKEN) {
      return this.flow.fail('TOO_MANY_LINK_SESSIONS', 'This link was opened too many times. Start again from the app.', null);
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
      await this.flow.finished({ session: failed, publicToken: null });
      return this.flow.fail(refusal.code, refusal.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    await store.repos.linkSessions.insert(session);
    return ok(await this.flow.view(session, token));
  }

  /** The person agreed; on to the provider picker (or straight to the login when the provider is fixed). */
  async consent(linkToken: string, sessionId: string): Promise<Result<LinkSessionView>> {
    const auth = await this.flow.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status === 'CONSENT') {
      const next: LinkSessionStatus = (await this.flow.fixedProvider(token)) ? 'CREDENTIALS' : 'PROVIDER';
      await this.flow.move(session, ['CONSENT'], { status: next });
    } else if (session.status !== 'PROVIDER' && session.status !== 'CREDENTIALS') {
      return this.flow.stepNotAllowed(session);
    }
    return ok(await this.flow.view(await this.flow.reload(session), token));
  }

  /** The provider picked in the widget. Allowed again from the login step ("use a different provider"). */
  async selectProvider(linkToken: string, sessionId: string, providerId: string): Promise<Result<LinkSessionView>> {
    const auth = await this.flow.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'PROVIDER' && session.status !== 'CREDENTIALS') return this.flow.stepNotAllowed(session);
    if (this.flow.busy.has(session.id)) return this.flow.stepNotAllowed(session);
    const fixed = await this.flow.fixedProvider(token);
    if (fixed && fixed.providerId !== providerId) {
      return this.flow.fail('INVALID_FIELD', 'providerId: this link is for another provider.', this.flow.details(session, true), [
        { path: 'providerId', message: 'this link is for another provider' },
      ]);
    }
    const provider = await this.flow.deps.catalogue.find(providerId, scopeOf(token));
    if (!provider)
      return this.flow.fail(
        'UNKNOWN_PROVIDER',
        `providerId ${providerId} is not a ${token.environment} provider.`,
        this.flow.details(session, true),
      );
    await this.flow.move(session, ['PROVIDER', 'CREDENTIALS'], { status: 'CREDENTIALS', providerId });
    return ok(await this.flow.view(await this.flow.reload(session), token));
  }

  // ---------- the login steps (link-session-login.ts) ----------

  /** The person's credentials: the engine signs in on the provider's page and the flow follows what it saw. */
  submitCredentials(linkToken: string, sessionId: string, credentials: LoginCredentials): Promise<Result<LinkStepResult>> {
    return this.login.submitCredentials(linkToken, sessionId, credentials);
  }

  /** The code the person typed for the provider's TOTP or SMS step. */
  submitMfa(linkToken: string, sessionId: string, code: string): Promise<Result<LinkStepResult>> {
    return this.login.submitMfa(linkToken, sessionId, code);
  }

  /** The person confirmed the provider's human check. */
  confirmHuman(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.login.confirmHuman(linkToken, sessionId);
  }

  /** The person left the widget; records how (the last error they saw, or the one the widget reports). */
  async exit(linkToken: string, sessionId: string, errorCode?: string): Promise<Result<LinkExitResult>> {
    const auth = await this.flow.authorize(linkToken, sessionId, { allowClosedToken: true });
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    await this.flow.deps.engine.cancel(session.id);
    await this.flow.live?.close(session.id);
    this.flow.handedOver.delete(session.id);
    // A paused run's widget: leaving while its ask is open ends the run (USER_ACTION_EXITED); after it, nothing.
    if (session.mode === 'user_action') await this.flow.userActions?.leave(token);
    if (OPEN_STATES.includes(session.status)) {
      const code = errorCode ?? session.errorCode ?? 'USER_CLOSED';
      await this.flow.end(session, 'EXITED', code, code === session.errorCode ? session.errorMessage : null);
    }
    const after = await this.flow.reload(session);
    // Also for a session that had already ended (a refused opening, a second exit): the answer is the same each time.
    const redirectUrl = await this.flow.redirectFor(token, { session: after, publicToken: null });
    return ok({ linkSessionId: after.id, status: after.status, ...(redirectUrl ? { redirectUrl } : {}) });
  }

  // ---------- a paused agent run (link-session-user-action.ts) ----------

  /** The person answered the paused run's ask (done, approve, deny); this link session is over. */
  answerUserAction(linkToken: string, sessionId: string, decision: UserActionAnswer): Promise<Result<LinkStepResult>> {
    return this.runs.answerUserAction(linkToken, sessionId, decision);
  }

  /** May this link token's widget watch (and, while its ask is open, use) the paused run's page? */
  authorizeRunView(linkToken: string, sessionId: string): Promise<Result<{ run: RunHandoff; token: LinkTokenRecord }>> {
    return this.runs.authorizeRunView(linkToken, sessionId);
  }

  /** Whether a link token was made for a paused agent run (its widget watches that run instead of a sign-in). */
  isRunToken(linkToken: string): Promise<boolean> {
    return this.runs.isRunToken(linkToken);
  }

  // ---------- live sign-in (link-session-live.ts) ----------

  /** May this link token's widget open (or reattach to) the live browser of this session? */
  authorizeLive(linkToken: string, sessionId: string): ReturnType<LiveSteps['authorizeLive']> {
    return this.liveSteps.authorizeLive(linkToken, sessionId);
  }

  /** The page the engine left at a step it does not know, for the live view to take over (null when none). */
  takeHandedOverPage(sessionId: string): ReturnType<LiveSteps['takeHandedOverPage']> {
    return this.liveSteps.takeHandedOverPage(sessionId);
  }

  /** The live browser saw the provider's signed-in signal: seal its session and hand the public token back, as the form does. */
  finishLive(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.liveSteps.finishLive(linkToken, sessionId);
  }

  /** The live browser ended without a sign-in (idle timeout): recorded so the organization can see it. */
  liveEnded(sessionId: string, code: ErrorCode, message: string): Promise<void> {
    return this.liveSteps.liveEnded(sessionId, code, message);
  }
}
