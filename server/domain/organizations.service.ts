import { createHash } from 'node:crypto';
import type { Environment } from '../config';
import type { OrganizationRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import {
  decoySecretHash,
  generateClientId,
  generateClientSecret,
  hashSecret,
  secretEnvironment,
  verifySecret,
} from './secrets';

export interface IssuedCredentials {
  organization: OrganizationRecord;
  clientId: string;
  sandboxSecret: string;
  productionSecret: string;
}

const VERIFIED_CACHE_MAX = 10_000;
/** How long a verified secret is trusted without reading the organization row again. */
export const CREDENTIALS_RECHECK_MS = 1000;

interface Verified {
  organizationId: string;
  /** The stored hash the secret matched. */
  storedHash: string;
  /** When the organization row last confirmed that hash (clock ms). */
  confirmedAtMs: number;
}

/**
 * Organizations and their client credentials.
 *
 * scrypt costs tens of milliseconds by design, too much for every API call. A successful verification
 * is remembered as (client id, SHA-256 of the secret) → the stored hash it matched. Within a second of
 * the last confirmation it is trusted as is; after that the organization row is read again, and the
 * memory is used only if the stored hash is unchanged. A rotation therefore takes effect at once in
 * the process that rotates (it forgets the client's entries: the dashboard and `serve` share one
 * service), and within a second in every other process sharing the database (an `org rotate-secret`
 * run beside a server, other API processes). Reading the row on every call cost one query per API
 * request, about a seventh of an agent request's CPU (bench/api.bench.ts). A wrong secret is never
 * remembered and always pays the full scrypt price.
 */
export class OrganizationService {
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async create(name: string): Promise<IssuedCredentials> {
    const now = this.clock.now();
    const sandboxSecret = generateClientSecret('sandbox');
    const productionSecret = generateClientSecret('production');
    const organization: OrganizationRecord = {
      id: newId('org'),
      name,
      clientId: generateClientId(),
      sandboxSecretHash: await hashSecret(sandboxSecret),
      productionSecretHash: await hashSecret(productionSecret),
      createdAt: now,
      updatedAt: now,
    };
    await this.store.repos.organizations.insert(organization);
    return { organization, clientId: organization.clientId, sandboxSecret, productionSecret };
  }

  list() {
    return this.store.repos.organizations.list();
  }

  async find(idOrClientId: string) {
    const repo = this.store.repos.organizations;
    return (await repo.findByClientId(idOrClientId)) ?? (await repo.findById(idOrClientId));
  }

  /** Issues a new secret for one environment; the old one stops working immediately. */
  async rotateSecret(idOrClientId: string, environment: Environment): Promise<Result<{ organization: OrganizationRecord; secret: string }>> {
    const organization = await this.find(idOrClientId);
    if (!organization) return fail('INVALID_CLIENT_CREDENTIALS', `no organization ${idOrClientId}`);
    const secret = generateClientSecret(environment);
    await this.store.repos.organizations.setSecretHash(organization.id, environment, await hashSecret(secret), this.clock.now());
    for (const key of this.verified.keys()) if (key.startsWith(`${organization.clientId}:`)) this.verified.delete(key);
    return ok({ organization, secret });
  }

  /** Same answer, and comparable time, for an unknown client id and a wrong secret. */
  async authenticate(clientId: string | undefined, secret: string | undefined): Promise<Result<Caller>> {
    if (!clientId || !secret) {
      return fail('MISSING_CLIENT_CREDENTIALS', 'Send your Client ID in x-client-id and your Client Secret in x-client-secret.');
    }
    const invalid = fail<Caller>('INVALID_CLIENT_CREDENTIALS', 'The client credentials are not valid.');
    const environment = secretEnvironment(secret);
    const cacheKey = environment && clientId.length <= 64 ? `${clientId}:${createHash('sha256').update(secret).digest('hex')}` : undefined;
    const nowMs = this.clock.now().getTime();
    const known = cacheKey ? this.verified.get(cacheKey) : undefined;
    if (environment && known && nowMs - known.confirmedAtMs < CREDENTIALS_RECHECK_MS) return ok({ organizationId: known.organizationId, environment });

    const organization = cacheKey ? await this.store.repos.organizations.findCredentials(clientId) : null;
    if (!environment || !cacheKey || !organization) {
      await verifySecret(secret.slice(0, 256), await decoySecretHash());
      return invalid;
    }
    const storedHash = environment === 'sandbox' ? organization.sandboxSecretHash : organization.productionSecretHash;
    if (known?.storedHash !== storedHash) {
      this.verified.delete(cacheKey);
      if (!(await verifySecret(secret, storedHash))) return invalid;
      if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(cacheKey, { organizationId: organization.id, storedHash, confirmedAtMs: nowMs });
    return ok({ organizationId: organization.id, environment });
  }
}
