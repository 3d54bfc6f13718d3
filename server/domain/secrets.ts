import { randomBytes, scrypt as scryptCb, type ScryptOptions, timingSafeEqual } from 'node:crypto';

import type { Environment } from '../config';

/**
 * Client secrets: `sk_<environment>_<43 base64url chars>`. Stored as scrypt hashes
 * (`scrypt$N$r$p$salt$hash`) so a leaked database does not hand out working credentials.
 */
const SECRET_PATTERN = /^sk_(sandbox|production)_([A-Za-z0-9_-]{43})$/;
/**
 * scrypt's cost (N). The test environment lowers it, as Rails and Devise lower bcrypt's stretches under test: hashing
 * was half the CPU of the API test files, and a stored hash names its own N, so a hash made at either cost verifies.
 */
export function scryptCost(nodeEnv: string | undefined): number {
  return nodeEnv === 'test' ? 1024 : 16384;
}
const PARAMS = { N: scryptCost(process.env.NODE_ENV), r: 8, p: 1 } as const;
const KEY_LEN = 32;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

export function generateClientSecret(environment: Environment): string {
  return `sk_${environment}_${randomBytes(32).toString('base64url')}`;
}

export function generateClientId(): string {
  return `cli_${randomBytes(12).toString('hex')}`;
}

export function secretEnvironment(secret: string): Environment | null {
  const m = SECRET_PATTERN.exec(secret);
  return m ? (m[1] as Environment) : null;
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_LEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const expected = Buffer.from(parts[5], 'base64');
  const actual = await scrypt(secret, salt, expected.length, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return timingSafeEqual(actual, expected);
}

/** A hash of a random secret nobody holds: verified against when the client id is unknown, so timing does not tell. */
let decoyHash: Promise<string> | undefined;
export function decoySecretHash(): Promise<string> {
  decoyHash ??= hashSecret(generateClientSecret('sandbox'));
  return decoyHash;
}
