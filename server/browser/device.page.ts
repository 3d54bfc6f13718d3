import { builtInErrors } from '../page-code/built-in-errors.page';
import { prologueEnd } from '../page-code/script-prologue.page';
import { readableBlobs } from './device-blobs.page';
import type { DeviceFacts } from './device-facts';
import { preludeServedWorkers, wrapInlineWorkers } from './device-workers.page';

/**
 * In every realm of a device's context (each document, at its start, through the context's init script; each worker,
 * shared worker and service worker script, prepended by the egress proxy): what the headless browser says of itself
 * that the device says otherwise. One closure, no globals; every function it puts in place reads as native code
 * (its name, length and source text are those of the built-in it stands for), so a page's scripts see a browser,
 * not a patch. Values that do not need changing (a Linux device on a Linux host) are left to the browser.
 */
export default function applyDevice(d: DeviceFacts): void {
  const g = globalThis as unknown as Record<string, unknown> & typeof globalThis;
  const masks = new WeakMap<object, string>();
  const nativeToString = Function.prototype.toString;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  // A built-in's own errors for the ones we stand in for: no frame of ours in their stacks (built-in-errors.page.ts).
  const errors = builtInErrors(g);
  const rethrow = errors.rethrow;
  /** Objects of ours that stand for the browser's (the PDF plugins): no brand check for them, they have no native. */
  const standIns = new WeakSet<object>();
  const promiseThen = Promise.prototype.then;

  // Function.prototype.toString answers for the functions put in place as for the built-ins they replace.
  const toStringShim = {
    toString(this: unknown) {
      if (typeof this === 'function' && masks.has(this)) return masks.get(this) as string;
      try {
        return nativeToString.call(this as () => void);
      } catch (error) {
        return rethrow(error, toStringShim);
      }
    },
  }.toString;
  masks.set(toStringShim, nativeToString.call(nativeToString));
  define(Function.prototype, 'toString', { ...describe(Function.prototype, 'toString'), value: toStringShim });

  const native = (name: string) => `function ${name}() { [native code] }`;
  function getter(proto: object | undefined, name: string, read: (self: unknown, original: () => unknown) => unknown) {
    if (!proto) return;
    const before = describe(proto, name);
    if (!before?.get) return;
    const originalGet = before.get;
    const get: () => unknown = describe(
      {
        get [name](): unknown {
          try {
            // The built-in's own first, for its brand check: a wrong receiver throws "Illegal invocation" as before.
            const value = standIns.has(this as object) ? undefined : originalGet.call(this);
            return read(this, () => value);
          } catch (error) {
            return rethrow(error, get);
          }
        },
      },
      name,
    )!.get!;
    masks.set(get, native(`get ${name}`));
    define(proto, name, { ...before, get });
  }
  type Raw = (...a: unknown[]) => unknown;
  function method(
    proto: object | undefined,
    name: string,
    run: (self: unknown, args: unknown[], original: Raw, raw: Raw) => unknown,
    returnsPromise = false,
  ) {
    if (!proto) return;
    const before = describe(proto, name);
    if (typeof before?.value !== 'function') return;
    const original = before.value as (...a: unknown[]) => unknown;
    const replaced = {
      [name](this: unknown, ...args: unknown[]) {
        try {
          if (!returnsPromise) return run(this, args, (...a) => original.apply(this, a), original);
          const site = errors.callSite(replaced); // its rejection, made later, gets the frames of this call
          return errors.restacked(run(this, args, (...a) => original.apply(this, a), original) as Promise<unknown>, site);
        } catch (error) {
          return rethrow(error, replaced);
        }
      },
    }[name];
    define(replaced, 'length', { value: original.length });
    masks.set(replaced, native(name));
    define(proto, name, { ...before, value: replaced });
  }
  const protoOf = (name: string) => (g[name] as { prototype?: object } | undefined)?.prototype;

  // Navigator (page) and WorkerNavigator (workers): platform, languages, cores, memory.
  for (const nav of [protoOf('Navigator'), protoOf('WorkerNavigator')]) {
    getter(nav, 'platform', () => d.platform);
    getter(nav, 'language', () => d.languages[0]);
    const languages = Object.freeze([...d.languages]);
    getter(nav, 'languages', () => languages);
    getter(nav, 'hardwareConcurrency', () => d.hardwareConcurrency);
    getter(nav, 'deviceMemory', () => d.deviceMemory);
  }

  const workerNav = protoOf('WorkerNavigator');
  getter(workerNav, 'userAgent', () => d.userAgent);
  getter(workerNav, 'appVersion', () => d.userAgent.replace(/^Mozilla\//, ''));

  // User-agent client hints: the same brands and high-entropy values as the Sec-CH-UA-* headers the proxy sets.
  const uaData = protoOf('NavigatorUAData');
  const copyBrands = (list: { brand: string; version: string }[]) => Object.freeze(list.map((b) => Object.freeze({ ...b })));
  const brands = copyBrands(d.uaData.brands);
  getter(uaData, 'brands', () => brands);
  getter(uaData, 'platform', () => d.uaData.platform);
  getter(uaData, 'mobile', () => false);
  // The built-ins run first (their brand and argument checks, their rejection), their answers replaced.
  method(uaData, 'toJSON', (_self, _args, original) => {
    original();
    return { brands: copyBrands(d.uaData.brands), mobile: false, platform: d.uaData.platform };
  });
  method(
    uaData,
    'getHighEntropyValues',
    (_self, args, original) => {
      const hints = args[0];
      const asked = original(...args) as Promise<unknown>;
      if (!Array.isArray(hints)) return asked; // the browser's own TypeError
      const out: Record<string, unknown> = { brands: copyBrands(d.uaData.brands), mobile: false, platform: d.uaData.platform };
      const values: Record<string, unknown> = {
        architecture: d.uaData.architecture,
        bitness: d.uaData.bitness,
        formFactors: ['Desktop'],
        fullVersionList: copyBrands(d.uaData.fullVersionList),
        model: d.uaData.model,
        platformVersion: d.uaData.platformVersion,
        uaFullVersion: d.uaData.uaFullVersion,
        wow64: d.uaData.wow64,
      };
      for (let i = 0; i < hints.length; i++) {
        const hint: unknown = hints[i];
        if (typeof hint === 'string' && Object.prototype.hasOwnProperty.call(values, hint)) out[hint] = values[hint];
      }
      return promiseThen.call(asked, () => out);
    },
    true,
  );

  // Notifications: a headless browser says "denied" where a real one, never asked, says "default" (permissions.query: "prompt").
  getter(protoOf('Notification') ? g.Notification : undefined, 'permission', (_self, original) => {
    const state = original();
    return state === 'denied' ? 'default' : state;
  });

  // WebGL: a real GPU of the device's platform, not the software renderer.
  for (const gl of [protoOf('WebGLRenderingContext'), protoOf('WebGL2RenderingContext')]) {
    method(gl, 'getParameter', (_self, args, original) => {
      // As the browser answers: null (and INVALID_ENUM) until the page enables WEBGL_debug_renderer_info.
      const value = original(...args);
      if (typeof value !== 'string') return value;
      if (args[0] === 0x9245) return d.gpu.vendor; // UNMASKED_VENDOR_WEBGL
      if (args[0] === 0x9246) return d.gpu.renderer; // UNMASKED_RENDERER_WEBGL
      return value;
    });
  }

  // Noise: a few pixels and samples moved by the least step, where the connection's seed says, so each connection draws its own.
  const noisy = (index: number) => {
    let x = (index ^ d.noiseSeed) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    return (x ^ (x >>> 16)) >>> 0;
  };
  // Whether two pixels differ, their lowest bits aside (the bits the noise sets: a second pass decides as the first).
  const differ = (data: Uint8ClampedArray, a: number, b: number) =>
    (((data[a]! ^ data[b]!) | (data[a + 1]! ^ data[b + 1]!) | (data[a + 2]! ^ data[b + 2]!) | (data[a + 3]! ^ data[b + 3]!)) & 0xfe) !== 0;
  const touchPixels = (data: Uint8ClampedArray) => {
    for (let p = 0; p < data.length; p += 4) {
      const h = noisy(p >> 2);
      if ((h & 31) !== 0 || data[p + 3] === 0) continue;
      // Only where the picture changes (an edge, text, a gradient): a flat fill the page knows the colour of reads back
      // exactly that colour, as in any browser (a filled square read back is a lie detector's first test).
      if (!(p >= 4 && differ(data, p, p - 4)) && !(p + 4 < data.length && differ(data, p, p + 4))) continue;
      // Its lowest bit set to the seed's, not stepped: noise put on noise changes nothing, so a read written back and
      // read again, or a worker whose every imported module ran this prelude, draws what one pass draws.
      const c = p + ((h >>> 5) % 3);
      data[c] = (data[c] & 0xfe) | ((h >>> 16) & 1);
    }
  };
  for (const gl of [protoOf('WebGLRenderingContext'), protoOf('WebGL2RenderingContext')])
    method(gl, 'readPixels', (_self, args, original) => {
      const out = original(...args);
      const pixels = args[6];
      if (pixels instanceof Uint8Array && args[4] === 0x1908 /* RGBA */) touchPixels(pixels as unknown as Uint8ClampedArray);
      return out;
    });
  const ctx2d = protoOf('CanvasRenderingContext2D');
  const getImageData = ctx2d ? (describe(ctx2d, 'getImageData')?.value as CanvasRenderingContext2D['getImageData']) : undefined;
  const putImageData = ctx2d
    ? (describe(ctx2d, 'putImageData')?.value as (this: CanvasRenderingContext2D, image: ImageData, x: number, y: number) => void)
    : undefined;
  method(ctx2d, 'getImageData', (_self, _args, original) => {
    const image = original(..._args) as ImageData;
    touchPixels(image.data);
    return image;
  });
  const canvasProto = protoOf('HTMLCanvasElement');
  const getContext = canvasProto ? (describe(canvasProto, 'getContext')?.value as HTMLCanvasElement['getContext']) : undefined;
  const drawImage = ctx2d
    ? (describe(ctx2d, 'drawImage')?.value as (this: CanvasRenderingContext2D, image: unknown, x: number, y: number) => void)
    : undefined;
  const widthOf = canvasProto ? describe(canvasProto, 'width')?.get : undefined;
  const heightOf = canvasProto ? describe(canvasProto, 'height')?.get : undefined;
  const setWidth = canvasProto ? describe(canvasProto, 'width')?.set : undefined;
  const setHeight = canvasProto ? describe(canvasProto, 'height')?.set : undefined;
  const createElement = (protoOf('Document') as Document | undefined)?.createElement;
  const doc = g.document as Document | undefined;
  /**
   * A copy of the canvas (of any kind: 2D, WebGL) with the noise in it, on a canvas of ours; null when it is empty or
   * cannot be read (tainted). The page's canvas is only drawn from: no context is made on it (a canvas with a 2D
   * context can never have a WebGL one).
   */
  const noisedCopy = (canvas: HTMLCanvasElement): HTMLCanvasElement | null => {
    if (
      !getContext ||
      !getImageData ||
      !putImageData ||
      !drawImage ||
      !widthOf ||
      !heightOf ||
      !setWidth ||
      !setHeight ||
      !createElement ||
      !doc
    )
      return null;
    try {
      const width = widthOf.call(canvas) as number;
      const height = heightOf.call(canvas) as number;
      if (!width || !height) return null;
      const copy = createElement.call(doc, 'canvas') as HTMLCanvasElement;
      setWidth!.call(copy, width);
      setHeight!.call(copy, height);
      const context = getContext.call(copy, '2d') as CanvasRenderingContext2D;
      drawImage.call(context, canvas, 0, 0);
      const image = getImageData.call(context, 0, 0, width, height);
      touchPixels(image.data);
      putImageData.call(context, image, 0, 0);
      return copy;
    } catch {
      return null; // a tainted canvas: the browser's own error follows from the original call
    }
  };
  for (const name of ['toDataURL', 'toBlob'])
    method(canvasProto, name, (self, args, original, raw) => {
      const copy = noisedCopy(self as HTMLCanvasElement);
      return copy ? raw.apply(copy, args) : original(...args);
    });

  // Audio: only what an OfflineAudioContext rendered (the audio fingerprint), never samples the page put in itself.
  const rendered = new WeakSet<object>();
  const touched = new WeakSet<Float32Array>();
  const audioBuffer = protoOf('AudioBuffer');
  const channelData = audioBuffer ? (describe(audioBuffer, 'getChannelData')?.value as AudioBuffer['getChannelData']) : undefined;
  const noisedChannel = (buffer: AudioBuffer, channel: number) => {
    const samples = channelData!.call(buffer, channel);
    if (!touched.has(samples)) {
      touched.add(samples);
      for (let i = 0; i < samples.length; i++) {
        const h = noisy(i);
        if ((h & 7) === 0) samples[i] *= 1 + (((h >>> 3) % 997) + 1) * 1e-7;
      }
    }
    return samples;
  };
  method(audioBuffer, 'getChannelData', (self, args, original) => {
    const samples = original(...args) as Float32Array;
    return rendered.has(self as object) ? noisedChannel(self as AudioBuffer, args[0] as number) : samples;
  });
  method(audioBuffer, 'copyFromChannel', (self, args, original) => {
    try {
      if (rendered.has(self as object) && channelData) noisedChannel(self as AudioBuffer, Number(args[1]) >>> 0);
    } catch {
      // a channel it does not have: the browser's own error follows
    }
    return original(...args);
  });
  getter(protoOf('OfflineAudioCompletionEvent'), 'renderedBuffer', (_self, original) => {
    const buffer = original() as object;
    rendered.add(buffer);
    return buffer;
  });
  method(protoOf('OfflineAudioContext'), 'startRendering', (_self, _args, original) => {
    const rendering = original() as Promise<object>;
    promiseThen.call(
      rendering,
      (buffer) => void rendered.add(buffer),
      () => undefined,
    ); // before the page's own then
    return rendering;
  });

  // The prelude of a worker script that never passed the egress proxy: this function's own text with the same facts,
  // after the self-contained functions it calls from other modules (declared under the names it calls them by), in
  // strict mode as the bundle the proxy sends runs.
  let preludeText: string | undefined; // made at the first such worker: most realms start none
  const prelude = () =>
    (preludeText ??= `(function(){"use strict";${[builtInErrors, prologueEnd, readableBlobs, wrapInlineWorkers, preludeServedWorkers].map((f) => nativeToString.call(f)).join(';')};return ${nativeToString.call(applyDevice)}})()(${JSON.stringify(d)})`);
  // On the script's first line, after its prologue: the site's script keeps its line numbers and its "use strict".
  const preluded = (script: string) => {
    const at = prologueEnd(script);
    return `${script.slice(0, at)}${at ? ';' : ''}${prelude()};${script.slice(at)}`;
  };
  const hasPrelude = (script: string) => {
    let at = prologueEnd(script);
    if (script.charCodeAt(at) === 59) at++; // the `;` put between a prologue and the prelude
    // The proxy's (`(` + bundle + `)(` + facts + `)`: worker-prelude.ts), kept in a Cache, or this realm's own.
    const fromProxy = !!d.bundle && script.startsWith(d.bundle.head, at) && script.startsWith(')(', at + 1 + d.bundle.length);
    return fromProxy || script.startsWith(prelude(), at);
  };
  const blobText = readableBlobs({ g, masks, native, rethrow });
  const kit = { g, masks, native, method, rethrow, prelude, preluded, hasPrelude, prologueEnd, blobText };
  wrapInlineWorkers(kit);
  preludeServedWorkers(kit);

  if (typeof g.document === 'undefined') return; // a worker: nothing below exists there

  // A PDF viewer, as every desktop Chrome has (five plugin names, two MIME types), and the flag that says so.
  const pluginNames = ['PDF Viewer', 'Chrome PDF Viewer', 'Chromium PDF Viewer', 'Microsoft Edge PDF Viewer', 'WebKit built-in PDF'];
  const mimeNames = ['application/pdf', 'text/pdf'];
  const fakes = new WeakMap<object, Record<string, unknown>>();
  const fake = (proto: object | undefined, fields: Record<string, unknown>) => {
    const o = Object.create(proto ?? Object.prototype) as object;
    fakes.set(o, fields);
    standIns.add(o);
    return o;
  };
  const plugins = pluginNames.map((name) =>
    fake(protoOf('Plugin'), { name, filename: 'internal-pdf-viewer', description: 'Portable Document Format', items: [] as object[] }),
  );
  const mimes = mimeNames.map((type) =>
    fake(protoOf('MimeType'), { type, suffixes: 'pdf', description: 'Portable Document Format', enabledPlugin: plugins[0] }),
  );
  for (const p of plugins) (fakes.get(p)!.items as object[]).push(...mimes);
  const listOf = (proto: object | undefined, items: object[], key: string) => {
    const list = fake(proto, { items, key });
    items.forEach((item, i) => define(list, i, { value: item, enumerable: true, configurable: true }));
    for (const item of items) define(list, fakes.get(item)![key] as string, { value: item, configurable: true });
    return list;
  };
  const pluginArray = listOf(protoOf('PluginArray'), plugins, 'name');
  const mimeArray = listOf(protoOf('MimeTypeArray'), mimes, 'type');
  for (const p of plugins) {
    const own = fakes.get(p)!.items as object[];
    own.forEach((m, i) => define(p, i, { value: m, enumerable: true, configurable: true }));
    for (const m of own) define(p, fakes.get(m)!.type as string, { value: m, configurable: true });
  }
  const field = (name: string) => (self: unknown, original: () => unknown) =>
    fakes.has(self as object) ? fakes.get(self as object)![name] : original();
  const count = (self: unknown, original: () => unknown) =>
    fakes.has(self as object) ? (fakes.get(self as object)!.items as object[]).length : original();
  for (const proto of [protoOf('Plugin'), protoOf('MimeType')])
    for (const name of ['name', 'filename', 'description', 'type', 'suffixes', 'enabledPlugin']) getter(proto, name, field(name));
  for (const proto of [protoOf('PluginArray'), protoOf('MimeTypeArray'), protoOf('Plugin')]) {
    getter(proto, 'length', count);
    method(proto, 'item', (self, args, original) => {
      const f = fakes.get(self as object);
      return f ? ((f.items as object[])[Number(args[0]) >>> 0] ?? null) : original(...args);
    });
    method(proto, 'namedItem', (self, args, original) => {
      const f = fakes.get(self as object);
      const key = (f?.key as string) ?? 'type';
      return f ? ((f.items as object[]).find((i) => fakes.get(i)![key] === String(args[0])) ?? null) : original(...args);
    });
  }
  const nav = protoOf('Navigator');
  getter(nav, 'plugins', () => pluginArray);
  getter(nav, 'mimeTypes', () => mimeArray);
  getter(nav, 'pdfViewerEnabled', () => true);

  // window.chrome, as a desktop Chrome page has it.
  if (!('chrome' in g)) {
    const since = performance.timeOrigin / 1000;
    const chrome = {
      app: {
        isInstalled: false,
        InstallState: { DISABLED: 'disabled', INSTALLED: 'installed', NOT_INSTALLED: 'not_installed' },
        RunningState: { CANNOT_RUN: 'cannot_run', READY_TO_RUN: 'ready_to_run', RUNNING: 'running' },
      },
      csi() {
        return { startE: Math.round(since * 1000), onloadT: Math.round(since * 1000), pageT: performance.now(), tran: 15 };
      },
      loadTimes() {
        return {
          requestTime: since,
          startLoadTime: since,
          commitLoadTime: since,
          finishDocumentLoadTime: 0,
          finishLoadTime: 0,
          firstPaintTime: 0,
          firstPaintAfterLoadTime: 0,
          navigationType: 'Other',
          wasFetchedViaSpdy: false,
          wasNpnNegotiated: false,
          npnNegotiatedProtocol: 'unknown',
          wasAlternateProtocolAvailable: false,
          connectionInfo: 'http/1.1',
        };
      },
    };
    masks.set(chrome.csi, native('csi'));
    masks.set(chrome.loadTimes, native('loadTimes'));
    define(g, 'chrome', { value: chrome, writable: true, enumerable: true, configurable: false });
  }

  // A window has a frame: outer size larger than the page's, placed on the screen; a taskbar keeps part of the screen.
  getter(g, 'outerWidth', () => g.innerWidth + d.frame.width);
  getter(g, 'outerHeight', () => g.innerHeight + d.frame.height);
  for (const name of ['screenX', 'screenLeft']) getter(g, name, () => d.frame.x);
  for (const name of ['screenY', 'screenTop']) getter(g, name, () => d.frame.y);
  getter(protoOf('Screen'), 'availHeight', (self, original) => (original() as number) - d.taskbar);
}
