import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';

import type * as X509 from '@peculiar/x509';

/**
 * The certificate authority with which a context's egress proxy opens the browser's TLS tunnels, so that it sees the
 * method of every request and every WebSocket frame inside them (see egress-proxy.ts). It is generated in memory when
 * the process first needs it, never written anywhere, and trusted by nothing but the Chromium this process launches:
 * the launch passes `--ignore-certificate-errors-spki-list` with this CA's key hash, which accepts a chain only when
 * one of its certificates carries that key. The proxy verifies every upstream certificate itself (Node's TLS against
 * the system's roots), so the browser still never talks to a server whose certificate would not have passed.
 *
 * ECDSA P-256 through WebCrypto: a key pair in about a millisecond, a leaf certificate in about two.
 */

/**
 * The certificate library, loaded when the first authority is made: it takes a good part of a second to load, which
 * every process (and every test file) paid whether or not it ever opened a fenced context.
 */
async function loadX509(): Promise<typeof X509> {
  // @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API first.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  return x509;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Leaf certificates kept per host name (a context rarely sees more than a few hosts; a process, a few hundred). */
const LEAF_CACHE_MAX = 1000;
const DAY_MS = 86_400_000;

export interface InterceptionAuthority {
  /** Base64 SHA-256 of the CA's SubjectPublicKeyInfo, for Chromium's `--ignore-certificate-errors-spki-list`. */
  readonly spkiHash: string;
  /** A TLS context presenting a certificate for `host` (a name or an IP literal), chained to this CA. */
  contextFor(host: string): Promise<tls.SecureContext>;
}

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

async function createAuthority(): Promise<InterceptionAuthority> {
  const x509 = await loadX509();
  const subtle = webcrypto.subtle;
  // Not extractable: the CA's private key signs leaves in this process and can never be exported.
  const caKeys = (await subtle.generateKey(ALGORITHM, false, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=AgentLink egress interception (this process only)',
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  // One key for every leaf: the leaf's key protects nothing beyond the loopback hop between browser and proxy.
  const leafKeys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leafKeyPem = createPrivateKey({
    key: Buffer.from(await subtle.exportKey('pkcs8', leafKeys.privateKey)),
    format: 'der',
    type: 'pkcs8',
  }).export({ format: 'pem', type: 'pkcs8' }) as string;
  const caPem = ca.toString('pem');
  const spkiHash = createHash('sha256').update(Buffer.from(ca.publicKey.rawData)).digest('base64');

  const leaves = new Map<string, Promise<tls.SecureContext>>();
  const issue = async (host: string): Promise<tls.SecureContext> => {
    const ip = net.isIP(host);
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${ip ? host : host.slice(0, 64)}`,
      issuer: ca.subject,
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 365 * DAY_MS),
      signingAlgorithm: ALGORITHM,
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: ip ? 'ip' : 'dns', value: host }]),
        await x509.AuthorityKeyIdentifierExtension.create(ca, false),
      ],
    });
    return tls.createSecureContext({ key: leafKeyPem, cert: `${leaf.toString('pem')}\n${caPem}\n` });
  };

  return {
    spkiHash,
    contextFor(host) {
      const key = host.toLowerCase();
      let pending = leaves.get(key);
      if (!pending) {
        if (leaves.size >= LEAF_CACHE_MAX) leaves.delete(leaves.keys().next().value as string);
        pending = issue(key);
        leaves.set(key, pending);
        pending.catch(() => leaves.delete(key));
      }
      return pending;
    },
  };
}

let authority: Promise<InterceptionAuthority> | null = null;

/** This process's interception CA, created on first use. */
export function interceptionAuthority(): Promise<InterceptionAuthority> {
  authority ??= createAuthority();
  return authority;
}
