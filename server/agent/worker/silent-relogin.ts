import type { DeviceProfile } from '../../browser/device-profile';
import { captureSession } from '../../browser/session-capture';
import { boundSession } from '../../browser/session-format';
import type { VirtualCredential } from '../../browser/webauthn-environment';
import type { Environment } from '../../config';
import { isSignedIn } from '../../connect/live/signed-in';
import type { StorageState } from '../../connect/login-engine';
import type { LoginEngine } from '../../connect/login-engine';
import { type PasskeySignInOutcome, signInWithPasskey } from '../../connect/passkey-sign-in';
import { EgressPolicy } from '../../egress/egress-policy';
import type { UpstreamProxy } from '../../egress/upstream-proxy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { ConnectionRecord } from '../../store';
import type { UserDoor } from '../handoff/user-ask';
import type { LoginCredentials, RunPasskeys } from '../ports';
import type { RunSigning } from './run-signing';

/**
 * Renewing a dead provider session from what the connection holds: its own passkey first (passkey-sign-in.ts: no
 * password is needed, nothing to type, nothing a site can phish), then its sealed credentials should the passkey not
 * sign in. A login that needs nothing from a person succeeds silently. A code, a human check or a step the recipe does
 * not know needs the user: inside an agent run (a `door` that can pause) the run waits NEEDS_USER and the person
 * finishes the sign-in on that very page, through the live view; without one (a health check) the user must reconnect
 * (LOGIN_REQUIRED). It signs in as the connection: its device and its exit, as every run does.
 */
export type ReloginResult =
  /** `via`: what signed in. */
  | { ok: true; storageState: StorageState; via?: 'passkey' | 'password' }
  /** `retryable`: the sign-in could not be tried (the provider or the browser was unreachable), not refused. */
  | { ok: false; reason: string; retryable?: boolean };

export interface SilentRelogin {
  relogin(input: {
    requestId: string;
    provider: ProviderDefinition;
    organizationId: string;
    environment: Environment;
    /** Null: none are stored (a passkey-only connection). */
    credentials: LoginCredentials | null;
    /** The connection being renewed: its own passkey, if it holds one, is tried first (and no other's ever is). */
    connection?: Pick<ConnectionRecord, 'id' | 'sealedPasskey' | 'passkey'>;
    device: DeviceProfile | null;
    exitProxy: UpstreamProxy | null;
    /** The run's door to its user (absent: nobody can be asked). */
    door?: UserDoor;
  }): Promise<ReloginResult>;
}

type ReloginInput = Parameters<SilentRelogin['relogin']>[0];

/**
 * The real one: the connect flow's login engine, with no person to answer. Signed (Web Bot Auth) as the connection's
 * runs and checks are, where the organization and the provider opted in: the site sees one agent, however it visits.
 */
export class LoginEngineRelogin implements SilentRelogin {
  constructor(
    private readonly engine: Pick<LoginEngine, 'start' | 'cancel' | 'handOver' | 'inSlot'>,
    /** Absent: passkeys are not used (the connection's password alone renews). */
    private readonly passkeys?: RunPasskeys,
    private readonly signing?: RunSigning,
  ) {}

  async relogin(input: ReloginInput): Promise<ReloginResult> {
    const byPasskey = await this.withPasskey(input);
    if (byPasskey?.ok) return byPasskey;
    if (!input.credentials) return byPasskey ?? { ok: false, reason: 'no credentials or passkey are stored' };
    const byPassword = await this.withPassword(input, input.credentials);
    // Both were tried: both reasons are told (the passkey's first, as it was first).
    return byPassword.ok || !byPasskey ? byPassword : { ...byPassword, reason: `${byPasskey.reason}; then ${byPassword.reason}` };
  }

  /**
   * The connection's own passkey, when it holds one: loaded into the sign-in page of this renewal only, its new sign count
   * sealed back at once (the site saw it, whatever follows: a site refuses a count that goes back). Null: none held.
   */
  private async withPasskey(input: ReloginInput): Promise<ReloginResult | null> {
    const { connection } = input;
    if (!this.passkeys || !connection?.sealedPasskey) return null;
    let credential: VirtualCredential | null;
    try {
      credential = this.passkeys.open(connection);
    } catch {
      return { ok: false, reason: 'the passkey of this connection could not be opened' };
    }
    if (!credential) return null;
    const signer = (await this.signing?.signerFor(input, input.provider)) ?? null;
    const outcome = await this.engine.inSlot(
      (browsers, stepTimeoutMs) =>
        signInWithPasskey(
          browsers,
          {
            provider: input.provider,
            organizationId: input.organizationId,
            environment: input.environment,
            credential,
            device: input.device,
            exitProxy: input.exitProxy,
            signer,
          },
          stepTimeoutMs,
        ),
      (): PasskeySignInOutcome => ({ kind: 'unavailable', reason: 'too many sign-ins are running at once' }),
    );
    if (outcome.kind !== 'success') {
      return { ok: false, reason: `the passkey did not sign in (${outcome.reason})`, retryable: outcome.kind === 'unavailable' };
    }
    // A failed write loses only the count: the session is good, and the next passkey sign-in falls back if the site minds.
    await this.passkeys.used(connection, outcome.credential).catch(() => undefined);
    return { ok: true, storageState: outcome.storageState, via: 'passkey' };
  }

  private async withPassword(input: ReloginInput, credentials: LoginCredentials): Promise<ReloginResult> {
    const key = `relogin:${input.requestId}`;
    const signer = (await this.signing?.signerFor(input, input.provider)) ?? null;
    const outcome = await this.engine.start(key, {
      provider: input.provider,
      organizationId: input.organizationId,
      environment: input.environment,
      username: credentials.username,
      password: credentials.password,
      device: input.device,
      exitProxy: input.exitProxy,
      signer,
    });
    switch (outcome.kind) {
      case 'success':
        return { ok: true, storageState: outcome.storageState, via: 'password' };
      case 'mfa':
      case 'human_check':
      case 'unknown_step':
        if (input.door) return this.withUser(key, input, outcome.kind);
        await this.engine.cancel(key);
        if (outcome.kind === 'unknown_step') return { ok: false, reason: `the sign-in did not succeed (unknown_step: ${outcome.reason})` };
        return {
          ok: false,
          reason: outcome.kind === 'mfa' ? 'the provider asks for a verification code' : 'the provider asks for a human check',
        };
      case 'invalid_credentials':
        return { ok: false, reason: 'the provider no longer accepts the stored credentials' };
      case 'locked':
        return { ok: false, reason: 'the provider says the account is locked' };
      case 'unavailable':
        return { ok: false, reason: `the sign-in could not be tried (${outcome.reason})`, retryable: true };
      default:
        return { ok: false, reason: `the sign-in did not succeed (${outcome.kind}${'reason' in outcome ? `: ${outcome.reason}` : ''})` };
    }
  }

  /**
   * The sign-in page waits at a step only the person can do: the run pauses, the person finishes signing in on that
   * page (the live view shows it), and its session, once the provider shows it signed in, is the renewed one.
   */
  private async withUser(key: string, input: ReloginInput, step: 'mfa' | 'human_check' | 'unknown_step') {
    const taken = this.engine.handOver(key, { anyStep: true });
    if (!taken) return { ok: false as const, reason: 'the sign-in page was lost' };
    const { provider } = input;
    const name = provider.name.replace(/\s*\(.*\)$/, '');
    const policy = EgressPolicy.forSignIn(provider, provider.environment);
    try {
      await input.door!.needsUser({
        reason: step === 'mfa' ? 'CODE' : step === 'human_check' ? 'CAPTCHA' : 'OTHER',
        message:
          step === 'mfa'
            ? `${name} asks for a verification code to sign you in again. Enter it on the page.`
            : step === 'human_check'
              ? `${name} wants to check you are a person before signing you in again. Finish the check on the page.`
              : `${name} shows a step only you can do to sign you in again. Finish signing in on the page.`,
        page: taken.page,
        done: () => isSignedIn(taken.page, provider),
      });
      const { session } = boundSession(await captureSession(taken.context, (origin) => policy.checkUrl(origin).ok));
      if (!session) return { ok: false as const, reason: 'the renewed session is larger than a connection can store' };
      return { ok: true as const, storageState: session };
    } finally {
      await taken.context.close().catch(() => undefined);
    }
  }
}
