import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { armWebAuthn, webAuthnGateScript } from '../../server/browser/webauthn-environment';
import { startBrowser } from '../support/live-server';
import { PROBES, RENDERED, TRAPPED, TRAPPED_PARTS, TRAPPED_WIDE } from './device-lies-probes';
import { closeDeviceRig, openDevicePage, openPlainPage } from './device-page-support';

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

afterAll(() => closeDeviceRig(contexts, browser, site));

async function devicePage(seed = 'conn-lies'): Promise<Page> {
  // With the init script every context of BrowserManager's gets too: its open() and WebAuthn wrappers fail as built-ins.
  return (await openDevicePage(browser, { seed, host: 'lies', port, initScripts: [webAuthnGateScript()], contexts })).page;
}

const plainPage = () => openPlainPage(browser, port, contexts);

it('answers a wrong receiver, a bad argument and a garbage constructor call as a plain Chromium does, no frame of ours in any stack', async () => {
  const [device, plain] = await Promise.all([devicePage(), plainPage()]);
  const seen = (await device.evaluate(PROBES)) as Record<string, string>;
  const expected = (await plain.evaluate(PROBES)) as Record<string, string>;
  // Where the page hooks how a stack is made (a getter on the error's name, Error.prepareStackTrace), the built-in's own
  // frame is not put back (making the stack there would run the hook inside our frames): the hook still runs only when
  // the page reads the stack, never at the throw, and sees the page's frames, none of ours.
  const getter = 'value of toString with a name getter';
  expect(seen[getter]!.split(' | ').slice(0, 2)).toEqual(expected[getter]!.split(' | ').slice(0, 2));
  expect(expected[getter]).toMatch(/ \/ {5}at Object\.toString \(<anonymous>\)$/);
  expect(seen[getter]).toMatch(/ \/ {5}at eval \(/);
  const prepared = 'value of toString with Error.prepareStackTrace';
  const [atThrow, text, files] = expected[prepared]!.split(' | ');
  expect([atThrow, text, files!.split(',')[0]]).toEqual(['0', 'prepared', 'toString@null']);
  expect(seen[prepared]).toBe(`0 | prepared | ${files!.split(',')[1]},grab@undefined`);
  expected[getter] = seen[getter]!;
  expected[prepared] = seen[prepared]!;
  expect(seen).toEqual(expected);
  // Function.prototype.toString's own frame (a V8 built-in's) is on top, as the browser's own shows it.
  expect(seen['Function.prototype.toString.call({})']).toMatch(/^TypeError: [^\n]+\n {4}at Object\.toString \(<anonymous>\)\n {4}at /);
  expect(seen['toString, stackTraceLimit 1']).toMatch(/^TypeError: [^\n]+\n {4}at Map\.toString \(<anonymous>\)$/);
  expect(seen['toString, stackTraceLimit 0']).toMatch(/^TypeError: [^\n]+$/);
  // They are errors, and stacks: not a comparison of two empty answers.
  expect(seen['Navigator.platform']).toMatch(/^TypeError: Illegal invocation\n {4}at /);
  expect(seen['getParameter before the extension']).toBe('null');
  for (const name of ['flat fill reads back', 'WebGL clear reads back', 'samples read back', 'toDataURL then WebGL'])
    expect(seen[name]).toBe('true');
  expect(seen['getError after it']).toBe('string');
  expect(Object.values(seen).filter((v) => v.includes('\n    at ')).length).toBeGreaterThan(25);
});

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
  expect(seen).toEqual({ hits: '', used: 9 });
});

it('reads the bytes and Blobs a Blob is made of as the browser does: no getter, species or Symbol.hasInstance of the page’s is asked', async () => {
  const [device, plain] = await Promise.all([devicePage(), plainPage()]);
  const seen = (await device.evaluate(TRAPPED_PARTS)) as { hits: string; size: number };
  expect(seen).toEqual(await plain.evaluate(TRAPPED_PARTS));
  expect(seen).toEqual({ hits: '', size: 2 + 2 + 2 + 1 + 1 });
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
