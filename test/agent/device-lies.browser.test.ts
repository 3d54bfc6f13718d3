import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { armWebAuthn, webAuthnGateScript } from '../../server/browser/webauthn-environment';
import { startBrowser } from '../support/live-server';
import { openDevicePage } from './device-page-support';

/**
 * What sites' lie detectors try on the built-ins the device stands in for (device.page.ts, device-workers.page.ts,
 * device-blobs.page.ts) and the WebAuthn gate every context has (webauthn-gate.page.ts): a getter or method called on
 * the wrong object, bad arguments, a constructor given garbage.
 * A device context answers each exactly as a plain Chromium does: the same error, the same message, and a stack with
 * no frame of our script in it; a WebGL renderer that the page has not enabled the extension for is null there too.
 */
jest.setTimeout(60_000);

let browser: Browser;
let site: http.Server;
let port = 0;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>lies</title>'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  browser = await startBrowser();
  await armWebAuthn(browser); // as BrowserManager does: every page, plain or not, has its WebAuthn environment
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
  await browser?.close();
  site.closeAllConnections();
  await new Promise<void>((r) => site.close(() => r()));
});

async function devicePage(seed = 'conn-lies'): Promise<Page> {
  // With the init script every context of BrowserManager's gets too: its open() and WebAuthn wrappers fail as built-ins.
  return (await openDevicePage(browser, { seed, host: 'lies', port, initScripts: [webAuthnGateScript()], contexts })).page;
}

async function plainPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  return page;
}

/** Each probe's outcome: its value's type, or its error's whole stack (header and frames). */
const PROBES = `(async () => {
  const out = {};
  const grab = async (name, run) => {
    try {
      const value = await run();
      out[name] = value === null ? 'null' : typeof value === 'boolean' || name.startsWith('keys of ') ? String(value) : typeof value;
    } catch (e) {
      out[name] = String(e && e.stack);
    }
  };
  const get = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  for (const name of ['platform', 'language', 'languages', 'hardwareConcurrency', 'deviceMemory', 'plugins', 'mimeTypes', 'pdfViewerEnabled'])
    await grab('Navigator.' + name, () => get(Navigator.prototype, name).call({}));
  await grab('Navigator.prototype.platform', () => Navigator.prototype.platform);
  for (const name of ['brands', 'platform', 'mobile']) await grab('NavigatorUAData.' + name, () => get(NavigatorUAData.prototype, name).call({}));
  await grab('NavigatorUAData.toJSON', () => NavigatorUAData.prototype.toJSON.call({}));
  await grab('NavigatorUAData.getHighEntropyValues', () => NavigatorUAData.prototype.getHighEntropyValues.call({}, ['platform']));
  await grab('NavigatorUAData.getHighEntropyValues(5)', () => navigator.userAgentData.getHighEntropyValues(5));
  await grab('NavigatorUAData.getHighEntropyValues keys', async () => Object.keys(await navigator.userAgentData.getHighEntropyValues(['constructor', 'toString'])).join());
  await grab('Notification.permission', () => get(Notification, 'permission').call({}));
  await grab('Screen.availHeight', () => get(Screen.prototype, 'availHeight').call({}));
  await grab('window.outerWidth', () => get(window, 'outerWidth').call({}));
  await grab('Plugin.name', () => get(Plugin.prototype, 'name').call({}));
  await grab('PluginArray.length', () => get(PluginArray.prototype, 'length').call({}));
  await grab('PluginArray.item', () => PluginArray.prototype.item.call({}, 0));
  const gl = document.createElement('canvas').getContext('webgl');
  await grab('getParameter on {}', () => WebGLRenderingContext.prototype.getParameter.call({}, 0x9246));
  await grab('getParameter before the extension', () => gl.getParameter(0x9246));
  await grab('getError after it', () => String(gl.getError()));
  await grab('readPixels on {}', () => WebGLRenderingContext.prototype.readPixels.call({}, 0, 0, 1, 1, 0x1908, 0x1401, new Uint8Array(4)));
  await grab('getImageData on {}', () => CanvasRenderingContext2D.prototype.getImageData.call({}, 0, 0, 1, 1));
  await grab('toDataURL on {}', () => HTMLCanvasElement.prototype.toDataURL.call({}));
  await grab('getChannelData on {}', () => AudioBuffer.prototype.getChannelData.call({}, 0));
  await grab('createObjectURL(5)', () => URL.createObjectURL(5));
  await grab('revokeObjectURL()', () => URL.revokeObjectURL());
  await grab('new Blob(5)', () => new Blob(5));
  await grab('new File([])', () => new File([]));
  await grab('Blob()', () => Blob());
  await grab('new Worker(bad URL)', () => new Worker('http://[bad'));
  await grab('new SharedWorker(bad URL)', () => new SharedWorker('http://[bad'));
  await grab('Worker()', () => Worker('x'));
  await grab('window.open on 1', () => window.open.call(1));
  await grab('Document.open on {}', () => Document.prototype.open.call({}));
  await grab('credentials.get(5)', () => navigator.credentials.get(5));
  await grab('credentials.create on {}', () => CredentialsContainer.prototype.create.call({}));
  // What the page put in reads back as it put it: a flat fill, a WebGL clear, samples it wrote (noise is for what the
  // browser renders, and only where a picture changes); asking for a data URL makes no context on the page's canvas.
  await grab('flat fill reads back', () => {
    const c = document.createElement('canvas');
    c.width = c.height = 32;
    const x = c.getContext('2d');
    x.fillStyle = '#f00';
    x.fillRect(0, 0, 32, 32);
    const data = x.getImageData(0, 0, 32, 32).data;
    return data.every((v, i) => v === [255, 0, 0, 255][i % 4]) && c.toDataURL() === c.toDataURL();
  });
  await grab('WebGL clear reads back', () => {
    const w = document.createElement('canvas').getContext('webgl');
    w.clearColor(0, 1, 0, 1);
    w.clear(w.COLOR_BUFFER_BIT);
    const px = new Uint8Array(w.drawingBufferWidth * w.drawingBufferHeight * 4);
    w.readPixels(0, 0, w.drawingBufferWidth, w.drawingBufferHeight, w.RGBA, w.UNSIGNED_BYTE, px);
    return px.every((v, i) => v === [0, 255, 0, 255][i % 4]);
  });
  await grab('samples read back', () => {
    const b = new AudioBuffer({ length: 64, sampleRate: 44100 });
    b.copyToChannel(new Float32Array(64).fill(0.5), 0);
    const copied = new Float32Array(64);
    b.copyFromChannel(copied, 0);
    return b.getChannelData(0).every((v) => v === 0.5) && copied.every((v) => v === 0.5);
  });
  await grab('toDataURL then WebGL', () => {
    const c = document.createElement('canvas');
    c.toDataURL();
    return c.getContext('webgl') !== null;
  });
  await grab('copyFromChannel on a bad channel', () => new AudioBuffer({ length: 8, sampleRate: 44100 }).copyFromChannel(new Float32Array(8), 3));
  await grab('keys of the stack property of a rejection', () =>
    navigator.userAgentData.getHighEntropyValues(5).catch((e) => Object.keys(Object.getOwnPropertyDescriptor(e, 'stack')).join()),
  );
  await grab('keys of getHighEntropyValues', async () => Object.keys(await navigator.userAgentData.getHighEntropyValues(['wow64', 'platformVersion', 'architecture', 'model'])).join());
  await grab('plugins.refresh()', () => navigator.plugins.refresh());
  await grab('plugins.item()', () => navigator.plugins.item());
  await grab('mimeTypes.namedItem()', () => navigator.mimeTypes.namedItem());
  await grab('Function.prototype.toString.call({})', () => Function.prototype.toString.call({}));
  // The console methods the device quiets (device-console.page.ts) are the browser's in shape; a label is still converted.
  for (const name of ['log', 'debug', 'table', 'assert', 'timeLog'])
    await grab('keys of console.' + name, () => {
      const f = console[name];
      const d = Object.getOwnPropertyDescriptor(console, name);
      return [f.name, f.length, Function.prototype.toString.call(f), 'prototype' in f, d.writable, d.enumerable, d.configurable].join('|');
    });
  await grab('new console.log()', () => new console.log());
  await grab('keys of labels converted', () => {
    let n = 0;
    const label = { toString: () => (n++, 'label') };
    console.count(label);
    console.timeLog(label, {});
    console.log(label);
    return String(n);
  });
  return out;
})()`;

it('answers a wrong receiver, a bad argument and a garbage constructor call as a plain Chromium does, no frame of ours in any stack', async () => {
  const [device, plain] = await Promise.all([devicePage(), plainPage()]);
  const seen = (await device.evaluate(PROBES)) as Record<string, string>;
  const expected = (await plain.evaluate(PROBES)) as Record<string, string>;
  // The one difference: Function.prototype.toString's own frame (a V8 built-in's, `at Object.toString (<anonymous>)`)
  // cannot be kept above ours while ours is taken out.
  const key = 'Function.prototype.toString.call({})';
  expected[key] = expected[key]!.replace(/\n {4}at Object\.toString \(<anonymous>\)/, '');
  expect(seen).toEqual(expected);
  // They are errors, and stacks: not a comparison of two empty answers.
  expect(seen['Navigator.platform']).toMatch(/^TypeError: Illegal invocation\n {4}at /);
  expect(seen['getParameter before the extension']).toBe('null');
  for (const name of ['flat fill reads back', 'WebGL clear reads back', 'samples read back', 'toDataURL then WebGL'])
    expect(seen[name]).toBe('true');
  expect(seen['getError after it']).toBe('string');
  expect(Object.values(seen).filter((v) => v.includes('\n    at ')).length).toBeGreaterThan(25);
});

// A lie detector's trap: the built-ins a wrapper might call at call time, replaced by counting proxies, then the device's
// stand-ins used. A built-in getter, method or toString calls none of them; neither may ours.
const TRAPPED = `(() => {
  const hits = [];
  const R = Reflect.apply;
  const traps = [
    [Function.prototype, 'call'], [Function.prototype, 'apply'], [Function.prototype, 'bind'], [Reflect, 'apply'], [Reflect, 'construct'],
    [WeakMap.prototype, 'get'], [WeakMap.prototype, 'has'], [WeakSet.prototype, 'has'], [Array.prototype, Symbol.iterator],
    [Array.prototype, 'find'], [Math, 'round'], [Performance.prototype, 'getEntriesByType'], [Performance.prototype, 'now'], [window, 'setTimeout'],
  ];
  const saved = traps.map(([holder, key]) => holder[key]);
  traps.forEach(([holder, key], i) => {
    holder[key] = new Proxy(saved[i], { apply: (t, self, args) => (hits[hits.length] = String(key), R(t, self, args)) });
  });
  const gl = document.createElement('canvas').getContext('webgl');
  const c2 = document.createElement('canvas').getContext('2d');
  const platformGetter = Object.getOwnPropertyDescriptor(Navigator.prototype, 'platform').get;
  const used = [
    navigator.platform, navigator.languages, navigator.hardwareConcurrency, navigator.deviceMemory, navigator.userAgentData.brands,
    navigator.plugins.length, navigator.plugins.item(0), navigator.mimeTypes.namedItem('application/pdf'), navigator.pdfViewerEnabled,
    screen.availHeight, outerWidth, Notification.permission, gl.getParameter(gl.VENDOR), c2.getImageData(0, 0, 1, 1),
    R(Function.prototype.toString, platformGetter, []), platformGetter.toString(), Math.max.toString(), (() => 1).toString(), String(navigator.plugins.item),
    new Blob(['x'], { type: 'text/javascript' }), new File(['y'], 'f.js'), console.log('logged'), console.timeLog('t'),
    window.chrome && [chrome.loadTimes(), chrome.csi(), chrome.app.getDetails(), chrome.app.installState(() => undefined)],
  ];
  traps.forEach(([holder, key], i) => (holder[key] = saved[i]));
  return { hits: hits.join(), used: used.length };
})()`;

// The same with every common built-in trapped, and the asynchronous and constructing stand-ins used too. The test's own
// code here uses none of them (plain loops, index writes) while they are trapped.
const TRAPPED_WIDE = `(async () => {
  const hits = [];
  const R = Reflect.apply;
  const P = (o, k) => [o, k];
  const traps = [];
  const add = (holder, keys) => { for (let i = 0; i < keys.length; i++) traps[traps.length] = P(holder, keys[i]); };
  add(Array.prototype, ['push', 'pop', 'slice', 'splice', 'sort', 'map', 'forEach', 'join', 'find', 'filter', 'indexOf', 'includes', 'concat', 'some', 'every', 'reduce', 'fill', Symbol.iterator]);
  add(Array, ['from', 'isArray', 'of']);
  add(Object, ['keys', 'values', 'entries', 'assign', 'freeze', 'create', 'defineProperty', 'getOwnPropertyDescriptor', 'getOwnPropertyNames', 'getPrototypeOf', 'setPrototypeOf']);
  add(Object.prototype, ['hasOwnProperty']);
  add(Set.prototype, ['add', 'has']);
  add(Map.prototype, ['get', 'set', 'has']);
  add(WeakMap.prototype, ['get', 'set', 'has']);
  add(WeakSet.prototype, ['add', 'has']);
  add(RegExp.prototype, ['exec', 'test']);
  add(String.prototype, ['slice', 'indexOf', 'startsWith', 'replace', 'split', 'charCodeAt']);
  add(JSON, ['stringify', 'parse']);
  add(Promise.prototype, ['then', 'catch']);
  add(Promise, ['resolve', 'reject']);
  add(Function.prototype, ['call', 'apply', 'bind']);
  add(Reflect, ['apply', 'construct', 'ownKeys']);
  add(Math, ['round', 'floor', 'max', 'min', 'imul']);
  add(window, ['String', 'Number', 'setTimeout']);
  const saved = [];
  for (let i = 0; i < traps.length; i++) saved[i] = traps[i][0][traps[i][1]];
  for (let i = 0; i < traps.length; i++) {
    const key = traps[i][1];
    const name = typeof key === 'symbol' ? key.description : key;
    traps[i][0][key] = new Proxy(saved[i], {
      apply: (t, self, args) => ((hits[hits.length] = name), R(t, self, args)),
      construct: (t, args, n) => ((hits[hits.length] = name), Reflect.construct(t, args, n)),
    });
  }
  let used = 0;
  try {
    const brands = navigator.userAgentData.brands;
    const json = navigator.userAgentData.toJSON();
    const values = await navigator.userAgentData.getHighEntropyValues(['architecture', 'platformVersion', 'fullVersionList']);
    const url = URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }));
    URL.revokeObjectURL(url);
    used = (brands ? 1 : 0) + (json ? 1 : 0) + (values ? 1 : 0);
  } finally {
    for (let i = 0; i < traps.length; i++) traps[i][0][traps[i][1]] = saved[i];
  }
  return { hits: hits.join(), used };
})()`;

it('answers high-entropy hints asked with any iterable as with an array: the device’s, never the host’s', async () => {
  const page = await devicePage();
  const [fromArray, fromSet, fromGenerator] = await page.evaluate(async () => {
    const ua = (navigator as unknown as { userAgentData: { getHighEntropyValues(h: Iterable<string>): Promise<unknown> } }).userAgentData;
    const hints = ['platformVersion', 'architecture', 'fullVersionList'];
    return [
      await ua.getHighEntropyValues(hints),
      await ua.getHighEntropyValues(new Set(hints)),
      await ua.getHighEntropyValues(
        (function* () {
          yield* hints;
        })(),
      ),
    ];
  });
  expect(fromArray).toMatchObject({ platform: 'Windows' });
  expect(fromSet).toEqual(fromArray);
  expect(fromGenerator).toEqual(fromArray);
});

it('makes no call a page can trap with any common built-in, in its asynchronous and constructing stand-ins too', async () => {
  const [device, plain] = await Promise.all([devicePage(), plainPage()]);
  const seen = (await device.evaluate(TRAPPED_WIDE)) as { hits: string; used: number };
  expect(seen).toEqual(await plain.evaluate(TRAPPED_WIDE));
  expect(seen).toEqual({ hits: '', used: 3 });
});

it('makes no call a page can trap: built-ins it replaced after our start see none of ours, as a browser’s make none', async () => {
  const [device, plain] = await Promise.all([devicePage(), plainPage()]);
  const seen = (await device.evaluate(TRAPPED)) as { hits: string; used: number };
  expect(seen).toEqual(await plain.evaluate(TRAPPED));
  // In both, only the Blob and File constructors' own reading of their array (WebIDL iterates a sequence).
  expect(seen.used).toBe(24);
  expect(seen.hits.split(',').filter((hit) => hit !== 'Symbol(Symbol.iterator)')).toEqual([]);
});

it('has window.chrome as Chrome makes it: its keys in order, anonymous timings that agree with the page’s, app’s errors', async () => {
  const page = await devicePage();
  const seen = await page.evaluate(async () => {
    const chrome = (
      window as unknown as { chrome: Record<string, (...a: unknown[]) => unknown> & { app: Record<string, (...a: unknown[]) => unknown> } }
    ).chrome;
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const times = chrome.loadTimes() as Record<string, number>;
    const csi = chrome.csi() as Record<string, number>;
    const error = (run: () => unknown) => {
      try {
        run();
        return 'none';
      } catch (e) {
        return String((e as Error).stack);
      }
    };
    return {
      keys: Object.keys(chrome),
      appKeys: Object.keys(chrome.app),
      names: [chrome.loadTimes.name, chrome.csi.name, chrome.app.getDetails.name],
      sources: [Function.prototype.toString.call(chrome.loadTimes), Function.prototype.toString.call(chrome.app.runningState)],
      commit: Math.abs(times.commitLoadTime * 1000 - (performance.timeOrigin + nav.responseStart)),
      started: times.startLoadTime * 1000 - performance.timeOrigin,
      loaded: times.finishDocumentLoadTime > 0,
      csi: [csi.startE === Math.round(performance.timeOrigin), csi.tran, Object.keys(times).length],
      app: [chrome.app.isInstalled, chrome.app.getDetails(), chrome.app.getIsInstalled(), chrome.app.runningState()],
      state: await new Promise((resolve) => chrome.app.installState(resolve)),
      errors: [error(() => chrome.app.getDetails(1)), error(() => chrome.app.installState())],
      availTop: (screen as Screen & { availTop: number }).availTop,
    };
  });
  expect(seen).toMatchObject({
    keys: ['loadTimes', 'csi', 'app'],
    appKeys: ['isInstalled', 'InstallState', 'RunningState', 'getDetails', 'getIsInstalled', 'installState', 'runningState'],
    names: ['', '', 'getDetails'],
    sources: ['function () { [native code] }', 'function runningState() { [native code] }'],
    loaded: true,
    csi: [true, 15, 13],
    app: [false, null, false, 'cannot_run'],
    state: 'not_installed',
    availTop: 0, // a Windows device: its taskbar is at the bottom
  });
  expect(seen.commit).toBeLessThan(1.5);
  expect(Math.abs(seen.started)).toBeLessThan(1);
  expect(seen.errors[0]).toMatch(/^TypeError: Error in invocation of app\.getDetails\(\)\n {4}at /);
  expect(seen.errors[1]).toMatch(/^TypeError: Error in invocation of app\.installState\(function callback\)/);
  // Every frame is the page's own call (this test's evaluated function): none of the device's script.
  for (const stack of seen.errors)
    for (const frame of stack.split('\n').slice(1)) expect(frame).toMatch(/eval at evaluate|^ {4}at async <anonymous>/);
});

it('answers the renderer of the device once the page enables WEBGL_debug_renderer_info', async () => {
  const page = await devicePage();
  const renderer = await page.evaluate(() => {
    const gl = document.createElement('canvas').getContext('webgl')!;
    const before = [gl.getParameter(0x9246), gl.getError()];
    gl.getExtension('WEBGL_debug_renderer_info');
    return [...before, gl.getParameter(0x9246), gl.getError()];
  });
  expect(renderer).toEqual([null, 0x0500, expect.not.stringMatching(/SwiftShader/), 0]);
  expect(renderer[2]).toMatch(/^ANGLE \(/);
});

// What a fingerprinting script renders: an oscillator through a compressor (FingerprintJS's audio), read from the
// promise and from the complete event, and text on a canvas. Summed so two connections' answers can be compared.
const RENDERED = `(async () => {
  const render = (viaEvent) => new Promise((resolve) => {
    const context = new OfflineAudioContext(1, 5000, 44100);
    const oscillator = context.createOscillator();
    oscillator.type = 'triangle';
    oscillator.frequency.value = 10000;
    const compressor = context.createDynamicsCompressor();
    oscillator.connect(compressor);
    compressor.connect(context.destination);
    oscillator.start(0);
    if (viaEvent) context.oncomplete = (e) => resolve(e.renderedBuffer);
    const rendering = context.startRendering();
    if (!viaEvent) rendering.then(resolve);
  });
  const sum = (buffer) => {
    const copied = new Float32Array(buffer.length);
    buffer.copyFromChannel(copied, 0);
    let a = 0, b = 0;
    for (const v of buffer.getChannelData(0)) a += Math.abs(v);
    for (const v of copied) b += Math.abs(v);
    return a === b ? a : 'getChannelData and copyFromChannel disagree';
  };
  const canvas = document.createElement('canvas');
  canvas.width = 240;
  canvas.height = 60;
  const x = canvas.getContext('2d');
  x.font = '18px serif';
  x.fillStyle = '#069';
  x.fillText('Cwm fjordbank glyphs vext quiz', 4, 30);
  return { promise: sum(await render(false)), event: sum(await render(true)), canvas: canvas.toDataURL() };
})()`;

it('renders each connection its own audio and canvas, the same every time, from the promise and the event alike', async () => {
  const [a, again, b, plain] = await Promise.all([devicePage('conn-a'), devicePage('conn-a'), devicePage('conn-b'), plainPage()]);
  type Rendered = { promise: number; event: number; canvas: string };
  const [seenA, seenAgain, seenB, seenPlain] = (await Promise.all([a, again, b, plain].map((p) => p.evaluate(RENDERED)))) as Rendered[];
  expect(typeof seenA!.promise).toBe('number');
  expect(seenA!.event).toBe(seenA!.promise);
  expect(seenAgain).toEqual(seenA);
  expect(seenB!.promise).not.toBe(seenA!.promise);
  expect(seenB!.canvas).not.toBe(seenA!.canvas);
  expect(seenA!.promise).not.toBe(seenPlain!.promise);
  expect(seenA!.canvas).not.toBe(seenPlain!.canvas);
});

it("answers a frame's and an opened window's toString about the top page's stand-ins as about built-ins, and their window's size", async () => {
  const probe = `(() => {
    const frame = document.body.appendChild(document.createElement('iframe')).contentWindow;
    const srcdoc = document.body.appendChild(Object.assign(document.createElement('iframe'), { srcdoc: '<p>x' })).contentWindow;
    const opened = open('');
    const functions = [
      Object.getOwnPropertyDescriptor(Navigator.prototype, 'platform').get,
      WebGLRenderingContext.prototype.getParameter,
      Function.prototype.toString,
      Worker,
      Blob,
      CredentialsContainer.prototype.create,
    ];
    const shown = (realm) => functions.map((f) => realm.Function.prototype.toString.call(f)).join(' | ');
    // And the other way round: the top page's toString about a frame's.
    const back = Function.prototype.toString.call(Object.getOwnPropertyDescriptor(frame.Navigator.prototype, 'platform').get);
    const sizes = [frame.outerWidth === outerWidth, frame.outerHeight === outerHeight, outerWidth > innerWidth];
    // The opened window answers at once, as the device, with objects of its own realm.
    const own = [opened.navigator.languages instanceof opened.Array, opened.navigator.userAgentData.brands instanceof opened.Array];
    const out = [shown(window), shown(frame), shown(opened), back, sizes.join(), opened.navigator.platform === navigator.platform, own.join()].join('\\n');
    opened.close();
    return out;
  })()`;
  const device = await devicePage();
  const plain = await plainPage();
  await device.evaluate(() => new Promise((r) => setTimeout(r, 50))); // the srcdoc frame's document loaded
  await plain.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  const [seen, expected] = await Promise.all([device.evaluate(probe), plain.evaluate(probe)]);
  // A plain window is no larger than its page (the device's is: its frame); everything else reads the same.
  expect(seen).toBe((expected as string).replace('true,true,false', 'true,true,true'));
  expect(seen).toContain('function get platform() { [native code] }');
  // Its window.chrome (a desktop Chrome's; a plain headless one has none) is of its own realm too.
  const chrome = await device.evaluate(() => {
    const opened = open('') as (Window & { chrome: { csi: unknown; app: unknown } }) | null;
    const own = [
      opened!.chrome instanceof (opened as unknown as typeof globalThis).Object,
      opened!.chrome.csi instanceof (opened as unknown as typeof globalThis).Function,
      opened!.chrome.app instanceof (opened as unknown as typeof globalThis).Object,
    ];
    opened!.close();
    return own;
  });
  expect(chrome).toEqual([true, true, true]);
});
