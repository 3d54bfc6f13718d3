/**
 * Web Bot Auth bench (issue #36): what signing each request at the egress proxy costs (target ≤ 0.2 ms per request),
 * measured side by side in one run.
 *
 *   npm run bench:web-bot-auth                    # 15 rounds of 400 signatures, 15 rounds of 100 proxied requests
 *   npm run bench:web-bot-auth -- --rounds 31
 *
 * Rows:
 *   - sign(): the proxy's whole signing step (server/egress/request-signing.ts: drop the page's headers, Signature-Agent,
 *     nonce, the `web-bot-auth` library's signature base, Ed25519) on a browser-sized header set; wall time and CPU time
 *     per request (the CPU time is the cost; the wall time also holds whatever else the machine runs);
 *   - Ed25519 alone: node:crypto's signature of a base of the same size (the floor of any signer);
 *   - through the proxy: GETs to a loopback site through a real egress proxy, with the signer and without, in alternating
 *     rounds; the median per request of each and their difference, in wall time and in this process's CPU time (the
 *     client, the proxy and the site all run here: the CPU difference is the signing in place, with cold caches, plus
 *     the ~450 header bytes more to write and parse);
 *   - loading the stored key: what a process pays once, on its first signature or directory request (open the
 *     vault-sealed seed, build the Ed25519 key objects, the JWK thumbprint), beside deriving it by HKDF as before.
 */
import { randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

import { EgressPolicy } from '../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../server/egress/egress-proxy';
import { webBotAuthSigner } from '../server/egress/request-signing';
import { agentKeyFromSeed, derivedAgentKeySeed } from '../server/vault/agent-keys';
import { Vault } from '../server/vault/vault';
import { requestViaProxy } from '../test/support/egress-proxy-client';

const { values } = parseArgs({ args: process.argv.slice(2), options: { rounds: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 15);
const SIGNS_PER_ROUND = 400;
const REQUESTS_PER_ROUND = 100;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(3)} ms`;

/** What Chromium sends with a sub-resource request, after the device's rewrite: the set the signer works on. */
const browserHeaders = (): Record<string, string | string[]> => ({
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36',
  accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'sec-ch-ua': '"Chromium";v="143", "Not A(Brand";v="24", "Google Chrome";v="143"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Linux"',
  'sec-fetch-dest': 'image',
  'sec-fetch-mode': 'no-cors',
  'sec-fetch-site': 'same-origin',
  referer: 'https://app.example.com/invoices?page=2',
  cookie: 'session=0123456789abcdef0123456789abcdef; theme=dark',
});

async function main() {
  const key = await agentKeyFromSeed(Buffer.alloc(32, 9));
  const signer = webBotAuthSigner(key, 'https://agentlink.example.com');
  const url = new URL('https://app.example.com/assets/logo.png?v=3');
  const base = Buffer.alloc(420, 'a'); // the size of the signature base sign() builds for this request

  const wall: number[] = [];
  const cpu: number[] = [];
  const floor: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < SIGNS_PER_ROUND; i++) signer.sign('GET', url, browserHeaders());
    wall.push((performance.now() - t0) / SIGNS_PER_ROUND);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000 / SIGNS_PER_ROUND);
    const t1 = performance.now();
    for (let i = 0; i < SIGNS_PER_ROUND; i++) sign(null, base, key.privateKey);
    floor.push((performance.now() - t1) / SIGNS_PER_ROUND);
  }

  const site = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.signature ? 's' : 'u'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const origin = `http://bench.localhost:${(site.address() as AddressInfo).port}`;
  const policy = EgressPolicy.forProvider({ name: 'Bench', homeUrl: `${origin}/`, allowedOrigins: ['bench.localhost'] }, 'sandbox');
  const plain = await startEgressProxy({ policy, onBlocked: () => undefined });
  const signed = await startEgressProxy({ policy, onBlocked: () => undefined, signer });
  // This process is the client, the proxy and the site: its CPU time per request is the whole exchange's.
  const cpuRounds: Record<'u' | 's', number[]> = { u: [], s: [] };
  const perRequest = async (proxy: EgressProxy, expect: 'u' | 's') => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
      const answer = await requestViaProxy(proxy, `${origin}/r${i}`);
      if (answer === 'closed' || answer.body !== expect) throw new Error(`unexpected answer through the proxy: ${JSON.stringify(answer)}`);
    }
    const c = process.cpuUsage(c0);
    cpuRounds[expect].push((c.user + c.system) / 1000 / REQUESTS_PER_ROUND);
    return (performance.now() - t0) / REQUESTS_PER_ROUND;
  };
  const unsignedRounds: number[] = [];
  const signedRounds: number[] = [];
  await perRequest(plain, 'u'); // warm both (first connections, JIT)
  await perRequest(signed, 's');
  cpuRounds.u.length = 0;
  cpuRounds.s.length = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Which goes first alternates: neither row always meets the other's leftovers (sockets, garbage).
    if (r % 2) signedRounds.push(await perRequest(signed, 's'));
    unsignedRounds.push(await perRequest(plain, 'u'));
    if (!(r % 2)) signedRounds.push(await perRequest(signed, 's'));
  }
  await Promise.all([plain.close(), signed.close()]);
  site.close();

  const u = median(unsignedRounds);
  const s = median(signedRounds);
  console.log(`Web Bot Auth signing, ${ROUNDS} rounds (medians of the rounds' means)`);
  console.log(`  sign() per request:        wall ${ms(median(wall))}   CPU ${ms(median(cpu))}   (target ≤ 0.2 ms)`);
  console.log(`  Ed25519 alone (the floor): wall ${ms(median(floor))}`);
  console.log(
    `  through the egress proxy:  unsigned ${ms(u)}   signed ${ms(s)}   difference ${ms(s - u)} per request (${(s / u).toFixed(3)}×)`,
  );
  const cu = median(cpuRounds.u);
  const cs = median(cpuRounds.s);
  console.log(`    CPU per request:         unsigned ${ms(cu)}   signed ${ms(cs)}   difference ${ms(cs - cu)}`);

  // Once per process: the stored, sealed key opened, against the former derivation from the vault key.
  const vault = new Vault([{ id: 'bench', key: randomBytes(32) }]);
  const sealed = vault.seal(randomBytes(32).toString('base64url'), 'deployment-key:bench');
  const stored: number[] = [];
  const derived: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await agentKeyFromSeed(Buffer.from(vault.open(sealed, 'deployment-key:bench'), 'base64url'));
    stored.push(performance.now() - t0);
    const t1 = performance.now();
    await agentKeyFromSeed(derivedAgentKeySeed(vault));
    derived.push(performance.now() - t1);
  }
  console.log(`  key load, once per process: stored and sealed ${ms(median(stored))}   derived (before) ${ms(median(derived))}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
