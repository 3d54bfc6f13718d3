import type { DeviceProfile } from '../browser/device-profile';
import type { Environment } from '../config';
import type { StorageState } from '../connect/login-engine';
import type { LoginEngine } from '../connect/login-engine';
import type { LoginCredentials } from '../domain/connections.service';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ProviderDefinition } from '../providers/catalogue';

/**
 * Renewing a dead provider session without the user, from the connection's sealed credentials. Only a
 * login that needs nothing from a person can succeed silently: a code or a human check means the user
 * must reconnect (LOGIN_REQUIRED). It signs in as the connection: its device and its exit, as every run does.
 */
export type ReloginResult =
  | { ok: true; storageState: StorageState }
  /** `retryable`: the sign-in could not be tried (the provider or the browser was unreachable), not refused. */
  | { ok: false; reason: string; retryable?: boolean };

export interface SilentRelogin {
  relogin(input: {
    requestId: string;
    provider: ProviderDefinition;
    organizationId: string;
    environment: Environment;
    credentials: LoginCredentials;
    device: DeviceProfile | null;
    exitProxy: UpstreamProxy | null;
  }): Promise<ReloginResult>;
}

/** The real one: the connect flow's login engine, with no person to answer. */
export class LoginEngineRelogin implements SilentRelogin {
  constructor(private readonly engine: Pick<LoginEngine, 'start' | 'cancel'>) {}

  async relogin(input: Parameters<SilentRelogin['relogin']>[0]): Promise<ReloginResult> {
    const key = `relogin:${input.requestId}`;
    const outcome = await this.engine.start(key, {
      provider: input.provider,
      organizationId: input.organizationId,
      environment: input.environment,
      username: input.credentials.username,
      password: input.credentials.password,
      device: input.device,
      exitProxy: input.exitProxy,
    });
    switch (outcome.kind) {
      case 'success':
        return { ok: true, storageState: outcome.storageState };
      case 'mfa':
      case 'human_check':
        await this.engine.cancel(key);
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
        // A step the recipe does not know parks its page for a live view no one will open: close it now.
        if (outcome.kind === 'unknown_step') await this.engine.cancel(key);
        return { ok: false, reason: `the sign-in did not succeed (${outcome.kind}${'reason' in outcome ? `: ${outcome.reason}` : ''})` };
    }
  }
}
