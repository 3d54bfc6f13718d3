import type { Store } from '../store';
import { type AgentKey, agentKeyFromSeed, derivedAgentKeySeed, newAgentKeySeed } from '../vault/agent-keys';
import { resealAll, type ResealReport, type SealedPages, sealedValuesByKey } from '../vault/reseal';
import type { Vault } from '../vault/vault';
import type { Clock } from './clock';

/** The deployment_keys row of the Web Bot Auth key. */
export const AGENT_SIGNING_KEY_PURPOSE = 'web-bot-auth-ed25519';
/** Binds the sealed key to its row: a sealed value copied from another row does not open here. */
export const deploymentKeyAad = (purpose: string) => `deployment-key:${purpose}`;
/**
 * A replaced key, still listed in the directory until the time in its purpose (ms since the epoch), never used to sign:
 * `web-bot-auth-ed25519:until:1767225600000`. A row per retired key, its role in its name, as the current key's is.
 */
const RETIRED_PREFIX = `${AGENT_SIGNING_KEY_PURPOSE}:until:`;
/** How long a process keeps the keys it loaded: a key replaced by the CLI signs in every process within this. */
const KEYS_FRESH_MS = 60_000;
/** How long a replaced key stays listed by default: verifiers cache the directory 5 minutes; a week leaves room. */
export const DEFAULT_SIGNING_KEY_OVERLAP_MS = 7 * 24 * 3600_000;

export interface SigningKeyReplacement {
  /** The key that signs from now on. */
  keyid: string;
  /** The key it replaced, listed in the directory until `listedUntil`, no longer signing. */
  retiredKeyid: string;
  listedUntil: Date;
}

/**
 * The deployment's Web Bot Auth key: a random Ed25519 seed made once (on first use, by whichever process gets there
 * first; the others read the winner's row), stored sealed by the vault, re-sealed by `vault rotate-key` like every
 * other sealed value. So the signing key outlives vault key rotations: sites that cached the directory keep verifying.
 *
 * Migration from the derived key (before, the key was HKDF of the primary vault key): where an organization already
 * signs when the row is first made, that derived key is adopted as the stored one, so verifiers see no change; elsewhere
 * nobody has seen a signature yet, and a fresh random key is made.
 */
export class AgentSigningKeys {
  private loaded: Promise<AgentKey[]> | null = null;
  private loadedAt = 0;

  constructor(
    private readonly store: Store,
    private readonly vault: Vault,
    private readonly clock: Clock,
  ) {}

  /** The keys the directory lists: the signing key first, then replaced keys still in their overlap, newest first. */
  keys(): Promise<AgentKey[]> {
    // Kept a minute (a replacement reaches every process within it); a failed load is tried again on the next call.
    const now = this.clock.now().getTime();
    if (!this.loaded || now - this.loadedAt > KEYS_FRESH_MS) {
      this.loadedAt = now;
      this.loaded = this.load().catch((err: unknown) => {
        this.loaded = null;
        throw err;
      });
    }
    return this.loaded;
  }

  /**
   * Replaces the signing key with a new random one. The old key stays listed in the directory for `overlapMs` (sites
   * verifying a signature made just before, or holding the directory cached, keep verifying), then drops out; it never
   * signs again. Replaced keys whose overlap is over are deleted here.
   */
  async replace(overlapMs: number = DEFAULT_SIGNING_KEY_OVERLAP_MS): Promise<SigningKeyReplacement> {
    const repo = this.store.repos.deploymentKeys;
    const [old] = await this.load();
    const row = (await repo.find(AGENT_SIGNING_KEY_PURPOSE))!;
    const now = this.clock.now();
    const listedUntil = new Date(now.getTime() + Math.max(0, overlapMs));
    const retired = `${RETIRED_PREFIX}${listedUntil.getTime()}`;
    const seedText = this.vault.open(row.sealedKey, deploymentKeyAad(AGENT_SIGNING_KEY_PURPOSE));
    // Sealed again for its new row (the AAD names the row): the old key, listed until the overlap ends.
    await repo.insertIfAbsent({
      purpose: retired,
      sealedKey: this.vault.seal(seedText, deploymentKeyAad(retired)),
      createdAt: row.createdAt,
    });
    const seed = newAgentKeySeed();
    let keyid: string;
    try {
      keyid = (await agentKeyFromSeed(seed)).keyid;
      const sealed = this.vault.seal(seed.toString('base64url'), deploymentKeyAad(AGENT_SIGNING_KEY_PURPOSE));
      if (!(await repo.replaceSealed(AGENT_SIGNING_KEY_PURPOSE, row.sealedKey, sealed))) {
        await repo.remove(retired);
        throw new Error('the signing key changed meanwhile (another replacement?): nothing was replaced; try again');
      }
    } finally {
      seed.fill(0);
    }
    for (const purpose of await repo.purposesStartingWith(RETIRED_PREFIX)) {
      if (untilOf(purpose) <= now.getTime()) await repo.remove(purpose);
    }
    this.loaded = null;
    return { keyid, retiredKeyid: old.keyid, listedUntil };
  }

  private async load(): Promise<AgentKey[]> {
    const repo = this.store.repos.deploymentKeys;
    const aad = deploymentKeyAad(AGENT_SIGNING_KEY_PURPOSE);
    let row = await repo.find(AGENT_SIGNING_KEY_PURPOSE);
    if (!row) {
      const adopt = await this.store.repos.connectionSettings.anySignedAgent();
      const seed = adopt ? derivedAgentKeySeed(this.vault) : newAgentKeySeed();
      try {
        const sealedKey = this.vault.seal(seed.toString('base64url'), aad);
        await repo.insertIfAbsent({ purpose: AGENT_SIGNING_KEY_PURPOSE, sealedKey, createdAt: this.clock.now() });
      } finally {
        seed.fill(0);
      }
      row = await repo.find(AGENT_SIGNING_KEY_PURPOSE);
      if (!row) throw new Error('the Web Bot Auth key could not be stored');
    }
    const now = this.clock.now().getTime();
    const listed = (await repo.purposesStartingWith(RETIRED_PREFIX))
      .filter((purpose) => untilOf(purpose) > now)
      .sort((a, b) => untilOf(b) - untilOf(a));
    const keys: AgentKey[] = [];
    for (const [purpose, sealedKey] of [
      [AGENT_SIGNING_KEY_PURPOSE, row.sealedKey] as const,
      ...(await Promise.all(listed.map(async (p) => [p, (await repo.find(p))?.sealedKey] as const))),
    ]) {
      if (!sealedKey) continue; // deleted meanwhile
      const seed = Buffer.from(this.vault.open(sealedKey, deploymentKeyAad(purpose)), 'base64url');
      try {
        keys.push(await agentKeyFromSeed(seed));
      } finally {
        seed.fill(0);
      }
    }
    return keys;
  }

  /** Re-seals the stored key with the vault's primary key (after a key rotation; `vault reseal`). */
  resealAll(opts: { batchSize?: number } = {}): Promise<ResealReport> {
    return resealAll(this.vault, this.sealedPages(), opts.batchSize);
  }

  /** How many sealed deployment keys each vault key id protects (for `vault status`). */
  sealedValuesByKey(): Promise<Record<string, number>> {
    return sealedValuesByKey(this.vault, this.sealedPages());
  }

  private sealedPages(): SealedPages {
    const repo = this.store.repos.deploymentKeys;
    return async (after, limit) =>
      (await repo.listSealed(after, limit)).map(({ purpose, sealedKey }) => ({
        id: purpose,
        values: [
          { value: sealedKey, aad: deploymentKeyAad(purpose), replace: (next: string) => repo.replaceSealed(purpose, sealedKey, next) },
        ],
      }));
  }
}

/** The end of a replaced key's overlap, from its row's purpose (NaN, never listed, for a purpose not of that form). */
function untilOf(purpose: string): number {
  return Number(purpose.slice(RETIRED_PREFIX.length));
}
