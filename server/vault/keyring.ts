import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictFile } from '../private-files';
import { keyIdFor, Vault, VaultError, type VaultKey } from './vault';

/**
 * Where the vault's keys come from.
 * - AGENTLINK_ENCRYPTION_KEY: one base64 32-byte key, or a comma list `id:base64key,...` (first = primary,
 *   the rest still open older values during a rotation).
 * - Otherwise (the embedded default) a key file in the data folder, generated on first start.
 */
export const KEY_FILE_NAME = 'vault-keys.json';

interface KeyFile {
  keys: { id: string; key: string; createdAt: string }[];
}

function parseKey(b64: string, where: string): Buffer {
  const key = Buffer.from(b64.trim(), 'base64');
  if (key.length !== 32) throw new VaultError(`${where}: an encryption key must be 32 bytes, base64-encoded (openssl rand -base64 32)`);
  return key;
}

export function keysFromEnv(value: string): VaultKey[] {
  return value.split(',').map((part, i) => {
    const idx = part.indexOf(':');
    if (idx > 0) return { id: part.slice(0, idx).trim(), key: parseKey(part.slice(idx + 1), `AGENTLINK_ENCRYPTION_KEY entry ${i + 1}`) };
    const key = parseKey(part, 'AGENTLINK_ENCRYPTION_KEY');
    return { id: keyIdFor(key), key };
  });
}

export function keyFilePath(dataDir: string) {
  return path.join(dataDir, KEY_FILE_NAME);
}

function readKeyFile(file: string): VaultKey[] {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as KeyFile;
  return parsed.keys.map((k) => ({ id: k.id, key: parseKey(k.key, file) }));
}

/** Writes the key file whole (temp file + rename); with `exclusive`, never replaces an existing one. */
export function writeKeyFile(file: string, keys: VaultKey[], exclusive = false): boolean {
  const body: KeyFile = { keys: keys.map((k) => ({ id: k.id, key: k.key.toString('base64'), createdAt: new Date().toISOString() })) };
  ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(body, null, 2), { mode: PRIVATE_FILE_MODE });
  // writeFileSync's mode passes through the umask; this does not.
  fs.chmodSync(tmp, PRIVATE_FILE_MODE);
  try {
    if (!exclusive) {
      fs.renameSync(tmp, file);
      return true;
    }
    try {
      fs.linkSync(tmp, file); // fails with EEXIST when another process created it first
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Key rotation for the key-file default: a new random key becomes the primary (it seals from now on) and
 * every older key stays in the file, so values sealed with them still open until they are re-sealed.
 */
export function addPrimaryKey(dataDir: string): { keyId: string; keyIds: string[]; file: string } {
  const file = keyFilePath(dataDir);
  if (!fs.existsSync(file)) throw new VaultError(`no key file at ${file}: start AgentLink once to generate it`);
  const existing = JSON.parse(fs.readFileSync(file, 'utf8')) as KeyFile;
  for (const k of existing.keys) parseKey(k.key, file);
  let key = randomBytes(32);
  while (existing.keys.some((k) => k.id === keyIdFor(key))) key = randomBytes(32);
  const entry = { id: keyIdFor(key), key: key.toString('base64'), createdAt: new Date().toISOString() };
  const body: KeyFile = { keys: [entry, ...existing.keys] };
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(body, null, 2), { mode: PRIVATE_FILE_MODE });
  fs.chmodSync(tmp, PRIVATE_FILE_MODE);
  fs.renameSync(tmp, file);
  return { keyId: entry.id, keyIds: body.keys.map((k) => k.id), file };
}

export function readKeys(dataDir: string): VaultKey[] {
  return readKeyFile(keyFilePath(dataDir));
}

export interface LoadedVault {
  vault: Vault;
  source: 'env' | 'file';
  /** Set when this start generated a new key file. */
  generatedKeyFile?: string;
}

export function loadVault(opts: { encryptionKey?: string; dataDir: string }): LoadedVault {
  if (opts.encryptionKey) return { vault: new Vault(keysFromEnv(opts.encryptionKey)), source: 'env' };
  const file = keyFilePath(opts.dataDir);
  if (fs.existsSync(file)) {
    // A key file from before modes were enforced (or copied in by hand) is tightened at start.
    ensurePrivateDir(opts.dataDir);
    restrictFile(file);
    return { vault: new Vault(readKeyFile(file)), source: 'file' };
  }
  const key = randomBytes(32);
  // Two processes starting at once: one creates the file, the other reads back the winner's key.
  const created = writeKeyFile(file, [{ id: keyIdFor(key), key }], true);
  return { vault: new Vault(readKeyFile(file)), source: 'file', ...(created ? { generatedKeyFile: file } : {}) };
}
