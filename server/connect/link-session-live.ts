import { type ErrorCode, ok, type Result } from '../domain/errors';
import type { ProviderDefinition } from '../providers/catalogue';
import type { LinkSessionFlow, SignInIdentity } from './link-session-flow';
import type { LoginSteps } from './link-session-login';
import { type LinkStepResult, scopeOf } from './link-session-view';

/**
 * The live sign-in's side of the connect flow: the provider's real page streamed into the widget (server/connect/live/)
 * when the link asks for it, the provider has no login recipe, or the recipe met a step it does not know. This
 * authorizes the widget's live browser, hands it the page the engine left, and finishes the flow once the provider's
 * signed-in signal appeared, as the form does.
 */
export class LiveSteps {
  constructor(
    private readonly flow: LinkSessionFlow,
    private readonly login: LoginSteps,
  ) {}

  /**
   * May this link token's widget open (or reattach to) the live browser of this session? Only at the sign-in step,
   * with a provider chosen and the live view in use. Answers what the live view needs to open the provider's page.
   */
  async authorizeLive(
    linkToken: string,
    sessionId: string,
  ): Promise<
    Result<{
      provider: ProviderDefinition;
      organizationId: string;
      expiresAt: Date;
      handedOver: boolean;
      identity: SignInIdentity;
      enrollPasskey: boolean;
    }>
  > {
    const auth = await this.flow.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    // An organization's own provider too (find, not get: get knows the built-in and operator providers only).
    const provider = session.providerId ? await this.flow.deps.catalogue.find(session.providerId, scopeOf(token)) : undefined;
    if (session.status !== 'CREDENTIALS' || !provider || this.flow.signInMode(session, token, provider).signIn !== 'live') {
      return this.flow.stepNotAllowed(session);
    }
    const identity = await this.flow.signInIdentity(token, provider);
    if (!identity)
      return this.flow.fail('PROVIDER_UNAVAILABLE', "The connection's exit could not be opened.", this.flow.details(session, false));
    return ok({
      provider,
      organizationId: token.organizationId,
      expiresAt: token.expiresAt,
      handedOver: this.flow.handedOver.has(session.id),
      identity,
      enrollPasskey: token.enrollPasskey === true,
    });
  }

  /** The page the engine left at a step it does not know, for the live view to take over (null when none). */
  takeHandedOverPage(sessionId: string) {
    return this.flow.deps.engine.handOver(sessionId);
  }

  /** The live browser saw the provider's signed-in signal: seal its session and hand the public token back, as the form does. */
  async finishLive(linkToken: string, sessionId: string): Promise<Result<LinkStepResult>> {
    return this.flow.loginStep(linkToken, sessionId, ['CREDENTIALS'], async ({ token, session }, provider) => {
      const signedIn = this.flow.live?.takeSignedIn(session.id) ?? null;
      if (!signedIn) {
        return this.flow.fail(
          'LIVE_NOT_SIGNED_IN',
          `You are not signed in to ${provider.name.replace(/\s*\(.*\)$/, '')} yet.`,
          this.flow.details(session, true),
        );
      }
      this.flow.handedOver.delete(session.id);
      return this.login.finish(
        token,
        await this.flow.reload(session),
        provider,
        signedIn.state,
        signedIn.device,
        undefined,
        signedIn.passkey,
      );
    });
  }

  /** The live browser ended without a sign-in (idle timeout): recorded so the organization can see it. */
  async liveEnded(sessionId: string, code: ErrorCode, message: string): Promise<void> {
    const session = await this.flow.deps.store.repos.linkSessions.findById(sessionId);
    if (session?.status === 'CREDENTIALS') await this.flow.move(session, ['CREDENTIALS'], { errorCode: code, errorMessage: message });
  }
}
