import { createPrivateKey, createPublicKey, type KeyObject, randomBytes } from 'node:crypto';

import { helpers, jwkToKeyID } from 'web-bot-auth';

import type { Vault } from './vault';

/**
 * The deployment's Web Bot Auth key (Ed25519): the identity sites can verify on the requests of organizations that
 * opted in (server/egress/request-signing.ts), published at /.well-known/http-message-signatures-directory. Its 32-byte
 * seed is random, stored sealed by the vault (server/domain/agent-signing-keys.ts); this module only turns a seed
 * into the key and its public JWK.
 */
export interface AgentKey {
  /** The JWK thumbprint (RFC 7638) of the public key: the `keyid` of every signature. */
  keyid: string;
  privateKey: KeyObject;
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
}

/** PKCS #8 wrapping of a 32-byte Ed25519 seed (RFC 8410): node:crypto takes a raw private key only in this form. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
export const AGENT_KEY_SEED_BYTES = 32;

/** A new random seed (the deployment's key is made once, then kept sealed). */
export const newAgentKeySeed = (): Buffer => randomBytes(AGENT_KEY_SEED_BYTES);

/**
 * The seed deployments before the stored key used: derived (HKDF) from the primary vault key. Kept only to adopt it
 * once, when the stored key is first made where an organization already signs (agent-signing-keys.ts).
 */
export const derivedAgentKeySeed = (vault: Pick<Vault, 'deriveKey'>): Buffer => vault.deriveKey('web-bot-auth-ed25519');

export async function agentKeyFromSeed(seed: Buffer): Promise<AgentKey> {
  if (seed.length !== AGENT_KEY_SEED_BYTES) throw new Error('an Ed25519 seed is 32 bytes');
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  const publicJwk = { kty: 'OKP' as const, crv: 'Ed25519' as const, x: x! };
  const keyid = await jwkToKeyID(publicJwk, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE);
  return { keyid, privateKey, publicJwk };
}
