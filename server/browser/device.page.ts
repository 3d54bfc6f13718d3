import { builtInErrors } from '../page-code/built-in-errors.page';
import { nativeMasks } from '../page-code/native-masks.page';
import { plainJson } from '../page-code/plain-json.page';
import { prologueEnd, realmText } from '../page-code/script-prologue.page';
import { desktopBattery } from './device-battery.page';
import { readableBlobs } from './device-blobs.page';
import { windowChrome } from './device-chrome.page';
import { quietConsole } from './device-console.page';
import type { DeviceFacts } from './device-facts';
import { applyNoise } from './device-noise.page';
import { preludeServedWorkers } from './device-served-workers.page';
import { diskQuota } from './device-storage.page';
import { type Original, showWorkerUrl, wrapInlineWorkers } from './device-workers.page';

/**
 * In every realm of a device's context (each document, at its start, through the context's init script; each worker,
 * shared worker and service worker script, prepended by the egress proxy): what the headless browser says of itself
 * that the device says otherwise. One closure, no globals; every function it puts in place reads as native code
 * (its name, length and source text are those of the built-in it stands for), so a page's scripts see a browser,
 * not a patch. Values that do not need changing (a Linux device on a Linux host) are left to the browser.
 */
export default function applyDevice(d: DeviceFacts, realm?: typeof globalThis): void {
  // `realm`: a window the page opened, whose first document exists before any script of ours reached it (below).
  const g = (realm ?? globalThis) as unknown as Record<string, unknown> & typeof globalThis;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  // Calls to the built-ins go through this, the realm's own, taken before any of its page scripts ran
  // (device-workers.page.ts, Original).
  const apply = g.Reflect.apply;
  // A built-in's own errors for the ones we stand in for: no frame of ours in their stacks (built-in-errors.page.ts).
  const errors = builtInErrors(g);
  const rethrow = errors.rethrow;
  /** Objects of ours that stand for the browser's (the PDF plugins): no brand check for them, they have no native. */
  const standIns = new WeakSet<object>();
  const weakSetHas = g.WeakSet.prototype.has;
  const isStandIn = (o: unknown) => apply(weakSetHas, standIns, [o]) as boolean;
  const promiseThen = g.Promise.prototype.then;
  const PromiseOf = g.Promise;
  const promiseReject = g.Promise.reject;

  // Function.prototype.toString answers for the functions put in place as for the built-ins they replace, in this realm
  // and in every same-origin realm related to it (native-masks.page.ts).
  const realmMasks = nativeMasks(g, d.realmKey, rethrow);
  // Once per realm: the next module of a module worker runs this prelude again, an opened window gets it from its opener
  // first and from its own init script after (a second pass would wrap every wrapper again).
  if (realmMasks.device) return;
  realmMasks.device = true;
  const { masks, nativeToString } = realmMasks;
  const native = (name: string) => `function ${name}() { [native code] }`;
  type Read = (self: unknown, original: () => unknown) => unknown; // `ours`: receivers its brand check would refuse
  function getter(proto: object | undefined, name: string, read: Read, ours: (self: unknown) => boolean = isStandIn) {
    if (!proto) return;
    const before = describe(proto, name);
    if (!before?.get) return;
    const originalGet = before.get;
    const get: () => unknown = describe(
      {
        get [name](): unknown {
          try {
            // The built-in's own first, for its brand check: a wrong receiver throws "Illegal invocation" as before.
            const value = ours(this) ? undefined : apply(originalGet, this, []);
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
    run: (self: unknown, args: unknown[], original: Original, raw: Raw) => unknown,
    returnsPromise = false,
  ) {
    if (!proto) return;
    const before = describe(proto, name);
    if (typeof before?.value !== 'function') return;
    const original = before.value as (...a: unknown[]) => unknown;
    const replaced = {
      [name](this: unknown, ...args: unknown[]) {
        try {
          const callOriginal: Original = (a = []) => apply(original, this, a);
          if (!returnsPromise) return run(this, args, callOriginal, original);
          const site = errors.callSite(replaced); // its rejection, made later, gets the frames of this call
          return errors.restacked(run(this, args, callOriginal, original) as Promise<unknown>, site);
        } catch (error) {
          if (!returnsPromise) return rethrow(error, replaced);
          // An operation that returns a promise rejects it with what its arguments threw (WebIDL), as the browser's does.
          errors.restack(error, replaced);
          return apply(promiseReject, PromiseOf, [error]);
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
    const languages = Object.freeze(g.Array.from(d.languages));
    getter(nav, 'languages', () => languages);
    getter(nav, 'hardwareConcurrency', () => d.hardwareConcurrency);
    getter(nav, 'deviceMemory', () => d.deviceMemory);
  }

  // Network quality: a person's browser has an estimate of its round trip; a headless one says 0 (page and workers).
  getter(protoOf('NetworkInformation'), 'rtt', (_self, original) => (original() === 0 ? d.rtt : original()));

  const workerNav = protoOf('WorkerNavigator');
  getter(workerNav, 'userAgent', () => d.userAgent);
  getter(workerNav, 'appVersion', () => d.userAgent.replace(/^Mozilla\//, ''));

  // User-agent client hints: the same brands and high-entropy values as the Sec-CH-UA-* headers the proxy sets.
  const uaData = protoOf('NavigatorUAData');
  // Made in the realm's own Array and Object (a realm's answers are its own objects), with no built-in a page could have
  // replaced since our start (the values are defined, not assigned: no setter on a prototype runs).
  const ArrayOf = g.Array;
  const ObjectOf = g.Object;
  const freeze = Object.freeze;
  const isArray = Array.isArray;
  const dataField = (o: object, key: PropertyKey, value: unknown) =>
    define(o, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true } as PropertyDescriptor);
  const copyBrands = (list: { brand: string; version: string }[]) => {
    const out = new ArrayOf() as object[];
    for (let i = 0; i < list.length; i++) {
      const b = new ObjectOf() as object;
      dataField(b, 'brand', list[i]!.brand);
      dataField(b, 'version', list[i]!.version);
      dataField(out, i, freeze(b));
    }
    return freeze(out);
  };
  const brands = copyBrands(d.uaData.brands);
  getter(uaData, 'brands', () => brands);
  getter(uaData, 'platform', () => d.uaData.platform);
  getter(uaData, 'mobile', () => false);
  // The built-ins run first (their brand and argument checks, their rejection), their answers replaced.
  method(uaData, 'toJSON', (_self, _args, original) => {
    original();
    const out = new ObjectOf() as object;
    dataField(out, 'brands', copyBrands(d.uaData.brands));
    dataField(out, 'mobile', false);
    dataField(out, 'platform', d.uaData.platform);
    return out;
  });
  // The dictionary's members, sorted (the order WebIDL gives the object it answers with).
  const HINTS = [
    'architecture',
    'bitness',
    'brands',
    'formFactors',
    'fullVersionList',
    'mobile',
    'model',
    'platform',
    'platformVersion',
    'uaFullVersion',
    'wow64',
  ];
  method(
    uaData,
    'getHighEntropyValues',
    (_self, args, original) => {
      let hints = args[0];
      if (typeof hints !== 'object' || hints === null) return original(args); // the browser's own TypeError
      if (!isArray(hints)) {
        // Another iterable (a Set, a generator): read once, here, as the browser would, and the browser given the list.
        const list: unknown[] = [];
        for (const hint of hints as Iterable<unknown>) dataField(list, list.length, `${hint as string}`);
        hints = list;
        args = [list];
      }
      const asked = original(args) as Promise<unknown>;
      const hintList = hints as unknown[];
      const values = {
        __proto__: null,
        architecture: d.uaData.architecture,
        bitness: d.uaData.bitness,
        brands: copyBrands(d.uaData.brands),
        formFactors: freeze(dataField(new ArrayOf(), 0, 'Desktop')),
        fullVersionList: copyBrands(d.uaData.fullVersionList),
        mobile: false,
        model: d.uaData.model,
        platform: d.uaData.platform,
        platformVersion: d.uaData.platformVersion,
        uaFullVersion: d.uaData.uaFullVersion,
        wow64: d.uaData.wow64,
      } as unknown as Record<string, unknown>;
      const wanted = { __proto__: null, brands: true, mobile: true, platform: true } as unknown as Record<string, boolean>;
      for (let i = 0; i < hintList.length; i++) {
        const hint: unknown = hintList[i];
        if (typeof hint === 'string' && hint in values) wanted[hint] = true;
      }
      const out = new ObjectOf() as object;
      for (let i = 0; i < HINTS.length; i++) if (wanted[HINTS[i]!]) dataField(out, HINTS[i]!, values[HINTS[i]!]);
      define(asked, 'constructor', { __proto__: null, value: undefined } as PropertyDescriptor); // no species of a page's
      return apply(promiseThen, asked, [() => out]);
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
      const value = original(args);
      if (typeof value !== 'string') return value;
      if (args[0] === 0x9245) return d.gpu.vendor; // UNMASKED_VENDOR_WEBGL
      if (args[0] === 0x9246) return d.gpu.renderer; // UNMASKED_RENDERER_WEBGL
      return value;
    });
  }

  // Noise: each connection draws its own canvas, WebGL and audio (device-noise.page.ts).
  applyNoise({ g, seed: d.noiseSeed, getter, method, promiseThen });

  // The storage quota of the device's disk, not an off-the-record context's (device-storage.page.ts).
  diskQuota({ g, quota: d.storageQuota, method });

  // The console says nothing to the DevTools session that drives the page (device-console.page.ts).
  quietConsole({ g, method, realmMasks });

  // The prelude of a worker script that never passed the egress proxy: this function's own text with the same facts,
  // after the self-contained functions it calls from other modules (declared under the names it calls them by), in
  // strict mode as the bundle the proxy sends runs.
  // Made when a worker starts, long after the page's scripts ran: only with what this realm had at its start (no
  // JSON.stringify, Array method, call or String method a page could have replaced since sees a call of ours).
  const text = realmText(g);
  const stringify = g.JSON.stringify;
  const pageCode = [builtInErrors, nativeMasks, plainJson, prologueEnd, realmText]; // the device's helpers (page-code/)
  const parts = [...pageCode, applyNoise, diskQuota, quietConsole, windowChrome, readableBlobs];
  const workerParts = [wrapInlineWorkers, showWorkerUrl, preludeServedWorkers];
  let preludeHead: string | undefined; // made at the first such worker: most realms start none
  let preludeText: string | undefined;
  // The facts as JSON with no toJSON of a page's looked up; the workerUrl is added per worker (below).
  const jsonOf = plainJson(g, 'workerUrl');
  let factsJson: string | undefined; // made with the prelude, at the first such worker
  const preludeWith = (json: string) => {
    if (preludeHead === undefined) {
      let head = '(function(){"use strict";';
      for (let i = 0; i < parts.length; i++) head += (apply(nativeToString, parts[i], []) as string) + ';';
      for (let i = 0; i < workerParts.length; i++) head += (apply(nativeToString, workerParts[i], []) as string) + ';';
      preludeHead = head + 'return ' + (apply(nativeToString, applyDevice, []) as string) + '})()(';
    }
    return preludeHead + json + ')';
  };
  /** This realm's prelude; with `workerUrl`, the one of a worker the page starts from that blob: or data: URL of its own. */
  const prelude = (workerUrl?: string) => {
    const json = (factsJson ??= jsonOf(d)!);
    if (workerUrl === undefined) return (preludeText ??= preludeWith(json));
    const named = ',"workerUrl":' + (apply(stringify, g.JSON, [workerUrl]) as string) + '}';
    return preludeWith(text.cut(json, 0, json.length - 1) + named);
  };
  // On the script's first line, after its prologue: the site's script keeps its line numbers and its "use strict".
  const preluded = (script: string, workerUrl?: string) => {
    const at = prologueEnd(script, undefined, text);
    return text.cut(script, 0, at) + (at ? ';' : '') + prelude(workerUrl) + ';' + text.cut(script, at, script.length);
  };
  const hasPrelude = (script: string) => {
    let at = prologueEnd(script, undefined, text);
    if (text.code(script, at) === 59) at++; // the `;` put between a prologue and the prelude
    // The proxy's (`(` + bundle + `)(` + facts + `)`: worker-prelude.ts), kept in a Cache, or this realm's own.
    const fromProxy = !!d.bundle && text.starts(script, d.bundle.head, at) && text.starts(script, ')(', at + 1 + d.bundle.length);
    return fromProxy || text.starts(script, prelude(), at);
  };
  const blobText = readableBlobs({ g, masks, native, rethrow });
  const kit = { g, masks, native, method, getter, rethrow, prelude, preluded, hasPrelude, prologueEnd, blobText, text };
  wrapInlineWorkers(kit);
  // After wrapInlineWorkers, which keeps the location's own getters for the workers this one starts.
  showWorkerUrl(kit, d.workerUrl);
  preludeServedWorkers(kit);

  if (typeof g.document === 'undefined') return; // a worker: nothing below exists there (nor in its prelude's parts)

  // A desktop's battery, answered in every page, not only the first of the browser that asks (device-battery.page.ts).
  desktopBattery({ g, method, getter, masks, native, rethrow, shared: realmMasks.shared });

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
  // What a getter or method is asked of a stand-in, read without any built-in a page could have replaced since.
  const weakMapGet = g.WeakMap.prototype.get;
  const fakeOf = (self: unknown) => apply(weakMapGet, fakes, [self]) as Record<string, unknown> | undefined;
  const field = (name: string) => (self: unknown, original: () => unknown) => {
    const f = fakeOf(self);
    return f ? f[name] : original();
  };
  const count = (self: unknown, original: () => unknown) => {
    const f = fakeOf(self);
    return f ? (f.items as object[]).length : original();
  };
  for (const proto of [protoOf('Plugin'), protoOf('MimeType')])
    for (const name of ['name', 'filename', 'description', 'type', 'suffixes', 'enabledPlugin']) getter(proto, name, field(name));
  // A call with no argument is the browser's own TypeError ("1 argument required"): asked of its own (empty) list.
  const listGetters = {
    PluginArray: describe(protoOf('Navigator') ?? {}, 'plugins')?.get,
    MimeTypeArray: describe(protoOf('Navigator') ?? {}, 'mimeTypes')?.get,
  };
  const required = (name: string, iface: string, raw: Raw) => {
    const listGetter = listGetters[iface as keyof typeof listGetters];
    const own = listGetter ? (apply(listGetter, g.navigator, []) as object | undefined) : undefined;
    if (own) apply(raw, own, []);
    throw new g.TypeError(`Failed to execute '${name}' on '${iface}': 1 argument required, but only 0 present.`);
  };
  for (const iface of ['PluginArray', 'MimeTypeArray', 'Plugin']) {
    const proto = protoOf(iface);
    getter(proto, 'length', count);
    method(proto, 'item', (self, args, original, raw) => {
      const f = fakeOf(self);
      if (f && !args.length) required('item', iface, raw);
      return f ? ((f.items as object[])[Number(args[0]) >>> 0] ?? null) : original(args);
    });
    method(proto, 'namedItem', (self, args, original, raw) => {
      const f = fakeOf(self);
      if (!f) return original(args);
      if (!args.length) required('namedItem', iface, raw);
      const wanted = String(args[0]);
      const items = f.items as object[];
      for (let i = 0; i < items.length; i++) if (fakeOf(items[i])![f.key as string] === wanted) return items[i];
      return null;
    });
  }
  method(protoOf('PluginArray'), 'refresh', (self, args, original) => (fakeOf(self) ? undefined : original(args)));
  const nav = protoOf('Navigator');
  getter(nav, 'plugins', () => pluginArray);
  getter(nav, 'mimeTypes', () => mimeArray);
  getter(nav, 'pdfViewerEnabled', () => true);

  // window.chrome, as a desktop Chrome page has it (device-chrome.page.ts).
  windowChrome({ g, masks, rethrow });

  // A window the page opens with no address yet (open(''), document.open(url, name, features)) runs the page's script
  // before any script of ours reached it: the device is put on it here, as it is returned (its empty document has
  // the opener's origin; another origin's window is not reachable, and its own documents run the init script).
  for (const [holder, name] of [
    [g, 'open'],
    [protoOf('Document'), 'open'],
  ] as const)
    method(holder as object | undefined, name, (_self, _args, original) => {
      const opened = original(_args) as (typeof globalThis & { window?: unknown }) | null;
      try {
        if (opened && opened.window === opened && opened !== (g as unknown)) applyDevice(d, opened);
      } catch {
        // another origin's window
      }
      return opened;
    });

  // A window has a frame: outer size larger than the page's, placed on the screen; a taskbar keeps part of the screen.
  // From the browser's own (the top window's size, in every frame of it: a frame's outer size is its window's).
  getter(g, 'outerWidth', (_self, original) => (original() as number) + d.frame.width);
  getter(g, 'outerHeight', (_self, original) => (original() as number) + d.frame.height);
  for (const name of ['screenX', 'screenLeft']) getter(g, name, () => d.frame.x);
  for (const name of ['screenY', 'screenTop']) getter(g, name, () => d.frame.y);
  getter(protoOf('Screen'), 'availHeight', (self, original) => (original() as number) - d.taskbar);
  // A Mac's menu bar and a Linux desktop's panel are at the top of the screen: what is left starts below them.
  getter(protoOf('Screen'), 'availTop', (self, original) => (original() as number) + d.taskbarTop);
}
