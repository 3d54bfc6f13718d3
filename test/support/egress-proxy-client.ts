import http from 'node:http';

import type { EgressProxy } from '../../server/egress/egress-proxy';

/** GET an absolute URL through an egress proxy, as a browser would ask it: the status, or 'closed' when the proxy dropped the connection. */
export function viaProxy(proxy: EgressProxy, url: string): Promise<number | 'closed'> {
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
    req.setTimeout(5_000, () => req.destroy());
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('closed'));
    });
    req.on('error', () => resolve('closed'));
    req.end();
  });
}
