/**
 * The egress bench's upstream: a small HTTPS app on loopback with its own CA (test/support/tls-site.ts), in a process
 * of its own as a real provider is. A page with a stylesheet, two scripts, four images, a JSON read and a JSON write.
 *
 * Env: BENCH_PORT, BENCH_HOST (the name its certificate carries).
 */
import type http from 'node:http';

import { startTlsSite } from '../../test/support/tls-site';
import { exitWithParent, portFromEnv, send } from './protocol';

const PAGE = `<!doctype html><html><head><title>App</title><link rel="stylesheet" href="/app.css">
<script src="/vendor.js"></script><script src="/app.js" defer></script></head>
<body><h1>Items</h1>${[1, 2, 3, 4].map((i) => `<img src="/img/${i}.svg" width="16" height="16">`).join('')}<ul id="items"></ul></body></html>`;
const APP_JS = `fetch('/api/items').then((r) => r.json()).then((items) => {
  document.getElementById('items').innerHTML = items.map((i) => '<li>' + i + '</li>').join('');
  return fetch('/api/save', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seen: items.length }) });
}).catch(() => null).then(() => { window.__done = true; });`;
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>';

function siteHandler(): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const send = (type: string, body: string, status = 200) => res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method === 'POST') {
      req.resume();
      return req.on('end', () => send('application/json', '{"ok":true}'));
    }
    if (path === '/') return send('text/html', PAGE);
    if (path === '/app.css') return send('text/css', 'body{font:14px sans-serif}li{margin:2px}');
    if (path === '/vendor.js') return send('text/javascript', `window.vendor = ${JSON.stringify('x'.repeat(60_000))}.length;`);
    if (path === '/app.js') return send('text/javascript', APP_JS);
    if (path.startsWith('/img/')) return send('image/svg+xml', SVG);
    if (path === '/api/items') return send('application/json', JSON.stringify(Array.from({ length: 20 }, (_, i) => `item ${i}`)));
    return send('text/plain', 'not found', 404);
  };
}

exitWithParent();
startTlsSite(siteHandler(), [process.env.BENCH_HOST ?? 'localhost'], portFromEnv())
  .then((site) => send({ type: 'ready', port: site.port, caPem: site.caPem }))
  .catch((err: unknown) => send({ type: 'fatal', message: String(err) }));
