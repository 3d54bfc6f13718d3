// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';

import { createPrivateKey, webcrypto } from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import type net from 'node:net';

import * as x509 from '@peculiar/x509';

/**
 * An HTTPS site on loopback for tests, with its own self-signed CA: the egress proxy reaches it only when given that
 * CA (`upstreamCa`), as an operator would give an internal CA. Names: `localhost`, `*.localhost` and 127.0.0.1.
 */
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export interface TlsSite {
  server: https.Server;
  port: number;
  /** The CA that signed the site's certificate (PEM). */
  caPem: string;
  close(): Promise<void>;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function tlsCredentials(names: readonly string[]): Promise<{ key: string; cert: string; caPem: string }> {
  const subtle = webcrypto.subtle;
  const caKeys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=AgentLink test site CA',
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: ALGORITHM,
    keys: caKeys,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const keys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=localhost',
    issuer: ca.subject,
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.SubjectAlternativeNameExtension([
        ...names.map((value) => ({ type: 'dns' as const, value })),
        { type: 'ip', value: '127.0.0.1' },
      ]),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  const key = createPrivateKey({ key: Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey)), format: 'der', type: 'pkcs8' })
    .export({ format: 'pem', type: 'pkcs8' })
    .toString();
  return { key, cert: leaf.toString('pem'), caPem: ca.toString('pem') };
}

export async function startTlsSite(handler: http.RequestListener, names: readonly string[] = ['localhost'], port = 0): Promise<TlsSite> {
  const { key, cert, caPem } = await tlsCredentials(names);
  const server = https.createServer({ key, cert }, handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    server,
    port: (server.address() as net.AddressInfo).port,
    caPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
