import type { AppConfig, Environment } from '../config';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { Store } from '../store';
import type { Vault } from '../vault/vault';
import type { Clock } from './clock';

/** Who is calling: resolved from the client credentials; fixes the organization and environment of everything. */
export interface Caller {
  organizationId: string;
  environment: Environment;
}

/** What every service is built from. Built once in the composition root (server/app-context.ts). */
export interface ServiceDeps {
  config: AppConfig;
  store: Store;
  clock: Clock;
  catalogue: ProviderCatalogue;
  vault: Vault;
}
