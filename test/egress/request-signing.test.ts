import { generateKeyPairSync } from 'node:crypto';

import { verify } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';

import { webBotAuthSigner } from '../../server/egress/request-signing';
import { agentKeyFromSeed } from '../../server/vault/agent-keys';

/**
 * The proxy's signing step on its own (request-signing.ts), with Cloudflare's verifier: what it covers, that another
 * host cannot reuse a signature, and that a request it cannot sign leaves with no signature header at all (never the
 * page's, never a half) and without a throw, which inside the proxy's handlers would end the process.
 */
const keyOf = (byte: number) => agentKeyFromSeed(Buffer.alloc(32, byte));
const forged = () => ({
  accept: '*/*',
  signature: 'sig1=:AAAA:',
  'signature-input': 'sig1=("@authority")',
  'signature-agent': '"https://evil"',
});

test('the signature covers the authority and the agent, under the web-bot-auth tag; another host cannot reuse it', async () => {
  const key = await keyOf(3);
  const headers: Record<string, string | string[]> = forged();
  const url = new URL('https://shop.example:8443/cart?id=1');
  webBotAuthSigner(key, 'https://agentlink.example.com/base/').sign('GET', url, headers);
  expect(headers['signature-agent']).toBe('"https://agentlink.example.com"');
  expect(headers['signature-input']).toMatch(
    /^sig1=\("@authority" "signature-agent"\);created=\d+;keyid="[\w-]+";alg="ed25519";expires=\d+;nonce="[^"]+";tag="web-bot-auth"$/,
  );
  const verifier = await verifierFromJWK(key.publicJwk);
  await expect(verify({ method: 'GET', url: url.toString(), headers }, verifier)).resolves.toBeUndefined();
  await expect(verify({ method: 'GET', url: 'https://other.example:8443/cart?id=1', headers }, verifier)).rejects.toThrow(
    'invalid signature',
  );
  await expect(
    verify({ method: 'GET', url: url.toString(), headers: { ...headers, 'signature-agent': '"https://evil"' } }, verifier),
  ).rejects.toThrow('invalid signature');
});

test('a request it cannot sign leaves unsigned, the page’s forged headers dropped, without a throw', async () => {
  const broken = { keyid: 'x', privateKey: generateKeyPairSync('x25519').privateKey }; // X25519 cannot sign
  const headers: Record<string, string | string[]> = forged();
  expect(() =>
    webBotAuthSigner(broken, 'https://agentlink.example.com').sign('GET', new URL('https://shop.example/'), headers),
  ).not.toThrow();
  expect(headers).toEqual({ accept: '*/*' });
});
