import type http from 'node:http';
import zlib from 'node:zlib';

import { endToEnd } from './proxy-headers';

/**
 * A context's device reaches its workers here. A dedicated, shared or service worker is a realm of its own: no init
 * script of the page runs in it, and the DevTools overrides that reach it leave it half the device's (the machine's
 * platform, one language, no brands). Its script is fetched through the context's egress proxy like everything else,
 * so the proxy puts the device's prelude (the same code the pages run first, device.page.ts) in front of it: every
 * worker loaded from the network starts as the device, in every context, without any DevTools session.
 */

/** The `Sec-Fetch-Dest` of a worker's top-level script (its importScripts are `script` and are left alone). */
const WORKER_DESTS = new Set(['worker', 'sharedworker', 'serviceworker']);

/** A worker script larger than this is passed on as it is (a bound on what the proxy holds in memory). */
export const MAX_WORKER_SCRIPT_BYTES = 8 * 1024 * 1024;

export function isWorkerScript(headers: Record<string, string | string[]>): boolean {
  const dest = headers['sec-fetch-dest'];
  return typeof dest === 'string' && WORKER_DESTS.has(dest.toLowerCase());
}

/** The decoder for a Content-Encoding the proxy can read (null: one it cannot, the answer then goes on untouched). */
function decoder(encoding: string | undefined): ((b: Buffer) => Buffer) | null {
  switch ((encoding ?? 'identity').trim().toLowerCase()) {
    case 'identity':
    case '':
      return (b) => b;
    case 'gzip':
    case 'x-gzip':
      return (b) => zlib.gunzipSync(b, { maxOutputLength: MAX_WORKER_SCRIPT_BYTES });
    case 'deflate':
      return (b) => zlib.inflateSync(b, { maxOutputLength: MAX_WORKER_SCRIPT_BYTES });
    case 'br':
      return (b) => zlib.brotliDecompressSync(b, { maxOutputLength: MAX_WORKER_SCRIPT_BYTES });
    default:
      return null;
  }
}

/**
 * Sends a worker script's answer on with `prelude` in front of it. Anything that is not a whole script of ours to
 * prefix (not a 200, an encoding the proxy cannot read, a body over the bound) is passed on as it came, after what
 * was already read: the worker then runs, only without the device's prelude.
 */
export function sendWithPrelude(answer: http.IncomingMessage, res: http.ServerResponse, status: number, prelude: string): void {
  answer.on('error', () => res.destroy());
  const headers = endToEnd(answer.rawHeaders);
  const decode = status === 200 ? decoder(headers['content-encoding'] as string | undefined) : null;
  if (!decode) {
    res.writeHead(status, headers);
    answer.pipe(res);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
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
      res.writeHead(status, headers);
      for (const c of chunks) res.write(c);
      answer.pipe(res);
    });
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_WORKER_SCRIPT_BYTES) passOn();
  };
  const onEnd = () =>
    safely(() => {
      let script: Buffer;
      try {
        script = decode(Buffer.concat(chunks));
      } catch {
        res.writeHead(status, headers);
        return void res.end(Buffer.concat(chunks));
      }
      const body = Buffer.concat([Buffer.from(`${prelude}\n`), script]);
      delete headers['content-encoding'];
      delete headers['content-length'];
      res.writeHead(status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
    });
  answer.on('data', onData);
  answer.on('end', onEnd);
}
