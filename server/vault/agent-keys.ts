import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

import { helpers, jwkToKeyID } from 'web-bot-auth';

import type { Vault } from './vault';

/**
 * The deployment's Web Bot Auth keys (Ed25519): the identity sites can verify on the requests of organizations that
 * opted in (server/egress/request-signing.ts), published at /.well-known/http-message-signatures-directory.
 *
 * Each key is derived from a vault key (HKDF, like Vault.deriveKey) rather than generated and stored: every process of
 * a deployment (API, workers) holds the same key with nothing more to store, back up or race to create, and the private
 * half is exactly as secret as the vault's keys. `vault rotate-key` makes a new primary vault key, so a new signing
 * key; the older vault keys stay configured during the rotation (until `vault status` shows nothing left under them),
 * and so do their public keys in the directory: requests signed just before a restart still verify.
 */
export interface AgentKey {
  /** The JWK thumbprint (RFC 7638) of the public key: the `keyid` of every signature. */
  keyid: string;
  privateKey: KeyObject;
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}

const PURPOSE = 'web-bot-auth-ed25519';
/** Keys the directory lists at most: the signing key and two older ones still in their grace period. */
export const AGENT_KEYS_LISTED_MAX = 3;
/** PKCS #8 wrapping of a 32-byte Ed25519 seed (RFC 8410): node:crypto takes a raw private key only in this form. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

async function agentKey(seed: Buffer): Promise<AgentKey> {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicJwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, x: x! };
  const keyid = await jwkToKeyID(publicJwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
  return { keyid, privateKey, publicJwk };
}

/** The signing key first (the primary vault key's), then the older ones still listed. */
export async function agentKeys(vault: Pick<Vault, 'deriveKeys'>): Promise<AgentKey[]> {
  return Promise.all(
    vault
      .deriveKeys(PURPOSE)
      .slice(0, AGENT_KEYS_LISTED_MAX)
      .map((k) => agentKey(k.key)),
  );
}
