import type http from 'node:http';
import zlib from 'node:zlib';

import { prologueEnd } from '../page-code/script-prologue.page';
import { endToEnd } from './proxy-headers';

/**
 * A context's device reaches its workers here. A dedicated, shared or service worker is a realm of its own: no init
 * script of the page runs in it, and the DevTools overrides that reach it leave it half the device's (the machine's
 * platform, one language, no brands). Its script is fetched through the context's egress proxy like everything else,
 * so the proxy puts the device's prelude (the same code the pages run first, device.page.ts) in front of it: every
 * worker loaded from the network starts as the device, in every context, without any DevTools session.
 */

/**
 * The `Sec-Fetch-Dest` of a worker's script: its top-level one, and each static import of a module worker (Chromium
 * sends those as `worker` too, so every module of the graph runs the prelude: its effects are the same run once or many
 * times). A classic worker's importScripts are `script`, left alone: they run after its prelude.
 */
const WORKER_DESTS = new Set(['worker', 'sharedworker', 'serviceworker']);

/** A worker script larger than this is passed on as it is (a bound on what the proxy holds in memory). */
export const MAX_WORKER_SCRIPT_BYTES = 8 * 1024 * 1024;

export function isWorkerScript(headers: Record<string, string | string[]>): boolean {
  const dest = headers['sec-fetch-dest'];
  return typeof dest === 'string' && WORKER_DESTS.has(dest.toLowerCase());
}

/**
 * What the proxies of this process may hold of worker scripts at once: each script is held whole to be prefixed, and a
 * page can start many workers at a time. Beyond it a script is passed on unchanged, without the prelude (its worker runs
 * as the machine, not the device: the lesser harm than the proxy's memory growing with what a page asks for).
 */
export const MAX_BUFFERED_WORKER_BYTES = 32 * 1024 * 1024;

/** A budget of bytes held at once (one per egress proxy, shared by its answers in flight). */
export class ByteBudget {
  private held = 0;
  constructor(readonly max: number = MAX_BUFFERED_WORKER_BYTES) {}
  /** Takes `n` bytes; false (nothing taken) when that would go past the bound. */
  take(n: number): boolean {
    if (this.held + n > this.max) return false;
    this.held += n;
    return true;
  }
  give(n: number): void {
    this.held = Math.max(0, this.held - n);
  }
  get inUse(): number {
    return this.held;
  }
}

/**
 * The JavaScript MIME types (WHATWG MIME Sniffing, "JavaScript MIME type"), parameters aside. Only an answer of one of
 * these gets the prelude: anything else a worker asks for (JSON, HTML, an image) is data another request may read from
 * the cache, and a module worker's script must be one of these anyway.
 */
const JAVASCRIPT_TYPES = new Set([
  'application/ecmascript',
  'application/javascript',
  'application/x-ecmascript',
  'application/x-javascript',
  'text/ecmascript',
  'text/javascript',
  'text/javascript1.0',
  'text/javascript1.1',
  'text/javascript1.2',
  'text/javascript1.3',
  'text/javascript1.4',
  'text/javascript1.5',
  'text/jscript',
  'text/livescript',
  'text/x-ecmascript',
  'text/x-javascript',
]);

export function isJavaScriptType(contentType: string | string[] | undefined): boolean {
  if (typeof contentType !== 'string') return false;
  return JAVASCRIPT_TYPES.has(contentType.split(';')[0].trim().toLowerCase());
}

type Decode = (b: Buffer, done: (err: Error | null, out?: Buffer) => void) => void;

/** The decoder for a Content-Encoding the proxy can read (null: one it cannot, the answer then goes on untouched). */
function decoder(encoding: string | undefined): Decode | null {
  // Off the event loop (zlib's thread pool): a large script decoded in one go would stall every other request.
  const bounded = { maxOutputLength: MAX_WORKER_SCRIPT_BYTES };
  switch ((encoding ?? 'identity').trim().toLowerCase()) {
    case 'identity':
    case '':
      return (b, done) => done(null, b);
    case 'gzip':
    case 'x-gzip':
      return (b, done) => zlib.gunzip(b, bounded, done);
    case 'deflate':
      return (b, done) => zlib.inflate(b, bounded, done);
    case 'br':
      return (b, done) => zlib.brotliDecompress(b, bounded, done);
    default:
      return null;
  }
}

/**
 * The headers of an answer the prelude was put in: it is ours, for this worker only, so no cache may keep it (an
 * ordinary fetch of the same URL would be served our code) or revalidate it as the site's.
 */
function prefixedHeaders(headers: Record<string, string | string[]>, length: number): Record<string, string | string[]> {
  const out = { ...headers };
  for (const name of ['content-encoding', 'content-length', 'etag', 'last-modified', 'expires', 'cache-control', 'age']) delete out[name];
  return { ...out, 'cache-control': 'no-store', 'content-length': String(length) };
}

/** How far into a script its prologue is looked for (script-prologue.page.ts): a licence comment fits, a bundle need not. */
const PROLOGUE_SCAN_BYTES = 256 * 1024;

/**
 * `script` with `prelude` where its statements begin: after its byte-order mark, hashbang and directive prologue, so a
 * "use strict" stays a directive, and on the script's own first line (joined by `;`), so every line of the site's
 * script keeps its number in stacks and error events. Read as Latin-1, one character per byte, the scan's offsets are
 * byte offsets, and no byte of a multi-byte UTF-8 character reads as a quote, a backslash, a slash or a line end.
 */
export function preludedScript(prelude: string, script: Buffer): Buffer {
  const bom = script[0] === 0xef && script[1] === 0xbb && script[2] === 0xbf ? 3 : 0;
  // One byte past the scan's bound: a script longer than the bound never reads as ending inside it.
  const at = prologueEnd(script.toString('latin1', bom, bom + PROLOGUE_SCAN_BYTES + 1), PROLOGUE_SCAN_BYTES);
  return Buffer.concat([script.subarray(0, bom + at), Buffer.from(`${at ? ';' : ''}${prelude};`), script.subarray(bom + at)]);
}

/**
 * Sends a worker script's answer on with `prelude` in front of it. Anything that is not a whole script of ours to
 * prefix (not a 200, not JavaScript, an encoding the proxy cannot read, a body over the bound or over what `budget`
 * has left) is passed on as it came, after what was already read: the worker then runs, only without the prelude.
 */
export function sendWithPrelude(
  answer: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  prelude: string,
  budget: ByteBudget,
): void {
  answer.on('error', () => res.destroy());
  const headers = endToEnd(answer.rawHeaders);
  const script = status === 200 && isJavaScriptType(headers['content-type']);
  const decode = script ? decoder(headers['content-encoding'] as string | undefined) : null;
  if (!decode) {
    res.writeHead(status, headers);
    answer.pipe(res);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let taken = 0;
  const release = () => {
    budget.give(taken);
    taken = 0;
  };
  answer.once('close', release);
  res.once('close', release);
  // The upstream is not ours: a header writeHead refuses must end this answer, not the process (as in the proxy).
  const safely = (send: () => void) => {
    try {
      send();
    } catch {
      answer.destroy();
      res.destroy();
    }
  };
  const passOn = () =>
    safely(() => {
      answer.removeListener('data', onData);
      answer.removeListener('end', onEnd);
      release();
      res.writeHead(status, headers);
      for (const c of chunks) res.write(c);
      chunks.length = 0;
      answer.pipe(res);
    });
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_WORKER_SCRIPT_BYTES || !budget.take(chunk.length)) return passOn();
    taken += chunk.length;
  };
  const onEnd = () => {
    const raw = Buffer.concat(chunks);
    decode(raw, (err, decoded) => {
      release();
      if (res.destroyed) return;
      safely(() => {
        if (err || !decoded) {
          res.writeHead(status, headers);
          return void res.end(raw);
        }
        const body = preludedScript(prelude, decoded);
        res.writeHead(status, prefixedHeaders(headers, body.length));
        res.end(body);
      });
    });
  };
  answer.on('data', onData);
  answer.on('end', onEnd);
}
