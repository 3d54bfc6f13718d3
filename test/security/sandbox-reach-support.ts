import http from 'node:http';
import type net from 'node:net';

import type { EgressProvider } from '../../server/egress/egress-policy';
import type { EgressProxy } from '../../server/egress/egress-proxy';

/**
 * What sandbox-reach.security.test.ts points a tenant's provider at and asks through the egress proxy with: loopback
 * servers that count what reaches them, an organization's sandbox provider, and a CONNECT tunnel through the proxy.
 */

/** A loopback server that counts what reaches it. */
export interface Counting {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

export async function countingServer(): Promise<Counting> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title><h1>hello</h1>');
  });
  server.on('connect', (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An organization's sandbox provider (source: organization) with its home URL and allowed origins. */
export const tenant = (homeUrl: string, allowedOrigins: string[]): EgressProvider => ({
  name: 'Tenant CRM',
  homeUrl,
  allowedOrigins,
  source: 'organization',
});

/** CONNECT host:port through the proxy: the proxy's answer, or 'closed'. */
export function tunnelViaProxy(proxy: EgressProxy, authority: string): Promise<number | 'closed'> {
  const p = new URL(proxy.server);
  return new Promise((resolve) => {
    const req = http.request({ host: p.hostname, port: Number(p.port), method: 'CONNECT', path: authority, agent: false });
    req.setTimeout(5_000, () => req.destroy());
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('closed'));
    req.end();
  });
}
