import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of provider sessions and credentials.
 * Sealed form: `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id lets several keys
 * coexist during a rotation; the associated data (e.g. "connection:conn_x:session") binds a sealed
 * value to the row it belongs to, so it cannot be copied onto another connection and opened there.
 */
export interface VaultKey {
  id: string;
  key: Buffer;
}

export class VaultError extends Error {}

export class Vault {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: VaultKey[]) {
    if (keys.length === 0) throw new VaultError('the vault needs at least one key');
    for (const k of keys) {
      if (k.key.length !== 32) throw new VaultError(`vault key ${k.id} must be 32 bytes`);
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(k.id)) throw new VaultError(`vault key id ${k.id} is not a plain identifier`);
    }
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get primaryKeyId(): string {
    return this.keys[0].id;
  }

  /** Every key id, primary first. */
  get keyIds(): string[] {
    return this.keys.map((k) => k.id);
  }

  seal(plaintext: string, associatedData: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', id, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, associatedData: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== 'v1') throw new VaultError('not a sealed value');
    const key = this.byId.get(parts[1]);
    if (!key) throw new VaultError(`sealed with unknown key id ${parts[1]}`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2], 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(parts[4], 'base64url'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(parts[3], 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new VaultError('sealed value failed authentication (wrong key, wrong owner, or tampered)');
    }
  }

  /**
   * A 32-byte key for another purpose (e.g. signing), derived from the primary key with HKDF-SHA256: one secret to
   * configure and back up, and the derived key says nothing about the sealing key. It changes when the primary does.
   */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.keys[0].key, Buffer.alloc(0), `agentlink:${purpose}`, 32));
  }

  keyIdOf(sealed: string): string | null {
    const parts = sealed.split('.');
    return parts.length === 5 && parts[0] === 'v1' ? parts[1] : null;
  }
}

export function keyIdFor(key: Buffer): string {
  return `k${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}
