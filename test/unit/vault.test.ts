import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { keyFilePath, keysFromEnv, loadVault } from '../../server/vault/keyring';
import { keyIdFor, Vault, VaultError, type VaultKey } from '../../server/vault/vault';

const key = (id: string): VaultKey => ({ id, key: randomBytes(32) });
const AAD = 'connection:conn_1:session';

/** Replaces one dot-separated part of a sealed value. */
function withPart(sealed: string, index: number, fn: (part: string) => string): string {
  const parts = sealed.split('.');
  parts[index] = fn(parts[index]);
  return parts.join('.');
}
const flipFirstByte = (b64url: string) => {
  const buf = Buffer.from(b64url, 'base64url');
  buf[0] ^= 0x01;
  return buf.toString('base64url');
};

describe('Vault', () => {
  const k1 = key('k1');
  const vault = new Vault([k1]);

  it('seals to v1.<keyId>.<iv>.<ciphertext>.<tag> and opens back', () => {
    const plaintext = JSON.stringify({ cookies: [{ name: 'sid', value: 'sëcret ✓' }], origins: [] });
    const sealed = vault.seal(plaintext, AAD);
    expect(sealed).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealed).not.toContain('sid');
    expect(vault.open(sealed, AAD)).toBe(plaintext);
    expect(vault.keyIdOf(sealed)).toBe('k1');
    expect(vault.primaryKeyId).toBe('k1');
  });

  it('uses a fresh IV each time', () => {
    const a = vault.seal('same', AAD);
    const b = vault.seal('same', AAD);
    expect(a).not.toBe(b);
    expect(vault.open(a, AAD)).toBe('same');
    expect(vault.open(b, AAD)).toBe('same');
  });

  it('seals the empty string', () => {
    expect(vault.open(vault.seal('', AAD), AAD)).toBe('');
  });

  it('refuses to open with another associated data (the value of another connection)', () => {
    const sealed = vault.seal('session', AAD);
    expect(() => vault.open(sealed, 'connection:conn_2:session')).toThrow(VaultError);
    expect(() => vault.open(sealed, '')).toThrow(/failed authentication/);
  });

  it.each([
    ['the IV', 2],
    ['the ciphertext', 3],
    ['the tag', 4],
  ])('detects tampering with %s', (_label, index) => {
    const sealed = vault.seal('session data', AAD);
    expect(() => vault.open(withPart(sealed, index, flipFirstByte), AAD)).toThrow(VaultError);
  });

  it('refuses a value sealed under the same key id with a different key', () => {
    const impostor = new Vault([key('k1')]);
    expect(() => vault.open(impostor.seal('x', AAD), AAD)).toThrow(/failed authentication/);
  });

  it('refuses values it cannot parse or whose key it does not have', () => {
    expect(() => vault.open('plain text', AAD)).toThrow(/not a sealed value/);
    expect(() => vault.open('v2.k1.a.b.c', AAD)).toThrow(/not a sealed value/);
    expect(() => vault.open(new Vault([key('k9')]).seal('x', AAD), AAD)).toThrow(/unknown key id k9/);
    expect(vault.keyIdOf('nonsense')).toBeNull();
  });

  it('rotates keys: the new primary seals, the old key still opens older values', () => {
    const old = new Vault([k1]);
    const sealedOld = old.seal('old session', AAD);
    const k2 = key('k2');
    const rotated = new Vault([k2, k1]);
    expect(rotated.primaryKeyId).toBe('k2');
    expect(rotated.open(sealedOld, AAD)).toBe('old session');
    const sealedNew = rotated.seal('new session', AAD);
    expect(rotated.keyIdOf(sealedNew)).toBe('k2');
    expect(() => old.open(sealedNew, AAD)).toThrow(/unknown key id k2/);
    // Once the old key is retired, its values no longer open.
    expect(() => new Vault([k2]).open(sealedOld, AAD)).toThrow(/unknown key id k1/);
  });

  it('validates its keys', () => {
    expect(() => new Vault([])).toThrow(VaultError);
    expect(() => new Vault([{ id: 'short', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => new Vault([{ id: 'bad.id', key: randomBytes(32) }])).toThrow(/plain identifier/);
  });
});

describe('keyring', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-vault-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads one base64 key from AGENTLINK_ENCRYPTION_KEY, with a derived key id', () => {
    const raw = randomBytes(32);
    const [k] = keysFromEnv(raw.toString('base64'));
    expect(k.key.equals(raw)).toBe(true);
    expect(k.id).toBe(keyIdFor(raw));
    expect(k.id).toMatch(/^k[0-9a-f]{10}$/);
  });

  it('reads a rotation list id:key,id:key (first = primary)', () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    const keys = keysFromEnv(`new:${a.toString('base64')}, old:${b.toString('base64')}`);
    expect(keys.map((k) => k.id)).toEqual(['new', 'old']);
    const { vault } = loadVault({ encryptionKey: `old:${b.toString('base64')}`, dataDir: dir });
    const sealed = vault.seal('x', AAD);
    const both = loadVault({ encryptionKey: `new:${a.toString('base64')},old:${b.toString('base64')}`, dataDir: dir });
    expect(both.source).toBe('env');
    expect(both.vault.open(sealed, AAD)).toBe('x');
    expect(both.vault.primaryKeyId).toBe('new');
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => keysFromEnv(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => keysFromEnv('k:not-base64-at-all')).toThrow(/32 bytes/);
  });

  it('without a configured key, generates a key file once and reads it back', () => {
    const first = loadVault({ dataDir: dir });
    expect(first.source).toBe('file');
    expect(first.generatedKeyFile).toBe(keyFilePath(dir));
    expect(fs.statSync(keyFilePath(dir)).mode & 0o777).toBe(0o600);
    const sealed = first.vault.seal('persisted', AAD);
    const second = loadVault({ dataDir: dir });
    expect(second.generatedKeyFile).toBeUndefined();
    expect(second.vault.open(sealed, AAD)).toBe('persisted');
  });
});
