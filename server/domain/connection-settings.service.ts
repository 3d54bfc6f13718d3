import { HEALTH_CHECK_LIMITS, type UpdateConnectionSettingsBody } from '../../contract/connection-health';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { ConnectionSettingsRecord, Owner, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';

/** The settings as the API shows them: the organization's own values and the service's default. */
export interface ConnectionSettingsView {
  record: ConnectionSettingsRecord | null;
  defaultIntervalSeconds: number;
  /** Where this deployment's Web Bot Auth keys are published. */
  directoryUrl: string;
}

/**
 * An organization's connection settings per environment: how often the sessions of its connections are checked
 * between runs. The interval of a connection is its provider's override, else the organization's interval, else the
 * service's default (AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS); 0 at any level turns checks off there.
 */
export class ConnectionSettingsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly catalogue: Pick<ProviderCatalogue, 'find'>,
    private readonly defaults: { intervalSeconds: number; directoryUrl: string },
  ) {}

  async get(caller: Caller): Promise<Result<ConnectionSettingsView>> {
    return ok(this.view(await this.store.repos.connectionSettings.findOwned(caller)));
  }

  /**
   * Merges a change into the stored settings; the owner's connections are then planned again with the new intervals
   * (their next check moves now, not after the old interval).
   */
  async update(caller: Caller, body: UpdateConnectionSettingsBody): Promise<Result<ConnectionSettingsView>> {
    const repos = this.store.repos;
    const current = await repos.connectionSettings.findOwned(caller);
    const providers = { ...(current?.healthCheckProviders ?? {}) };
    for (const [providerId, seconds] of Object.entries(body.healthCheck?.providers ?? {})) {
      if (seconds === null) {
        // Removing an override needs no provider: it may have been deleted since.
        delete providers[providerId];
        continue;
      }
      if (!(await this.catalogue.find(providerId, caller))) {
        return fail('UNKNOWN_PROVIDER', `providerId ${providerId} is not a ${caller.environment} provider; see GET /api/providers.`, [
          { path: `healthCheck.providers.${providerId}`, message: 'not a provider of this environment' },
        ]);
      }
      providers[providerId] = seconds;
    }
    if (Object.keys(providers).length > HEALTH_CHECK_LIMITS.providerOverridesMax) {
      const message = `at most ${HEALTH_CHECK_LIMITS.providerOverridesMax} providers (remove some with null)`;
      return fail('INVALID_FIELD', `healthCheck.providers: ${message}`, [{ path: 'healthCheck.providers', message }]);
    }
    const record: ConnectionSettingsRecord = {
      organizationId: caller.organizationId,
      environment: caller.environment,
      healthCheckIntervalSeconds:
        body.healthCheck?.intervalSeconds === undefined ? (current?.healthCheckIntervalSeconds ?? null) : body.healthCheck.intervalSeconds,
      healthCheckProviders: providers,
      signedAgent: body.signedAgent?.enabled ?? current?.signedAgent ?? false,
      updatedAt: this.clock.now(),
    };
    await repos.connectionSettings.save(record);
    if (body.healthCheck) await repos.connections.unplanOwned(caller);
    return ok(this.view(record));
  }

  /** Whether the owner's agent signs its requests (Web Bot Auth), read at each run and check: a change applies to the next. */
  async signsRequests(owner: Owner): Promise<boolean> {
    return (await this.store.repos.connectionSettings.findOwned(owner))?.signedAgent === true;
  }

  private view(record: ConnectionSettingsRecord | null): ConnectionSettingsView {
    return { record, defaultIntervalSeconds: this.defaults.intervalSeconds, directoryUrl: this.defaults.directoryUrl };
  }

  /**
   * A resolver of intervals (seconds, 0 = off) that reads each owner's settings once: the scheduler makes one per pass,
   * so a pass over many connections of one organization costs one read, and a change is seen by the next pass.
   */
  intervals(): (owner: Owner, providerId: string) => Promise<number> {
    const read = new Map<string, Promise<ConnectionSettingsRecord | null>>();
    return async (owner, providerId) => {
      const key = `${owner.organizationId}:${owner.environment}`;
      let settings = read.get(key);
      if (!settings) {
        settings = this.store.repos.connectionSettings.findOwned(owner);
        read.set(key, settings);
      }
      return intervalOf(await settings, providerId, this.defaults.intervalSeconds);
    };
  }
}

/** The interval of one provider's connections: its override, the organization's interval, or the default. */
export function intervalOf(settings: ConnectionSettingsRecord | null, providerId: string, defaultSeconds: number): number {
  return settings?.healthCheckProviders?.[providerId] ?? settings?.healthCheckIntervalSeconds ?? defaultSeconds;
}
