/**
 * The device's prelude (device.page.ts) for the workers a realm starts that never pass the egress proxy as a worker's
 * script: those made from the page's own Blob or a data: URL, and those a service worker answers itself.
 *
 * Each function here is self-contained (nothing from outside its own body but its argument): applyDevice puts their
 * source text, with its own, into the prelude it makes for such a worker (device.page.ts, `prelude`).
 */

type Raw = (...a: unknown[]) => unknown;
/**
 * The built-in a wrapper stands for, called on the wrapper's receiver with `args` (none when omitted), through the
 * Reflect.apply captured before any page script ran: a page that replaced Function.prototype.call or apply, or the
 * array iterator a spread would use, sees no call of ours go through them, as a built-in's own getter makes none.
 */
export type Original = (args?: ArrayLike<unknown>) => unknown;

/** What applyDevice lends these functions: its helpers, and the prelude as this realm makes it. */
export interface WorkerKit {
  g: Record<string, unknown> & typeof globalThis;
  masks: WeakMap<object, string>;
  native: (name: string) => string;
  method: (proto: object | undefined, name: string, run: (self: unknown, args: unknown[], original: Original, raw: Raw) => unknown) => void;
  /** Throws `error` on, its stack begun below `ours` (no frame of this script in it), as a built-in's own error. */
  rethrow: (error: unknown, ours: unknown) => never;
  /** This realm's prelude, made at the first use (most realms start no such worker). */
  prelude: () => string;
  /** `script` with the prelude where its statements begin (after its hashbang and directive prologue), on that line. */
  preluded: (script: string) => string;
  /** Whether `script` begins with a prelude already (the proxy's, kept in a Cache, or this realm's own form). */
  hasPrelude: (script: string) => boolean;
  /** Where `script`'s statements begin (script-prologue.page.ts). */
  prologueEnd: (script: string) => number;
  /** The text of a Blob the page made, when it is known at once (device-blobs.page.ts), else null. */
  blobText: (blob: unknown) => string | null;
}

/**
 * A worker the page starts from its own Blob (blob:) or a data: URL never passes the egress proxy that puts the
 * prelude in front of worker scripts, so it would speak as the machine. Here the constructor gives it the prelude
 * first: a new script of the same kind, made of the page's script (from its Blob, which the page may revoke at once,
 * or from its data: URL) with the prelude in it.
 * - Where: the data: URL's script, and a Blob's whose text is known at once (device-blobs.page.ts), get it after their
 *   directive prologue, on the same line, as the proxy puts it: "use strict" stays a directive, every line keeps its
 *   number. A Blob whose text is not known (one made from a stream, a fetched Blob) gets it in front.
 * - A module worker whose own static imports are blob: or data: modules: those are evaluated before its first
 *   statement, so the prelude is imported first instead, by a URL of the same scheme as the page's own import (a
 *   page whose Content-Security-Policy refused that scheme would have no working worker to begin with). A module it
 *   imports over the network has the proxy's prelude.
 * - Ours is revoked as soon as the worker holds it: the worker cannot fetch its own URL and read the prelude. So a
 *   SharedWorker started twice from one Blob URL of the page's starts two workers (a script of ours kept for the
 *   second would be readable by the first).
 * The constructors stay what they were to a script: same name, length, prototype and source text.
 */
export function wrapInlineWorkers(kit: WorkerKit): void {
  const { g, masks, native, method, rethrow, prelude, preluded, prologueEnd, blobText } = kit;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const URLs = g.URL as typeof URL | undefined;
  const BlobType = g.Blob as typeof Blob | undefined;
  const newOf = g.Reflect.construct; // the realm's own, taken before any of its page scripts ran (Original)
  if (!URLs || !BlobType || typeof URLs.createObjectURL !== 'function') return;
  const createURL = URLs.createObjectURL.bind(URLs);
  const revokeURL = URLs.revokeObjectURL.bind(URLs);
  const blobs = new Map<string, Blob>();
  // A page's createObjectURL and revokeObjectURL make no call of a built-in the page replaced since (Original).
  const apply = g.Reflect.apply;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  method(URLs, 'createObjectURL', (_self, args, original) => {
    const url = original(args) as string;
    if (args[0] instanceof BlobType) apply(mapSet, blobs, [url, args[0]]);
    return url;
  });
  method(URLs, 'revokeObjectURL', (_self, args, original) => {
    const result = original(args); // the page's argument read once, by the browser (and its error, if any)
    // not String(): a page's toString would run a second time
    if (typeof args[0] === 'string') apply(mapDelete, blobs, [args[0]]);
    return result;
  });
  // `{ type: "module" }` as an own data property (read without running a getter: the constructor reads it itself).
  const isModule = (options: unknown) => {
    if (options === null || typeof options !== 'object') return false;
    const type = describe(options, 'type');
    return !!type && 'value' in type && type.value === 'module';
  };
  // The scheme of the first static import (or export-from) of a blob: or data: module in a module's text.
  const inlineImport = /(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](blob|data):/;
  let preludeModuleURL: string | undefined; // one per realm, kept: a worker's imports are fetched after its start
  const withPrelude = (script: string, module: boolean) => {
    const scheme = module ? inlineImport.exec(script.slice(0, 262_144))?.[1] : undefined;
    if (!scheme) return preluded(script);
    const url =
      scheme === 'blob'
        ? (preludeModuleURL ??= createURL(new BlobType([prelude()], { type: 'text/javascript' })))
        : `data:text/javascript,${encodeURIComponent(prelude())}`;
    const at = prologueEnd(script);
    return `${script.slice(0, at)}${at ? ';' : ''}import ${JSON.stringify(url)};${script.slice(at)}`;
  };
  /** The URL to start instead, whether it is revoked once the worker holds it, or null to start the page's own. */
  const inlined = (input: string, options: unknown): { url: string; revoke: boolean } | null => {
    let href: string;
    try {
      href = new URLs(String(input), (g.location as Location).href).href;
    } catch {
      return null; // the browser's own error follows
    }
    const module = isModule(options);
    if (href.startsWith('blob:')) {
      const blob = blobs.get(href);
      if (!blob) return null;
      const text = blobText(blob);
      // Text unknown: the prelude on the script's first line, in front (every line of the page's keeps its number).
      const made = new BlobType(text === null ? [`${prelude()};`, blob] : [withPrelude(text, module)], { type: 'text/javascript' });
      const url = createURL(made);
      return { url, revoke: true };
    }
    if (!href.startsWith('data:')) return null;
    // A data: worker keeps a data: URL (its origin stays opaque): the page's script decoded, the prelude in it.
    const comma = href.indexOf(',');
    if (comma < 0) return null;
    try {
      const head = href.slice(5, comma);
      const body = href.slice(comma + 1);
      const script = /;base64$/i.test(head)
        ? new TextDecoder().decode(Uint8Array.from(atob(decodeURIComponent(body)), (c) => c.charCodeAt(0)))
        : decodeURIComponent(body);
      return { url: `data:text/javascript,${encodeURIComponent(withPrelude(script, module))}`, revoke: false };
    } catch {
      return null;
    }
  };
  // A TrustedScriptURL (a page that enforces Trusted Types) goes to the browser as it is: a string of ours in its place
  // would be refused there, and a worker without the prelude is better than none. A string or a URL is read here, once.
  const TrustedURL = g.TrustedScriptURL as (new () => object) | undefined;
  const specOf = (input: unknown) =>
    typeof input === 'string' ? input : input instanceof URLs && !(TrustedURL && input instanceof TrustedURL) ? input.href : null;
  for (const name of ['Worker', 'SharedWorker']) {
    const Original = g[name] as (new (...a: unknown[]) => object) | undefined;
    if (typeof Original !== 'function') continue;
    const construct = (target: typeof Original, args: unknown[], newTarget: unknown): object => {
      try {
        const spec = args.length > 0 ? specOf(args[0]) : null;
        const swap = spec === null ? null : inlined(spec, args[1]);
        // The page's other arguments as they are, in a list made without the array iterator a spread would use.
        const list: unknown[] = swap ? [swap.url] : args;
        if (swap) for (let i = 1; i < args.length; i++) list[i] = args[i];
        const made = newOf(target, list, newTarget === wrapped ? target : (newTarget as typeof Original));
        if (swap?.revoke) revokeURL(swap.url);
        return made;
      } catch (error) {
        return rethrow(error, construct);
      }
    };
    const wrapped: typeof Original = new Proxy(Original, { construct });
    masks.set(wrapped, native(name));
    define(g, name, { ...describe(g, name), value: wrapped });
    define(Original.prototype, 'constructor', { ...describe(Original.prototype, 'constructor'), value: wrapped });
  }
}

/**
 * A service worker may answer a worker's script itself (from its Cache, or by its own fetch, which Chromium sends as
 * `Sec-Fetch-Dest: empty`): that script never passed the egress proxy as a worker's. In the service worker's realm
 * (started with the prelude by the proxy), `respondWith` for a worker's or shared worker's script puts the prelude in
 * a JavaScript answer (200, not opaque, not redirected: the worker's URL stays the site's), unless it has one already
 * (a script the proxy prefixed, kept in the Cache).
 */
export function preludeServedWorkers(kit: WorkerKit): void {
  const { g, method, preluded, hasPrelude } = kit;
  const FetchEventType = g.FetchEvent as { prototype?: object } | undefined;
  const ResponseType = g.Response as typeof Response | undefined;
  if (!FetchEventType?.prototype || !ResponseType) return;
  // The WHATWG JavaScript MIME types (as worker-prelude.ts lists them), parameters aside.
  const scriptType =
    /^\s*(?:application\/(?:x-)?(?:ecma|java)script|text\/(?:(?:x-)?(?:ecma|java)script|javascript1\.[0-5]|jscript|livescript))\s*(?:;|$)/i;
  const withPrelude = async (answer: unknown) => {
    if (!(answer instanceof ResponseType) || answer.status !== 200 || answer.redirected || answer.bodyUsed) return answer;
    if (answer.type !== 'basic' && answer.type !== 'cors' && answer.type !== 'default') return answer;
    if (!scriptType.test(answer.headers.get('content-type') ?? '')) return answer;
    const text = await answer.clone().text();
    if (hasPrelude(text)) return answer;
    const headers = new Headers(answer.headers);
    for (const name of ['content-length', 'content-encoding', 'etag']) headers.delete(name);
    return new ResponseType(preluded(text), { status: answer.status, statusText: answer.statusText, headers });
  };
  method(FetchEventType.prototype, 'respondWith', (self, args, original) => {
    let destination: string | undefined;
    try {
      destination = (self as { request: Request }).request.destination;
    } catch {
      return original(args); // not a FetchEvent: the browser's own TypeError
    }
    if (!args.length || (destination !== 'worker' && destination !== 'sharedworker')) return original(args);
    // Whatever goes wrong here, the service worker's own answer goes on (it was only read through a clone).
    return original([Promise.resolve(args[0]).then((answer) => withPrelude(answer).catch(() => answer))]);
  });
}
