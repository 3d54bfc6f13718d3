import type { VirtualCredential } from '../browser/webauthn-environment';
import type { Store } from '../store';
import type { ConnectionPasskey, ConnectionRecord } from '../store/records';
import type { Vault } from '../vault/vault';
import type { Clock } from './clock';
import { passkeyAad } from './connections.service';

/**
 * A passkey of a connection's own (issue 37): made in the live sign-in with the person's consent, held like a
 * password. The credential (its private key among it) is sealed in the vault with the connection's id in its
 * associated data, so it opens for that connection only; the API shows its public face (ConnectionPasskey). Revoking
 * the connection clears both (connection.repository.ts revoke).
 */
export class ConnectionPasskeys {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly vault: Vault,
  ) {}

  /** Keeps the passkey the sign-in made for the connection; false when the connection was revoked meanwhile. */
  async keep(connectionId: string, credential: VirtualCredential): Promise<boolean> {
    if (!credential.rpId || !credential.privateKey) return false;
    const now = this.clock.now();
    const face: ConnectionPasskey = {
      credentialId: Buffer.from(credential.credentialId, 'base64').toString('base64url'),
      rpId: credential.rpId,
      createdAt: now.toISOString(),
      lastUsedAt: null,
    };
    return this.store.repos.connections.keepPasskey(connectionId, this.seal(connectionId, credential), face, now);
  }

  /** The connection's credential, opened (only ever loaded into that connection's own page), or null: none. */
  open(connection: Pick<ConnectionRecord, 'id' | 'sealedPasskey'>): VirtualCredential | null {
    if (!connection.sealedPasskey) return null;
    return JSON.parse(this.vault.open(connection.sealedPasskey, passkeyAad(connection.id))) as VirtualCredential;
  }

  /**
   * It signed in: the credential keeps its new sign count (a site refuses one that goes back), its face the time. A
   * count below the one kept changes nothing.
   */
  async used(connection: Pick<ConnectionRecord, 'id' | 'sealedPasskey' | 'passkey'>, after: VirtualCredential): Promise<void> {
    let current: Pick<ConnectionRecord, 'id' | 'sealedPasskey' | 'passkey'> | null = connection;
    // Compare-and-set; when another sign-in of the connection (a check beside a run) wrote first, the larger count wins:
    // the site refuses a count that goes back, so the kept one is never lowered.
    for (let attempt = 0; attempt < 3 && current?.sealedPasskey && current.passkey; attempt++) {
      const stored = this.open(current);
      if (!stored || stored.credentialId !== after.credentialId || stored.signCount > after.signCount) return;
      const face = { ...current.passkey, lastUsedAt: this.clock.now().toISOString() };
      if (await this.store.repos.connections.passkeyUsed(current.id, current.sealedPasskey, this.seal(current.id, after), face)) return;
      current = await this.store.repos.connections.findById(current.id);
    }
  }

  private seal(connectionId: string, credential: VirtualCredential): string {
    const kept: VirtualCredential = {
      credentialId: credential.credentialId,
      isResidentCredential: credential.isResidentCredential,
      ...(credential.rpId ? { rpId: credential.rpId } : {}),
      privateKey: credential.privateKey,
      ...(credential.userHandle ? { userHandle: credential.userHandle } : {}),
      signCount: credential.signCount,
    };
    return this.vault.seal(JSON.stringify(kept), passkeyAad(connectionId));
  }
}
