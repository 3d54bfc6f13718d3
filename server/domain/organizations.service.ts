import { createHash } from 'node:crypto';
import os from 'node:os';

import type { Environment } from '../config';
import type { OrganizationRecord, Store } from '../store';
import { type AuthFailureSettings, AuthFailureThrottle } from './auth-failures';
import type { Clock } from './clock';
import { ConcurrencyLimit, QueueFullError } from './concurrency-limit';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { FreshReads } from './fresh-reads';
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
 * scrypt verifications running at once: at most 2 of libuv's default pool of 4 threads (the SQLite driver, file I/O
 * and DNS keep theirs), and 1 on a machine of 2 cores or fewer, so a core stays free for the event loop.
 */
const VERIFY_CONCURRENCY = Math.max(1, Math.min(2, Math.floor(os.availableParallelism() / 2)));
/** Verifications waiting beyond this are shed with a 429 instead of queueing without end. */
const VERIFY_QUEUE_MAX = 64;

const INVALID = fail<Caller>('INVALID_CLIENT_CREDENTIALS', 'The client credentials are not valid.');
/** Told only to a caller whose secret matched: it says nothing to someone guessing. */
const DISABLED = fail<Caller>(
  'ORGANIZATION_DISABLED',
  'This organization is disabled: its credentials are refused until an operator enables it again (agentlink org enable).',
);

const storedHashOf = (o: { sandboxSecretHash: string; productionSecretHash: string }, environment: Environment) =>
  environment === 'sandbox' ? o.sandboxSecretHash : o.productionSecretHash;

export interface AuthenticateOptions {
  /** The request's source address (req.ip), for the per-address failure budget. */
  address?: string;
}

/**
 * Organizations and their client credentials.
 *
 * scrypt costs tens of milliseconds by design, too much for every API call. A successful verification
 * is remembered as (client id, SHA-256 of the secret) → the stored hash it matched; each call still
 * reads the organization row and uses the memory only if that stored hash is unchanged. So a rotation
 * takes effect at once in every process, and a wrong secret always pays the full scrypt price.
 *
 * That price is what an attacker would make us pay: failures are counted per client id and per source address
 * and, over budget, answered AUTHENTICATION_THROTTLED before any hash; and at most two verifications run at once.
 * A secret already verified skips all of this (it costs no hash), so a flood against a client id does not lock its
 * owner out. An unknown client id pays the same price as a known one (a decoy hash, under the same budgets and the
 * same bound), so timing does not tell which client ids exist.
 */
export class OrganizationService {
  private readonly verified = new Map<string, string>();
  /** Checks of a secret under way, by cache key, so parallel calls with the same secret share one hash. */
  private readonly pending = new Map<string, Promise<Result<Caller>>>();
  private readonly failures: AuthFailureThrottle;
  private readonly verifications = new ConcurrencyLimit(VERIFY_CONCURRENCY, VERIFY_QUEUE_MAX);
  private readonly credentials: FreshReads<string, Awaited<ReturnType<Store['repos']['organizations']['findCredentials']>>>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    authFailures?: AuthFailureSettings,
  ) {
    this.failures = new AuthFailureThrottle(clock, authFailures);
    this.credentials = new FreshReads((clientId) => store.repos.organizations.findCredentials(clientId));
    // Computed now, so the first unknown client id does not pay for it (and stand out by taking twice as long).
    decoySecretHash().catch(() => undefined);
  }

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

  /**
   * Disables (or enables again) an organization: while disabled, every API call with its credentials is refused with
   * ORGANIZATION_DISABLED (in every process at once: authentication reads the row on each call) and its dashboard is closed.
   */
  async setDisabled(idOrClientId: string, disabled: boolean): Promise<Result<OrganizationRecord>> {
    const organization = await this.find(idOrClientId);
    if (!organization) return fail('INVALID_CLIENT_CREDENTIALS', `no organization ${idOrClientId}`);
    const now = this.clock.now();
    const disabledAt = disabled ? (organization.disabledAt ?? now) : null;
    await this.store.repos.organizations.setDisabled(organization.id, disabledAt, now);
    return ok({ ...organization, disabledAt, updatedAt: now });
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

  /**
   * An unknown client id and a wrong secret get the same answer, in the same time: the secret presented with an
   * unknown client id is verified against a decoy hash (same scrypt parameters), under the same failure budgets and
   * the same bound on concurrent verifications as a known one. Only what anyone can see without a database answers
   * at once, alike for every client id: a secret that is not of the sk_<environment>_… shape, an id too long to exist.
   */
  async authenticate(clientId: string | undefined, secret: string | undefined, opts: AuthenticateOptions = {}): Promise<Result<Caller>> {
    if (!clientId || !secret) {
      return fail(
        'MISSING_CLIENT_CREDENTIALS',
        'Send your Client ID in x-client-id and your Client Secret in x-client-secret (or both as HTTP Basic: the ID as username, the secret as password).',
      );
    }
    // Over-long ids are not counted under their own key: they cannot exist, and must not grow the counters.
    const idKey = clientId.length <= 64 ? clientId : undefined;
    const environment = secretEnvironment(secret);
    const cacheKey = environment && idKey ? `${clientId}:${createHash('sha256').update(secret).digest('hex')}` : undefined;
    const remembered = cacheKey === undefined ? undefined : this.verified.get(cacheKey);
    if (remembered !== undefined) {
      // The hot path: one row read (shared with concurrent calls, never older than this call), no hash, no budget.
      const organization = await this.credentials.get(idKey!);
      if (organization && storedHashOf(organization, environment!) === remembered) {
        return organization.disabled ? DISABLED : ok({ organizationId: organization.id, environment: environment! });
      }
      this.verified.delete(cacheKey!); // rotated: checked again below like any new secret, budget included
    }
    // The same secret already being checked (a client's first burst of parallel calls): wait for that one answer
    // instead of spending a hash and a share of the budget per call.
    const pending = cacheKey === undefined ? undefined : this.pending.get(cacheKey);
    if (pending) return pending;
    const throttled = this.throttled(idKey, opts.address);
    if (throttled) return throttled;
    // Counted as a failure now, before any await, and taken back on success: concurrent guesses cannot all slip
    // under the budget while the first ones are still being checked.
    this.failures.recordFailure(idKey, opts.address);
    if (!environment || !idKey || !cacheKey) return INVALID;
    const attempt = this.checkSecret(idKey, secret, environment, cacheKey, opts.address);
    this.pending.set(cacheKey, attempt);
    try {
      return await attempt;
    } finally {
      this.pending.delete(cacheKey);
    }
  }

  private async checkSecret(
    clientId: string,
    secret: string,
    environment: Environment,
    cacheKey: string,
    address: string | undefined,
  ): Promise<Result<Caller>> {
    const organization = await this.store.repos.organizations.findCredentials(clientId);
    const storedHash = organization ? storedHashOf(organization, environment) : await decoySecretHash();
    let matches: boolean;
    try {
      matches = await this.verifications.run(() => verifySecret(secret, storedHash));
    } catch (err) {
      if (err instanceof QueueFullError) return this.throttledResult(1);
      throw err;
    }
    if (!matches || !organization) return INVALID;
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(cacheKey, storedHash);
    this.failures.recordSuccess(clientId, address);
    if (organization.disabled) return DISABLED;
    return ok({ organizationId: organization.id, environment });
  }

  private throttled(clientId: string | undefined, address: string | undefined): Result<Caller> | null {
    const retryAfterSeconds = this.failures.retryAfter(clientId, address);
    return retryAfterSeconds === null ? null : this.throttledResult(retryAfterSeconds);
  }

  private throttledResult(retryAfterSeconds: number): Result<Caller> {
    return fail('AUTHENTICATION_THROTTLED', `Too many failed authentications; retry after ${retryAfterSeconds} second(s).`, {
      retryAfterSeconds,
    });
  }
}
