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

  constructor(
    private readonly store: Store,
    private readonly vault: Vault,
    private readonly clock: Clock,
  ) {}

  /** The keys the directory lists, the signing key first (one key for now: a rotation of the signing key itself is not offered). */
  keys(): Promise<AgentKey[]> {
    // Kept for the process's life (the key never changes under it); a failed load is tried again on the next call.
    this.loaded ??= this.load().catch((err: unknown) => {
      this.loaded = null;
      throw err;
    });
    return this.loaded;
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
    const seed = Buffer.from(this.vault.open(row.sealedKey, aad), 'base64url');
    try {
      return [await agentKeyFromSeed(seed)];
    } finally {
      seed.fill(0);
    }
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
