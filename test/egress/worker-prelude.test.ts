import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

import { EgressPolicy } from '../../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { MAX_WORKER_SCRIPT_BYTES } from '../../server/egress/worker-prelude';

/**
 * The egress proxy puts a device's prelude in front of worker scripts (and of nothing else): whatever the upstream's
 * encoding it can read, with the length the new body has; an encoding it cannot read, or a script over the bound,
 * goes on as it came.
 */
const PRELUDE = '/*device*/';
const SCRIPT = 'postMessage(1);';
let site: http.Server;
let port = 0;
let proxy: EgressProxy;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const plain = Buffer.from(SCRIPT);
    if (path === '/gzip.js')
      return res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'gzip' }).end(zlib.gzipSync(plain));
    if (path === '/br.js')
      return res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'br' }).end(zlib.brotliCompressSync(plain));
    if (path === '/odd.js') return res.writeHead(200, { 'content-type': 'text/javascript', 'content-encoding': 'zz' }).end(plain);
    if (path === '/big.js')
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(Buffer.alloc(MAX_WORKER_SCRIPT_BYTES + 10, 0x20));
    if (path === '/missing.js') return res.writeHead(404).end('nope');
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(plain);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  const policy = EgressPolicy.forProvider(
    { name: 'Site', homeUrl: `http://site.localhost:${port}/`, allowedOrigins: ['site.localhost'] },
    'sandbox',
  );
  proxy = await startEgressProxy({ policy, onBlocked: () => undefined, workerPrelude: PRELUDE });
});

afterAll(async () => {
  await proxy?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

function get(path: string, dest: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const p = new URL(proxy.server);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: p.hostname,
      port: Number(p.port),
      path: `http://site.localhost:${port}${path}`,
      headers: { host: `site.localhost:${port}`, 'sec-fetch-dest': dest },
      agent: false,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

it.each(['worker', 'sharedworker', 'serviceworker'])('prefixes a %s script, with its new length', async (dest) => {
  const answer = await get('/w.js', dest);
  expect(answer.body.toString()).toBe(`${PRELUDE}\n${SCRIPT}`);
  expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
});

it('reads gzip and brotli, and sends the script decoded', async () => {
  for (const path of ['/gzip.js', '/br.js']) {
    const answer = await get(path, 'worker');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString()).toBe(`${PRELUDE}\n${SCRIPT}`);
  }
});

it('leaves alone what is not a worker script of its own to prefix', async () => {
  expect((await get('/w.js', 'script')).body.toString()).toBe(SCRIPT); // a worker's importScripts, or a page's script
  expect((await get('/odd.js', 'worker')).body.toString()).toBe(SCRIPT); // an encoding it cannot read
  expect(await get('/missing.js', 'worker')).toMatchObject({ status: 404 });
  expect((await get('/missing.js', 'worker')).body.toString()).toBe('nope');
  const big = await get('/big.js', 'worker');
  expect(big.body.length).toBe(MAX_WORKER_SCRIPT_BYTES + 10);
  expect(big.body.subarray(0, PRELUDE.length).toString()).not.toBe(PRELUDE);
});
