import type { DeviceProfile } from '../browser/device-profile';
import type { VirtualCredential } from '../browser/webauthn-environment';
import type { IssuedPublicToken, LoginCredentials } from '../domain/connections.service';
import type { Caller } from '../domain/context';
import { type ErrorCode, ok, type Result } from '../domain/errors';
import { newId } from '../domain/ids';
import type { LinkSessionOutcome } from '../domain/link-completion';
import type { ProviderDefinition } from '../providers/catalogue';
import type { LinkSessionRecord, LinkSessionStatus, LinkTokenRecord } from '../store';
import { type LinkSessionFlow, LOGIN_STATES } from './link-session-flow';
import type { LinkStepResult } from './link-session-view';
import type { LoginOutcome, StorageState } from './login-engine';

/** Sign-in attempts allowed per link token, over all of its link sessions. */
export const MAX_LOGIN_ATTEMPTS = 10;

/**
 * The login steps of the connect flow: the person's credentials go to the login engine, which signs in on the
 * provider's page; what it saw (a code step, a human check, a wrong password, a step it does not know …) becomes the
 * flow's next step; signed in, the link token is claimed, the session sealed on the connection and a public token
 * handed back (finish, which the live sign-in ends with too).
 */
export class LoginSteps {
  constructor(private readonly flow: LinkSessionFlow) {}

  /** The person's credentials: the engine signs in on the provider's page and the flow follows what it saw. */
  async submitCredentials(linkToken: string, sessionId: string, credentials: LoginCredentials): Promise<Result<LinkStepResult>> {
    return this.flow.loginStep(linkToken, sessionId, LOGIN_STATES, async ({ token, session }, provider) => {
      // Attempts count per link token: opening more sessions does not buy more password guesses.
      const siblings = await this.flow.deps.store.repos.linkSessions.listForLinkToken(token.id);
      const attempts = siblings.reduce((n, s) => n + (s.id === session.id ? session.attempts : s.attempts), 0);
      if (attempts >= MAX_LOGIN_ATTEMPTS) {
        await this.flow.end(session, 'FAILED', 'TOO_MANY_LOGIN_ATTEMPTS', 'Too many sign-in attempts.');
        return this.flow.fail('TOO_MANY_LOGIN_ATTEMPTS', 'Too many sign-in attempts with this link. Start again from the app.', {
          linkSessionId: session.id,
          status: 'FAILED',
          retryable: false,
        });
      }
      await this.flow.deps.store.repos.linkSessions.transition(session.id, LOGIN_STATES, {
        attempts: session.attempts + 1,
        updatedAt: this.flow.deps.clock.now(),
      });
      await this.flow.claimHost(session.id);
      const identity = await this.flow.signInIdentity(token, provider);
      if (!identity) return this.follow(token, await this.flow.reload(session), provider, { kind: 'unavailable', reason: 'exit proxy' });
      const outcome = await this.flow.deps.engine.start(session.id, {
        provider,
        organizationId: token.organizationId,
        environment: token.environment,
        username: credentials.username,
        password: credentials.password,
        ...identity,
        // Kept in memory only while a code step waits, and only when the organization opted in to storing them.
        ...(token.rememberCredentials ? { carry: { username: credentials.username, password: credentials.password } } : {}),
      });
      return this.follow(token, await this.flow.reload(session), provider, outcome);
    });
  }

  /** The code the person typed for the provider's TOTP or SMS step. */
  async submitMfa(linkToken: string, sessionId: string, code: string): Promise<Result<LinkStepResult>> {
    return this.flow.loginStep(linkToken, sessionId, ['MFA_TOTP', 'MFA_SMS'], async ({ token, session }, provider) =>
      this.follow(token, session, provider, await this.flow.deps.engine.submitCode(session.id, code)),
    );
  }

  /** The person confirmed the provider's human check. */
  async confirmHuman(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.flow.loginStep(linkToken, sessionId, ['HUMAN_CHECK'], async ({ token, session }, provider) =>
      this.follow(token, session, provider, await this.flow.deps.engine.confirmHuman(session.id)),
    );
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
    const session = await this.flow.reload(before);
    if (!LOGIN_STATES.includes(session.status)) {
      await this.flow.deps.engine.cancel(session.id);
      return this.flow.stepNotAllowed(session);
    }
    switch (outcome.kind) {
      case 'success':
        return this.finish(token, session, provider, outcome.storageState, outcome.device, outcome.carry as LoginCredentials | undefined);
      case 'mfa': {
        const status: LinkSessionStatus = outcome.method === 'totp' ? 'MFA_TOTP' : 'MFA_SMS';
        if (outcome.rejected) {
          const message = `${name} did not accept that code. Check it and try again.`;
          await this.flow.move(session, LOGIN_STATES, { status, errorCode: 'MFA_FAILED', errorMessage: message });
          return this.flow.fail('MFA_FAILED', message, { linkSessionId: session.id, status, retryable: true });
        }
        await this.flow.move(session, LOGIN_STATES, { status, errorCode: null, errorMessage: null });
        return ok({ view: await this.flow.view(await this.flow.reload(session), token) });
      }
      case 'human_check':
        await this.flow.move(session, LOGIN_STATES, { status: 'HUMAN_CHECK', errorCode: null, errorMessage: null });
        return ok({ view: await this.flow.view(await this.flow.reload(session), token) });
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
        this.flow.handedOver.add(session.id);
        await this.flow.move(session, LOGIN_STATES, { status: 'CREDENTIALS', errorCode: null, errorMessage: null });
        return ok({ view: await this.flow.view(await this.flow.reload(session), token) });
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
    await this.flow.move(session, LOGIN_STATES, { status: 'CREDENTIALS', errorCode: code, errorMessage: message });
    return this.flow.fail(code, message, { linkSessionId: session.id, status: 'CREDENTIALS', retryable });
  }

  /** Signed in: claim the single-use link token, store the sealed session, and hand a public token back. */
  async finish(
    token: LinkTokenRecord,
    session: LinkSessionRecord,
    provider: ProviderDefinition,
    storageState: StorageState,
    device: DeviceProfile | null,
    credentials: LoginCredentials | undefined,
    /** A passkey the person allowed AgentLink to keep in the live sign-in (only with the token's enrollPasskey). */
    passkey?: VirtualCredential,
  ): Promise<Result<LinkStepResult>> {
    const { store, clock, connections } = this.flow.deps;
    const fresh = (await store.repos.linkTokens.findByHash(token.tokenHash)) ?? token;
    const refusal = this.flow.tokenRefusal(fresh, clock.now());
    if (refusal) {
      await this.flow.end(session, 'FAILED', refusal.code, refusal.message);
      return this.flow.fail(refusal.code, refusal.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    const caller: Caller = { organizationId: token.organizationId, environment: token.environment };
    const connectionId = token.connectionId ?? newId('conn');
    // The conditional claim decides between two sessions of one link token finishing at once.
    if (!(await store.repos.linkTokens.markUsed(token.id, clock.now(), connectionId))) {
      const message = 'This link was already used to connect an account.';
      await this.flow.end(session, 'FAILED', 'LINK_TOKEN_ALREADY_USED', message);
      return this.flow.fail('LINK_TOKEN_ALREADY_USED', message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
    }
    const remember = token.rememberCredentials && credentials ? { credentials } : {};
    let issued: IssuedPublicToken;
    if (token.connectionId) {
      const result = await connections.reauthenticate(caller, token.connectionId, { session: storageState, device, ...remember });
      if (!result.ok) {
        await this.flow.end(session, 'FAILED', result.error.code, result.error.message);
        return this.flow.fail(result.error.code, result.error.message, { linkSessionId: session.id, status: 'FAILED', retryable: false });
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
    if (passkey && token.enrollPasskey) await this.flow.deps.passkeys?.keep(issued.connection.id, passkey);
    const now = clock.now();
    const succeeded = await this.flow.move(session, LOGIN_STATES, {
      status: 'SUCCEEDED',
      connectionId: issued.connection.id,
      errorCode: null,
      errorMessage: null,
      completedAt: now,
    });
    const after = await this.flow.reload(session);
    const outcome: LinkSessionOutcome = { session: after, publicToken: issued.publicToken };
    // Told only by the step that moved the session to SUCCEEDED (an exit that won the race told its own end).
    if (succeeded) await this.flow.finished(outcome);
    const redirectUrl = await this.flow.redirectFor(token, outcome);
    const view = await this.flow.view(after, token);
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
}
