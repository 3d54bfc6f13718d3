import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

import { EgressPolicy } from '../../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { ByteBudget, MAX_WORKER_SCRIPT_BYTES, preludedScript, sendWithPrelude } from '../../server/egress/worker-prelude';
import { prologueEnd } from '../../server/page-code/script-prologue.page';

/**
 * The egress proxy puts a device's prelude in front of worker scripts (and of nothing else): whatever the upstream's
 * encoding it can read, with the length the new body has; an encoding it cannot read, or a script over the bound,
 * goes on as it came. In front of the script's statements, not of its hashbang or directive prologue, and on its
 * first line.
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
    if (path === '/data.json') return res.writeHead(200, { 'content-type': 'application/json', etag: '"d"' }).end('{"a":1}');
    if (path === '/untyped.js') return res.writeHead(200).end(plain);
    if (path === '/cached.js')
      return res
        .writeHead(200, {
          'content-type': 'application/javascript; charset=utf-8',
          'cache-control': 'public, max-age=600',
          etag: '"v1"',
          'last-modified': 'Sat, 01 Nov 2026 00:00:00 GMT',
        })
        .end(plain);
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
  expect(answer.body.toString()).toBe(`${PRELUDE};${SCRIPT}`);
  expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
});

it('reads gzip and brotli, and sends the script decoded', async () => {
  for (const path of ['/gzip.js', '/br.js']) {
    const answer = await get(path, 'worker');
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.toString()).toBe(`${PRELUDE};${SCRIPT}`);
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

it("sends what it prefixed as uncacheable, without the validators of the site's own answer", async () => {
  const answer = await get('/cached.js', 'worker');
  expect(answer.body.toString()).toBe(`${PRELUDE};${SCRIPT}`);
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers.etag).toBeUndefined();
  expect(answer.headers['last-modified']).toBeUndefined();
});

it("prefixes only JavaScript: a worker's answer of another type (or none) goes on as it came", async () => {
  const data = await get('/data.json', 'worker');
  expect(data.body.toString()).toBe('{"a":1}');
  expect(data.headers.etag).toBe('"d"');
  expect((await get('/untyped.js', 'worker')).body.toString()).toBe(SCRIPT);
});

it('holds no more than its budget at once: beyond it a script goes on unchanged', async () => {
  const budget = new ByteBudget(64);
  const front = http.createServer((req, res) => {
    http.get(`http://127.0.0.1:${port}/w.js`, (answer) => sendWithPrelude(answer, res, 200, PRELUDE, budget));
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const fetchFront = async () => (await fetch(`http://127.0.0.1:${(front.address() as AddressInfo).port}/`)).text();
  try {
    expect(budget.take(60)).toBe(true); // other scripts being held
    expect(await fetchFront()).toBe(SCRIPT);
    budget.give(60);
    expect(await fetchFront()).toBe(`${PRELUDE};${SCRIPT}`);
    expect(budget.inUse).toBe(0); // what a script held is given back once it is sent
  } finally {
    front.closeAllConnections();
    await new Promise((r) => front.close(r));
  }
});

describe('where the prelude goes in a script', () => {
  // [script, the prologue as it is kept in front of the prelude]
  it.each([
    ['postMessage(1);', ''],
    ['"use strict";x()', '"use strict";'],
    ["  'use strict' ; x()", "  'use strict' ;"],
    ['/* licence\n */\n// note\n"use strict";\n"use asm";f()', '/* licence\n */\n// note\n"use strict";\n"use asm";'],
    ['"use strict"\nx()', '"use strict"'], // ended by a line break (ASI)
    ['"use strict"\n"other"\nx()', '"use strict"\n"other"'],
    ['"use strict"', '"use strict"'], // the whole script
    ['"a\\"b";x()', '"a\\"b";'], // an escaped quote inside
    ['#!/usr/bin/env node\n"use strict";x()', '#!/usr/bin/env node\n"use strict";'],
    ['#!/usr/bin/env node\r\nx()', '#!/usr/bin/env node\r\n'],
  ])('%j keeps %j in front', (script, kept) => {
    expect(script.slice(0, prologueEnd(script))).toBe(kept);
  });

  // A string that begins an expression is no directive: the prelude goes before it, as before any statement.
  it.each([
    '"use strict" + x;',
    '"use strict".length;',
    '"a"\n+ x;',
    '"a"\n.length',
    '"a"\n(x)',
    '"a"\nin o',
    '"a"\ninstanceof O',
    '"a"\n`t`',
    '"unterminated\n";',
    'x = "use strict";',
  ])('%j has no prologue', (script) => {
    expect(prologueEnd(script)).toBe(0);
  });

  it('keeps the directives before an expression that begins with a string', () => {
    expect(prologueEnd('"use strict";\n"a" + b;')).toBe('"use strict";'.length);
  });

  it('stops at its bound: what it could not read to the end gets the prelude in front', () => {
    const long = `/*${' '.repeat(300_000)}*/"use strict";x()`;
    expect(prologueEnd(long)).toBe(0);
    expect(prologueEnd(long, long.length)).toBe(long.length - 'x()'.length);
  });

  it('puts the prelude on the first line, after a byte-order mark and the prologue, joined by semicolons', () => {
    const text = (script: string) => preludedScript('P()', Buffer.from(script)).toString();
    expect(text('x()\ny()')).toBe('P();x()\ny()');
    expect(text('"use strict";x()')).toBe('"use strict";;P();x()');
    expect(text('"use strict"\nx()')).toBe('"use strict";P();\nx()');
    expect(text('\ufeff"use strict";x()')).toBe('\ufeff"use strict";;P();x()');
    // UTF-8 in the prologue (a comment, a directive): offsets are bytes, nothing cut in the middle of a character.
    expect(text('// é ☃\n"ü";x("☃")')).toBe('// é ☃\n"ü";;P();x("☃")');
  });
});
