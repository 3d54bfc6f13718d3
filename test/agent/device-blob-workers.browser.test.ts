import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext } from 'playwright-core';

import { startBrowser } from '../support/live-server';
import { closeDeviceRig, openDevicePage } from './device-page-support';

/**
 * Workers a page starts from its own Blob, as bundlers inline them: the script's text is known at once when the Blob
 * was made from strings, bytes or such Blobs (device-blobs.page.ts), so the prelude goes after its "use strict", on
 * its first line, and a module's blob: or data: imports run after the prelude, not before it. Blob and File stay
 * the browser's to a script, and the script of ours a worker starts from is gone before the worker could read it.
 */
jest.setTimeout(60_000);

// A worker's report: platform, strict mode, and the line of its first statement.
const BODY = `postMessage([navigator.platform, (function () { return this; })() === undefined, Number(/:(\\d+):\\d+\\)?$/.exec(new Error().stack.split('\\n')[1])[1])]);`;
const STRICT = `"use strict";${BODY}`;

let browser: Browser;
let site: http.Server;
let port = 0;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    // A page whose policy allows blob: scripts and workers, nothing inline, no data: scripts.
    if (req.url === '/csp') {
      return res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'self' blob:; worker-src 'self' blob:" })
        .end('<!doctype html><title>csp</title>');
    }
    // A page that enforces Trusted Types: a worker's URL must be a TrustedScriptURL of its own policy.
    if (req.url === '/trusted-types') {
      return res
        .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "require-trusted-types-for 'script'; trusted-types app" })
        .end('<!doctype html><title>trusted types</title>');
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>blob workers</title>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
});

afterAll(() => closeDeviceRig(contexts, browser, site));

/** A page of the site in a fenced context presenting a Windows device (the machine is Linux). */
async function devicePage(seed: string, path = '/') {
  return (await openDevicePage(browser, { seed, host: 'blobs', port, path, contexts })).page;
}

type Report = [string, boolean, number];

it('starts a classic worker from a Blob of strings, bytes, Blobs or a File with its "use strict" and its line numbers', async () => {
  const page = await devicePage('conn-blob-strict');
  const seen = await page.evaluate(
    async ([strict, body]) => {
      const answer = (w: Worker) =>
        new Promise<Report>((resolve, reject) => {
          setTimeout(() => reject(new Error('no answer')), 10_000);
          w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
          w.onmessage = (e) => resolve(e.data as Report);
        });
      const start = (blob: Blob) => {
        const url = URL.createObjectURL(blob);
        const worker = new Worker(url);
        URL.revokeObjectURL(url); // as bundlers' inline workers do
        return answer(worker);
      };
      const bytes = new TextEncoder().encode(strict);
      const js = { type: 'text/javascript' };
      return {
        strings: await start(new Blob([strict], js)),
        split: await start(new Blob(['"use', ' strict";', body])),
        bytes: await start(new Blob([bytes.buffer], js)),
        view: await start(new Blob([new Uint8Array([0, ...bytes, 0]).subarray(1, bytes.length + 1)], js)),
        nested: await start(new Blob([new Blob(['"use strict";']), new Blob([body])], js)),
        bom: await start(new Blob(['\ufeff', strict], js)),
        file: await start(new File([strict], 'worker.js', js)),
        // Not known at once: the prelude in front, still the device, still line 1, sloppy as before.
        fetched: await start(await new Response(strict).blob()),
        sliced: await start(new Blob([`${strict}//`], js).slice(0, strict.length)),
        native: await start(new Blob([`"use strict";\r\n${body}`], { ...js, endings: 'native' })),
      };
    },
    [STRICT, BODY] as const,
  );
  const known: Report = ['Win32', true, 1];
  const unknown: Report = ['Win32', false, 1];
  expect(seen).toEqual({
    strings: known,
    split: known,
    bytes: known,
    view: known,
    nested: known,
    bom: known,
    file: known,
    fetched: unknown,
    sliced: unknown,
    native: ['Win32', false, 2],
  });
});

it("runs the prelude before a Blob or data: module worker's own blob: or data: imports, under a policy that allows only blob:", async () => {
  for (const path of ['/', '/csp']) {
    const page = await devicePage(`conn-blob-imports${path}`, path);
    const seen = await page.evaluate(async (csp) => {
      const answer = (w: Worker) =>
        new Promise<unknown>((resolve, reject) => {
          setTimeout(() => reject(new Error('no answer')), 10_000);
          w.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
          w.onmessage = (e) => resolve(e.data);
        });
      // The dependency reads the device when it is evaluated: before its importer's first statement.
      const dependency = `export const early = navigator.platform;`;
      const probe = (from: string) => `import { early } from ${JSON.stringify(from)}; postMessage([early, navigator.platform]);`;
      const blobOf = (script: string) => URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
      const dataOf = (script: string) => `data:text/javascript,${encodeURIComponent(script)}`;
      const out: Record<string, unknown> = {
        blobImportsBlob: await answer(new Worker(blobOf(probe(blobOf(dependency))), { type: 'module' })),
        // A re-export, and a second import of the dependency's scheme: one prelude import, first.
        blobReexports: await answer(
          new Worker(blobOf(`export * from ${JSON.stringify(blobOf('export const x = 1;'))};\n${probe(blobOf(dependency))}`), {
            type: 'module',
          }),
        ),
      };
      if (!csp) out.dataImportsData = await answer(new Worker(dataOf(probe(dataOf(dependency))), { type: 'module' }));
      return out;
    }, path === '/csp');
    const device = ['Win32', 'Win32'];
    expect(seen).toEqual({
      blobImportsBlob: device,
      blobReexports: device,
      ...(path === '/' ? { dataImportsData: device } : {}),
    });
  }
});

it("shows the page's URL as a worker's location, whose script is the page's own: the prelude is nowhere to be read", async () => {
  const page = await devicePage('conn-blob-own-url');
  const seen = await page.evaluate(async () => {
    // Its location and every part of it, then what fetching it answers (the page's Blob, as in any browser).
    const reader = `const l = location; fetch(l.href).then((r) => r.text()).then((t) => t.length, (e) => e.name).then((m) => postMessage([String(l), l.href, l.pathname, l.origin, l.hash, m]));`;
    const answer = (port: { onmessage: ((e: MessageEvent) => void) | null }) =>
      new Promise((resolve, reject) => {
        setTimeout(() => reject(new Error('no answer')), 10_000);
        port.onmessage = (e) => resolve(e.data);
      });
    const dedicatedText = reader;
    const sharedText = `onconnect = (c) => { const postMessage = (m) => c.ports[0].postMessage(m); ${reader} };`;
    const dedicatedUrl = URL.createObjectURL(new Blob([dedicatedText], { type: 'text/javascript' }));
    const sharedUrl = URL.createObjectURL(new Blob([sharedText]));
    const dedicated = new Worker(dedicatedUrl + '#frag');
    const shared = new SharedWorker(sharedUrl);
    // Both listening before either answers (setting onmessage starts the port): no message goes unheard.
    const answers = [answer(dedicated), answer(shared.port)];
    const expected = (url: string, length: number) => [
      url,
      url,
      url.slice(5).split('#')[0],
      location.origin,
      url.includes('#') ? '#frag' : '',
      length,
    ];
    return {
      seen: [await answers[0], await answers[1]],
      expected: [expected(dedicatedUrl + '#frag', dedicatedText.length), expected(sharedUrl, sharedText.length)],
    };
  });
  expect(seen.seen).toEqual(seen.expected);
});

it("names the page's URL in a worker's stacks and errors, in the worker and in the page, its text known or not", async () => {
  const page = await devicePage('conn-blob-named');
  const seen = await page.evaluate(async () => {
    const body = `self.onerror = (m, file) => postMessage(['inside', file]);
postMessage(['stack', new Error('x').stack.split('\\n')[1], location.href]);
setTimeout(() => { throw new Error('boom'); });`;
    const run = (url: string) =>
      new Promise<unknown[]>((resolve, reject) => {
        const got: unknown[] = [];
        const worker = new Worker(url);
        setTimeout(() => reject(new Error('no answer: ' + JSON.stringify(got))), 10_000);
        worker.onmessage = (e) => got.push(e.data);
        worker.onerror = (e) => {
          got.push(['page', e.filename, e.lineno]);
          resolve(got);
        };
      });
    const known = URL.createObjectURL(new Blob([body], { type: 'text/javascript' }));
    // A Blob the page fetched: its text is not known when the worker starts (the prelude goes in front).
    const fetched = URL.createObjectURL(await (await fetch(known)).blob());
    const data = 'data:text/javascript;base64,' + btoa(body);
    return { known: [known, await run(known)], fetched: [fetched, await run(fetched)], data: [data, await run(data)] };
  });
  for (const [url, got] of Object.values(seen) as [string, unknown[]][]) {
    expect(got).toEqual([
      ['stack', expect.stringMatching(new RegExp(`^ {4}at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:\\d+$`)), url],
      ['inside', url],
      ['page', url, 3],
    ]);
  }
});

it('names a data: URL with raw spaces in stacks and errors with its spaces as %20, never by our script (which holds the prelude)', async () => {
  const page = await devicePage('conn-blob-spaces');
  const url = `data:text/javascript,self.onerror = (m, file) => postMessage(['inside', file]);postMessage(['stack', new Error('x').stack.split('\\n')[1]]);setTimeout(() => { throw new Error('boom'); });`;
  const got = await page.evaluate(
    (url) =>
      new Promise<unknown[]>((resolve, reject) => {
        const seen: unknown[] = [];
        const worker = new Worker(url);
        setTimeout(() => reject(new Error('no answer: ' + JSON.stringify(seen))), 10_000);
        worker.onmessage = (e) => seen.push(e.data);
        worker.onerror = (e) => {
          seen.push(['page', e.filename]);
          resolve(seen);
        };
      }),
    url,
  );
  const name = url.replaceAll(' ', '%20');
  expect(got).toEqual([
    // The column is further on by the prelude's length (it shares the script's first line), as for any worker of ours.
    ['stack', expect.stringMatching(new RegExp(`^ {4}at ${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:\\d+$`))],
    ['inside', name],
    ['page', name],
  ]);
});

it("starts as the device at the page's URL: a fragment, a stray % in a data: URL, a module with inline imports", async () => {
  const page = await devicePage('conn-blob-edges');
  const seen = await page.evaluate(async () => {
    const run = (url: string, options?: WorkerOptions) =>
      new Promise<unknown>((resolve, reject) => {
        const worker = new Worker(url, options);
        setTimeout(() => reject(new Error('no answer from ' + url.slice(0, 60))), 10_000);
        worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
        worker.onmessage = (e) => resolve(e.data);
      });
    const report = `postMessage([navigator.platform, location.href, "100%"]);`;
    const blobUrl = URL.createObjectURL(new Blob([report], { type: 'text/javascript' }));
    const helper = URL.createObjectURL(new Blob(['export const platform = () => navigator.platform;'], { type: 'text/javascript' }));
    const moduleUrl = URL.createObjectURL(
      new Blob([`import { platform } from ${JSON.stringify(helper)}; postMessage([platform(), location.href, "100%"]);`], {
        type: 'text/javascript',
      }),
    );
    const dataUrl = 'data:text/javascript,' + report.replace(/ /g, '%20');
    return [
      [blobUrl + '#frag', await run(blobUrl + '#frag')],
      [dataUrl, await run(dataUrl)],
      [moduleUrl, await run(moduleUrl, { type: 'module' })],
    ];
  });
  for (const [url, got] of seen as [string, unknown][]) expect(got).toEqual(['Win32', url, '100%']);
});

it('leaves Blob and File as the browser has them, to a script', async () => {
  const page = await devicePage('conn-blob-looks');
  const looks = await page.evaluate(async () => {
    class Mine extends Blob {
      mine = true;
    }
    const mine = new Mine(['a']);
    let reads = 0;
    const counted = new Blob(['x'], {
      get type() {
        reads++;
        return 'text/plain';
      },
    });
    return {
      blob: [Function.prototype.toString.call(Blob), Blob.name, Blob.length, Blob.prototype.constructor === Blob],
      file: [Function.prototype.toString.call(File), File.name, File.length, File.prototype.constructor === File],
      inherits: [Object.getPrototypeOf(File) === Blob, new File([], 'f') instanceof Blob, new Blob([]) instanceof Blob],
      subclass: [mine instanceof Mine, mine instanceof Blob, mine.mine, await mine.text()],
      optionsReadOnce: [reads, counted.type],
      called: (() => {
        try {
          (Blob as unknown as () => void)();
          return 'no error';
        } catch (e) {
          return (e as Error).constructor.name;
        }
      })(),
      globals: Object.getOwnPropertyNames(window).filter((n) => /agentlink|__/i.test(n)).length,
    };
  });
  expect(looks).toEqual({
    blob: ['function Blob() { [native code] }', 'Blob', 0, true],
    file: ['function File() { [native code] }', 'File', 2, true],
    inherits: [true, true, true],
    subclass: [true, true, true, 'a'],
    optionsReadOnce: [1, 'text/plain'],
    called: 'TypeError',
    globals: 0,
  });
});

it('leaves a worker started from a TrustedScriptURL to the browser: it starts, as on a page without the device', async () => {
  const page = await devicePage('conn-blob-trusted-types', '/trusted-types');
  const seen = await page.evaluate(async () => {
    const types = (window as unknown as { trustedTypes: { createPolicy(n: string, p: object): { createScriptURL(s: string): string } } })
      .trustedTypes;
    const policy = types.createPolicy('app', { createScriptURL: (s: string) => s });
    const url = policy.createScriptURL(
      URL.createObjectURL(new Blob(['postMessage(typeof navigator.platform)'], { type: 'text/javascript' })),
    );
    const worker = new Worker(url);
    let refused = '';
    try {
      new Worker(URL.createObjectURL(new Blob(['0']))); // a plain string: the browser's own refusal, as without the device
    } catch (e) {
      refused = (e as Error).name;
    }
    const answer = await new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error('no answer')), 10_000);
      worker.onerror = (e) => reject(new Error(`worker error: ${(e as ErrorEvent).message ?? e.type}`));
      worker.onmessage = (e) => resolve(e.data);
    });
    return [answer, refused];
  });
  expect(seen).toEqual(['string', 'TypeError']);
});
