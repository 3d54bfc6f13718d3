import crypto, { createHash } from 'node:crypto';

import { newId } from '../../server/domain/ids';
import {
  decoySecretHash,
  generateClientId,
  generateClientSecret,
  hashSecret,
  scryptCost,
  secretEnvironment,
  verifySecret,
} from '../../server/domain/secrets';
import { generateToken, hashToken, parseToken } from '../../server/domain/tokens';

describe('tokens', () => {
  it.each([
    ['link', 'sandbox'],
    ['link', 'production'],
    ['public', 'sandbox'],
    ['public', 'production'],
    ['access', 'sandbox'],
    ['access', 'production'],
  ] as const)('generates %s-%s tokens that parse back', (kind, env) => {
    const token = generateToken(kind, env);
    expect(token).toMatch(new RegExp(`^${kind}-${env}-[A-Za-z0-9_-]{43}$`));
    // 43 base64url characters = 256 random bits.
    expect(Buffer.from(token.slice(-43), 'base64url')).toHaveLength(32);
    expect(parseToken(token)).toStrictEqual({ kind, environment: env });
  });

  it('never repeats', () => {
    const seen = new Set(Array.from({ length: 2000 }, () => generateToken('access', 'sandbox')));
    expect(seen.size).toBe(2000);
  });

  it.each([
    '',
    'access-sandbox-',
    `access-sandbox-${'a'.repeat(42)}`,
    `access-sandbox-${'a'.repeat(44)}`,
    `access-staging-${'a'.repeat(43)}`,
    `refresh-sandbox-${'a'.repeat(43)}`,
    `Access-sandbox-${'a'.repeat(43)}`,
    ` access-sandbox-${'a'.repeat(43)}`,
    `access-sandbox-${'a'.repeat(43)} `,
    `access-sandbox-${'a'.repeat(42)}=`,
    `access-sandbox-${'a'.repeat(42)}+`,
    `access-sandbox-${'a'.repeat(43)}\n`,
  ])('rejects %j', (token) => {
    expect(parseToken(token)).toBeNull();
  });

  it('hashes with SHA-256 (hex), deterministically', () => {
    const token = generateToken('public', 'sandbox');
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toBe(hashToken(generateToken('public', 'sandbox')));
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('client secrets', () => {
  it('generates secrets and ids in their documented shapes', () => {
    expect(generateClientSecret('sandbox')).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    expect(generateClientSecret('production')).toMatch(/^sk_production_[A-Za-z0-9_-]{43}$/);
    expect(generateClientId()).toMatch(/^cli_[0-9a-f]{24}$/);
  });

  it('reads the environment from the secret', () => {
    expect(secretEnvironment(generateClientSecret('sandbox'))).toBe('sandbox');
    expect(secretEnvironment(generateClientSecret('production'))).toBe('production');
    expect(secretEnvironment('sk_staging_' + 'a'.repeat(43))).toBeNull();
    expect(secretEnvironment('nope')).toBeNull();
  });

  it('hashes at N = 16384 outside the test environment, and verifies a hash made at either cost', async () => {
    expect(scryptCost('production')).toBe(16384);
    expect(scryptCost('development')).toBe(16384);
    expect(scryptCost(undefined)).toBe(16384);
    expect(scryptCost('test')).toBe(1024); // only jest's own environment hashes cheaply
    const secret = generateClientSecret('sandbox');
    const salt = crypto.randomBytes(16);
    const key = crypto.scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const production = `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(await verifySecret(secret, production)).toBe(true);
    expect(await verifySecret(generateClientSecret('sandbox'), production)).toBe(false);
  });

  it('hashes with salted scrypt and verifies only the right secret', async () => {
    const secret = generateClientSecret('sandbox');
    const [h1, h2] = await Promise.all([hashSecret(secret), hashSecret(secret)]);
    expect(h1).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/);
    expect(h1).not.toBe(h2);
    expect(h1).not.toContain(secret.slice(11));
    expect(await verifySecret(secret, h1)).toBe(true);
    expect(await verifySecret(secret, h2)).toBe(true);
    expect(await verifySecret(generateClientSecret('sandbox'), h1)).toBe(false);
    expect(await verifySecret(`${secret}x`, h1)).toBe(false);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    expect(await verifySecret('x', 'not-a-hash')).toBe(false);
    expect(await verifySecret('x', 'bcrypt$1$2$3$4$5')).toBe(false);
  });

  it('keeps one decoy hash that no secret matches', async () => {
    const decoy = await decoySecretHash();
    expect(await decoySecretHash()).toBe(decoy);
    expect(await verifySecret(generateClientSecret('sandbox'), decoy)).toBe(false);
  });
});

describe('ids', () => {
  it('are prefixed and random', () => {
    expect(newId('conn')).toMatch(/^conn_[0-9a-f]{24}$/);
    expect(newId('areq')).toMatch(/^areq_[0-9a-f]{24}$/);
    expect(newId('req')).not.toBe(newId('req'));
  });
});
