import { createHash } from 'node:crypto';

import type { Environment } from '../config';
import type { OrganizationRecord, Store } from '../store';
import type { Clock } from './clock';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { newId } from './ids';
import { decoySecretHash, generateClientId, generateClientSecret, hashSecret, secretEnvironment, verifySecret } from './secrets';

export interface IssuedCredentials {
  organization: OrganizationRecord;
  clientId: string;
  sandboxSecret: string;
  productionSecret: string;
}

const VERIFIED_CACHE_MAX = 10_000;

/**
 * Organizations and their client credentials.
 *
 * scrypt costs tens of milliseconds by design, too much for every API call. A successful verification
 * is remembered as (client id, SHA-256 of the secret) → the stored hash it matched; each call still
 * reads the organization row and uses the memory only if that stored hash is unchanged. So a rotation
 * takes effect at once in every process, and a wrong secret always pays the full scrypt price.
 */
export class OrganizationService {
  private readonly verified = new Map<string, string>();

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

  /** By id only (the dashboard's membership rows name organizations by id). */
  findById(organizationId: string) {
    return this.store.repos.organizations.findById(organizationId);
  }

  async find(idOrClientId: string) {
    const repo = this.store.repos.organizations;
    return (await repo.findByClientId(idOrClientId)) ?? (await repo.findById(idOrClientId));
  }

  /** Issues a new secret for one environment; the old one stops working immediately. */
  async rotateSecret(
    idOrClientId: string,
    environment: Environment,
  ): Promise<Result<{ organization: OrganizationRecord; secret: string }>> {
    const organization = await this.find(idOrClientId);
    if (!organization) return fail('INVALID_CLIENT_CREDENTIALS', `no organization ${idOrClientId}`);
    const secret = generateClientSecret(environment);
    await this.store.repos.organizations.setSecretHash(organization.id, environment, await hashSecret(secret), this.clock.now());
    return ok({ organization, secret });
  }

  /** Same answer, and comparable time, for an unknown client id and a wrong secret. */
  async authenticate(clientId: string | undefined, secret: string | undefined): Promise<Result<Caller>> {
    if (!clientId || !secret) {
      return fail('MISSING_CLIENT_CREDENTIALS', 'Send your Client ID in x-client-id and your Client Secret in x-client-secret.');
    }
    const invalid = fail<Caller>('INVALID_CLIENT_CREDENTIALS', 'The client credentials are not valid.');
    const environment = secretEnvironment(secret);
    const organization = clientId.length <= 64 ? await this.store.repos.organizations.findCredentials(clientId) : null;
    if (!environment || !organization) {
      await verifySecret(secret.slice(0, 256), await decoySecretHash());
      return invalid;
    }
    const storedHash = environment === 'sandbox' ? organization.sandboxSecretHash : organization.productionSecretHash;
    const cacheKey = `${clientId}:${createHash('sha256').update(secret).digest('hex')}`;
    if (this.verified.get(cacheKey) !== storedHash) {
      if (!(await verifySecret(secret, storedHash))) return invalid;
      if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(cacheKey, storedHash);
    }
    return ok({ organizationId: organization.id, environment });
  }
}
