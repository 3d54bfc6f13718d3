/**
 * The device's prelude (device.page.ts) for the workers a realm starts that never pass the egress proxy as a worker's
 * script: those made from the page's own Blob or a data: URL (here), and those a service worker answers itself
 * (device-served-workers.page.ts).
 *
 * Each function here is self-contained (nothing from outside its own body but its argument): applyDevice puts their
 * source text, with its own, into the prelude it makes for such a worker (device.page.ts, `prelude`).
 */

import type { RealmText } from '../page-code/script-prologue.page';

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
  /** A getter replaced as device.page.ts does it: the built-in's own first (its brand check), then `read`. */
  getter: (proto: object | undefined, name: string, read: (self: unknown, original: () => unknown) => unknown) => void;
  /** Throws `error` on, its stack begun below `ours` (no frame of this script in it), as a built-in's own error. */
  rethrow: (error: unknown, ours: unknown) => never;
  /** This realm's prelude, made at the first use (most realms start no such worker); `workerUrl`: DeviceFacts'. */
  prelude: (workerUrl?: string) => string;
  /** `script` with the prelude where its statements begin (after its hashbang and directive prologue), on that line. */
  preluded: (script: string, workerUrl?: string) => string;
  /** Whether `script` begins with a prelude already (the proxy's, kept in a Cache, or this realm's own form). */
  hasPrelude: (script: string) => boolean;
  /** Where `script`'s statements begin (script-prologue.page.ts). */
  prologueEnd: (script: string, limit?: number, text?: RealmText) => number;
  /** The realm's own String and RegExp methods, taken at its start (script-prologue.page.ts). */
  text: RealmText;
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
 * - A module worker whose Blob or data: URL is not of a JavaScript type is left to the browser, which refuses it.
 * - Ours is revoked as soon as the worker holds it: the worker cannot fetch its own URL (its base URL, `fetch('')`)
 *   and read the prelude. A SharedWorker's address is kept, not its script: the browser finds a running shared worker
 *   by its URL without fetching it, so the same page URL started again connects to the same worker, as it would
 *   without us. (Where that worker has ended meanwhile, the browser's fetch of our revoked URL fails, where the page's
 *   own URL, still alive, would have started a new one.)
 * The constructors stay what they were to a script: same name, length, prototype and source text.
 */
export function wrapInlineWorkers(kit: WorkerKit): void {
  const { g, masks, native, method, rethrow, prelude, preluded, prologueEnd, blobText, text } = kit;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const URLs = g.URL as typeof URL | undefined;
  const BlobType = g.Blob as typeof Blob | undefined;
  const newOf = g.Reflect.construct; // the realm's own, taken before any of its page scripts ran (Original)
  if (!URLs || !BlobType || typeof URLs.createObjectURL !== 'function') return;
  const createURL = URLs.createObjectURL.bind(URLs);
  const revokeURL = URLs.revokeObjectURL.bind(URLs);
  const blobs = new Map<string, Blob>();
  // A page's createObjectURL and revokeObjectURL, and its worker's start, make no call of a built-in the page replaced
  // since (Original): everything below is the realm's own, taken now.
  const apply = g.Reflect.apply;
  const mapSet = Map.prototype.set;
  const mapGet = Map.prototype.get;
  const mapDelete = Map.prototype.delete;
  const hrefOf = describe(URLs.prototype, 'href')?.get;
  // Brand checks, as the browser makes them (not instanceof, which walks a prototype chain a page can change or proxy):
  // a built-in getter or method of the type, called on the value, throws for anything else.
  const branded = (check: ((this: unknown) => unknown) | undefined, value: unknown) => {
    if (!check || value === null || typeof value !== 'object') return false;
    try {
      apply(check, value, []);
      return true;
    } catch {
      return false;
    }
  };
  const blobSize = describe(BlobType.prototype, 'size')?.get;
  const blobType = describe(BlobType.prototype, 'type')?.get;
  // The WHATWG JavaScript MIME types, parameters aside: a module worker's script of any other type is refused by the
  // browser (measured: text/plain, none, JSON, HTML …), a classic worker's of any type runs.
  const scriptMime =
    /^\s*(?:application\/(?:x-)?(?:ecma|java)script|text\/(?:(?:x-)?(?:ecma|java)script|javascript1\.[0-5]|jscript|livescript))\s*(?:;|$)/i;
  const refusedModule = (module: boolean, mime: string) => module && text.match(scriptMime, mime) === null;
  const trustedProto = (g.TrustedScriptURL as { prototype?: object } | undefined)?.prototype;
  const trustedToString = trustedProto ? (describe(trustedProto, 'toString')?.value as (this: unknown) => string) : undefined;
  // The document's address (a Location's href is its own, unforgeable), or in a worker its location's, as the browser has it.
  const protoOf = (name: string) => (g[name] as { prototype?: object } | undefined)?.prototype;
  const locationOf = protoOf('WorkerGlobalScope') && describe(protoOf('WorkerGlobalScope')!, 'location')?.get;
  const locationHref = protoOf('WorkerLocation') && describe(protoOf('WorkerLocation')!, 'href')?.get;
  const baseOf = (): string =>
    locationOf && locationHref ? (apply(locationHref, apply(locationOf, g, []), []) as string) : (g.location as Location).href;
  const JSONOf = g.JSON;
  const stringify = JSONOf.stringify;
  const encode = g.encodeURIComponent;
  const fromCharCode = g.String.fromCharCode;
  const hexOf = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
  /** A URL's text (ASCII: the URL parser encoded the rest) as the bytes it stands for: `%xx` is one byte. */
  const percentDecoded = (s: string): number[] => {
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      const c = text.code(s, i);
      const hi = c === 37 && i + 2 < s.length ? hexOf(text.code(s, i + 1)) : -1;
      const lo = hi >= 0 ? hexOf(text.code(s, i + 2)) : -1;
      // Defined, not pushed: no Array.prototype method or setter of the page's runs.
      define(out, out.length, {
        __proto__: null,
        value: lo >= 0 ? hi * 16 + lo : c & 0xff,
        writable: true,
        enumerable: true,
        configurable: true,
      } as PropertyDescriptor);
      if (lo >= 0) i += 2;
    }
    return out;
  };
  const atob = g.atob;
  const Bytes = g.Uint8Array;
  const Decoder = g.TextDecoder;
  const decodeText = Decoder?.prototype.decode;
  method(URLs, 'createObjectURL', (_self, args, original) => {
    const url = original(args) as string;
    if (branded(blobSize, args[0])) apply(mapSet, blobs, [url, args[0]]);
    return url;
  });
  // The address of a SharedWorker's script of ours, by the page's URL it stands for (with its fragment) and its name.
  const sharedUrls = new Map<string, string>();
  method(URLs, 'revokeObjectURL', (_self, args, original) => {
    const result = original(args); // the page's argument read once, by the browser (and its error, if any)
    // not String(): a page's toString would run a second time
    if (typeof args[0] === 'string') apply(mapDelete, blobs, [args[0]]);
    return result;
  });
  // `{ type: "module" }` as an own data property (read without running a getter: the constructor reads it itself).
  /**
   * A shared worker's name, as the constructor takes it: its second argument when a string, else its options' own
   * `name` (read without running a getter: the constructor reads it itself); null where it is not plain to read.
   */
  const sharedName = (options: unknown): string | null => {
    if (options === undefined) return '';
    if (typeof options === 'string') return options;
    if (options === null || typeof options !== 'object') return null;
    const name = describe(options, 'name');
    if (!name) return '';
    return 'value' in name && typeof name.value === 'string' ? name.value : null;
  };
  const isModule = (options: unknown) => {
    if (options === null || typeof options !== 'object') return false;
    const type = describe(options, 'type');
    return !!type && 'value' in type && type.value === 'module';
  };
  // The scheme of the first static import (or export-from) of a blob: or data: module in a module's text.
  const inlineImport = /(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](blob|data):/;
  // A magic comment that names the script for stacks and errors (V8 keeps the last one): the page's own, if it has one.
  const namesItself = /\/[/*][#@]\s*sourceURL=/;
  const noWhitespace = /^\S+$/;
  // A null-prototype dictionary: the Blob constructor reads its members, and no getter a page put on Object.prototype runs.
  const scriptType = () => ({ __proto__: null, type: 'text/javascript' }) as unknown as BlobPropertyBag;
  // One per worker URL, kept: a worker's imports are fetched after its start.
  const preludeModules = new Map<string, string>();
  /**
   * A module's import.meta.url is the URL its script came from: ours, which is not the page's, and a data: URL of ours
   * holds the prelude. The host makes it a plain data property of the module's own import.meta: set to the page's URL
   * first thing in the module (after the prelude), it is what the browser would have given.
   */
  const metaUrl = (workerUrl: string) => 'import.meta.url=' + (apply(stringify, JSONOf, [workerUrl]) as string) + ';';
  /** `statement` where `script`'s statements begin, on that line. */
  const first = (script: string, statement: string) => {
    const at = prologueEnd(script, undefined, text);
    return text.cut(script, 0, at) + (at ? ';' : '') + statement + text.cut(script, at, script.length);
  };
  const withPrelude = (script: string, module: boolean, workerUrl: string) => {
    const found = module ? text.match(inlineImport, text.cut(script, 0, 262_144)) : null;
    const scheme = found ? found[1] : undefined;
    // The prelude goes where the statements begin, in front of the import.meta line put there first.
    if (!scheme) return preluded(module ? first(script, metaUrl(workerUrl)) : script, workerUrl);
    let url = scheme === 'blob' ? (apply(mapGet, preludeModules, [workerUrl]) as string | undefined) : undefined;
    if (url === undefined) {
      url =
        scheme === 'blob'
          ? createURL(new BlobType([prelude(workerUrl)], scriptType()))
          : 'data:text/javascript,' + (apply(encode, g, [prelude(workerUrl)]) as string);
      if (scheme === 'blob') apply(mapSet, preludeModules, [workerUrl, url]);
    }
    return first(script, 'import ' + (apply(stringify, JSONOf, [url]) as string) + ';' + metaUrl(workerUrl));
  };
  /**
   * A URL's raw spaces as %20. A data: URL keeps the spaces the page wrote (its path is opaque: only controls and
   * non-ASCII are encoded, tabs and newlines dropped), and a sourceURL's value ends at the first space.
   */
  const spacesEncoded = (href: string) => {
    let out = '';
    let from = 0;
    for (let at = text.find(href, ' ', 0); at >= 0; at = text.find(href, ' ', from)) {
      out += text.cut(href, from, at) + '%20';
      from = at + 1;
    }
    return out + text.cut(href, from, href.length);
  };
  /**
   * The page's URL as the name of the script of ours that stands for it: stacks and ErrorEvent.filename, in the worker
   * and in the page, show it (V8's sourceURL), not ours, which for a data: URL would hold the prelude. Spaces show as
   * %20 (the closest a sourceURL can come). Not where the script names itself already.
   */
  const named = (script: string, known: boolean, href: string) => {
    const name = spacesEncoded(href);
    return (known && text.match(namesItself, script) !== null) || text.match(noWhitespace, name) === null ? '' : '\n//# sourceURL=' + name;
  };
  /** The URL to start instead, whether it is revoked once the worker holds it, or null to start the page's own. */
  const inlined = (input: string, options: unknown, shared: boolean): { url: string; revoke: boolean } | null => {
    let href: string;
    try {
      href = apply(hrefOf!, new URLs(input, baseOf()), []) as string;
    } catch {
      return null; // the browser's own error follows
    }
    const module = isModule(options);
    // A fragment is not part of a blob: URL's key, nor of a data: URL's body (the worker's location keeps it).
    const hash = text.find(href, '#', 0);
    const bare = hash < 0 ? href : text.cut(href, 0, hash);
    if (text.starts(href, 'blob:', 0)) {
      // A shared worker is found by its URL and its name: the same pair again is the same worker.
      const name = shared ? sharedName(options) : null;
      const key = name === null ? null : href + ' ' + name;
      const started = key === null ? undefined : (apply(mapGet, sharedUrls, [key]) as string | undefined);
      if (started !== undefined) return { url: started, revoke: false };
      const blob = apply(mapGet, blobs, [bare]) as Blob | undefined;
      // A module the browser would refuse for its type is the browser's to refuse: ours would be JavaScript.
      if (!blob || refusedModule(module, blobType ? (apply(blobType, blob, []) as string) : '')) return null;
      const script = blobText(blob);
      // Text unknown: the prelude on the script's first line, in front (every line of the page's keeps its number).
      const made = new BlobType(
        script === null
          ? [prelude(href) + ';' + (module ? metaUrl(href) : ''), blob, named('', false, href)]
          : [withPrelude(script, module, href) + named(script, true, href)],
        scriptType(),
      );
      const url = createURL(made);
      if (key !== null) apply(mapSet, sharedUrls, [key, url]);
      return { url, revoke: true };
    }
    if (!text.starts(href, 'data:', 0)) return null;
    // A data: worker keeps a data: URL (its origin stays opaque): the page's script decoded, the prelude in it.
    const comma = text.find(bare, ',', 0);
    if (comma < 0 || !Decoder || !decodeText) return null;
    try {
      const head = text.cut(bare, 5, comma);
      if (refusedModule(module, head)) return null;
      // The body's bytes, percent-decoded as the fetch standard's data: URL processor does (a `%` not followed by two
      // hex digits stays itself), then UTF-8 decoded, or base64-decoded first.
      const decoded = percentDecoded(text.cut(bare, comma + 1, bare.length));
      let bytes: Uint8Array;
      if (text.match(/;\s*base64\s*$/i, head) !== null) {
        let latin = '';
        for (let i = 0; i < decoded.length; i++) latin += apply(fromCharCode, null, [decoded[i]]) as string;
        const binary = apply(atob, g, [latin]) as string;
        bytes = new Bytes(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = text.code(binary, i);
      } else {
        bytes = new Bytes(decoded.length);
        for (let i = 0; i < decoded.length; i++) bytes[i] = decoded[i]!;
      }
      const script = apply(decodeText, new Decoder(), [bytes]) as string;
      const prefixed = withPrelude(script, module, href) + named(script, true, href);
      return { url: 'data:text/javascript,' + (apply(encode, g, [prefixed]) as string), revoke: false };
    } catch {
      return null;
    }
  };
  // A TrustedScriptURL (a page that enforces Trusted Types) goes to the browser as it is: a string of ours in its place
  // would be refused there, and a worker without the prelude is better than none. A string or a URL is read here, once.
  const specOf = (input: unknown) =>
    typeof input === 'string'
      ? input
      : branded(hrefOf, input) && !branded(trustedToString, input)
        ? (apply(hrefOf!, input, []) as string)
        : null;
  for (const name of ['Worker', 'SharedWorker']) {
    const Original = g[name] as (new (...a: unknown[]) => object) | undefined;
    if (typeof Original !== 'function') continue;
    const construct = (target: typeof Original, args: unknown[], newTarget: unknown): object => {
      try {
        const spec = args.length > 0 && hrefOf ? specOf(args[0]) : null;
        const swap = spec === null ? null : inlined(spec, args[1], name === 'SharedWorker');
        // The page's other arguments as they are, in a list made without the array iterator a spread would use, and
        // defined, not assigned (no setter a page put on Array.prototype runs).
        const list: unknown[] = swap ? [swap.url] : args;
        if (swap)
          for (let i = 1; i < args.length; i++)
            define(list, i, {
              __proto__: null,
              value: args[i],
              writable: true,
              enumerable: true,
              configurable: true,
            } as PropertyDescriptor);
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
 * In a worker the page started from a blob: or data: URL of its own (`workerUrl`), which runs from a script of ours
 * made of it: its location is the page's URL, as the browser's would be (our URL, revoked, is nowhere to be read).
 * Every part of it: a data: URL's path holds the whole script, ours the prelude too.
 */
export function showWorkerUrl(kit: Pick<WorkerKit, 'g' | 'getter' | 'method'>, workerUrl: string | undefined): void {
  const { g, getter, method } = kit;
  const proto = (g.WorkerLocation as { prototype?: object } | undefined)?.prototype;
  const URLs = g.URL as typeof URL | undefined;
  if (!workerUrl || !proto || !URLs) return;
  let page: URL;
  try {
    page = new URLs(workerUrl);
  } catch {
    return;
  }
  const parts: Record<string, string> = {
    href: page.href,
    origin: page.origin,
    protocol: page.protocol,
    host: page.host,
    hostname: page.hostname,
    port: page.port,
    pathname: page.pathname,
    search: page.search,
    hash: page.hash,
  };
  // The built-ins run first (their brand check: a wrong receiver throws "Illegal invocation"), their answers replaced.
  const names = ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  for (let i = 0; i < names.length; i++) {
    const value = parts[names[i]!]!;
    getter(proto, names[i]!, () => value);
  }
  method(proto, 'toString', (_self, _args, original) => {
    original();
    return parts.href;
  });
}
