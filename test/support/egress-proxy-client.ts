import http from 'node:http';

import type { EgressProxy } from '../../server/egress/egress-proxy';

/**
 * GET an absolute URL through an egress proxy, as a browser would ask it: the status and body, or 'closed' when the
 * proxy dropped the connection.
 */
export function requestViaProxy(proxy: EgressProxy, url: string, timeoutMs = 10_000): Promise<{ status: number; body: string } | 'closed'> {
  const p = new URL(proxy.server);
  return new Promise((resolve) => {
    const req = http.request({
      host: p.hostname,
      port: Number(p.port),
      method: 'GET',
      path: url,
      headers: { host: new URL(url).host },
      agent: false,
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
    req.end();
  });
}

/** The same, the status alone. */
export async function viaProxy(proxy: EgressProxy, url: string): Promise<number | 'closed'> {
  const answer = await requestViaProxy(proxy, url, 5_000);
  return answer === 'closed' ? answer : answer.status;
}
