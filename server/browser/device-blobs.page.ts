import type { WorkerKit } from './device-workers.page';

/**
 * What a Blob (or File) the page made holds, known at once. A Blob's own reading is asynchronous, and a worker started
 * from one must get the device's prelude within `new Worker()` (device-workers.page.ts): with the script's text known,
 * the prelude goes after its directive prologue, as the proxy puts it, instead of in front of the Blob, where a
 * classic script's "use strict" stops being a directive.
 *
 * Kept at the constructor, for a Blob made from an array of strings (references, no copy), bytes (copied, for a Blob
 * of a script's type or none: a picture's are not copied) and Blobs kept so, up to 4 MiB. The parts' sizes and bytes
 * are read by the built-ins' own getters, taken at the realm's start; the array itself is read a second time, by index
 * (the constructor read it through its iterator): a getter a page put at an index of its own array would see that. Checked when read against the Blob's own size: an `endings: "native"`
 * conversion (its options are not read here: a getter there would count two reads) makes the text unknown, not
 * wrong. Unknown means the prelude goes in front, as before.
 *
 * The constructors stay what they were to a script: same name, length, prototype, source text, and File still
 * inherits from Blob. Self-contained (nothing from outside its body but its argument): device.page.ts puts its source
 * text into the prelude it makes for workers.
 */
export function readableBlobs(kit: Pick<WorkerKit, 'g' | 'masks' | 'native' | 'rethrow'>): (blob: unknown) => string | null {
  const { g, masks, native, rethrow } = kit;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const BlobType = g.Blob as typeof Blob | undefined;
  // The realm's own, taken before any of its page scripts ran (device-workers.page.ts, Original).
  const { apply, construct: newOf } = g.Reflect;
  const unknown = () => null;
  if (typeof BlobType !== 'function' || typeof TextEncoder !== 'function' || typeof TextDecoder !== 'function') return unknown;
  const sizeOf = describe(BlobType.prototype, 'size')?.get;
  const typeOf = describe(BlobType.prototype, 'type')?.get;
  if (!sizeOf || !typeOf) return unknown;
  const limit = 4 * 1024 * 1024;
  // No type, or a WHATWG JavaScript MIME type (as worker-prelude.ts lists them), parameters aside.
  const scriptType =
    /^(?:|application\/(?:x-)?(?:ecma|java)script|text\/(?:(?:x-)?(?:ecma|java)script|javascript1\.[0-5]|jscript|livescript))\s*(?:;|$)/i;
  type Part = string | Uint8Array | Blob;
  const kept = new WeakMap<object, Part[]>();
  // What the constructor's own pass uses, taken before any page script ran: every `new Blob([...])` of a page goes
  // through it, and none of its steps may call a built-in the page replaced since (device-workers.page.ts, Original).
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const exec = RegExp.prototype.exec;
  const mapSet = WeakMap.prototype.set;
  const mapHas = WeakMap.prototype.has;
  const Bytes = g.Uint8Array;
  const typedArrayProto = Object.getPrototypeOf(Bytes.prototype) as object;
  const getterOf = (proto: object | undefined, name: string) => (proto ? describe(proto, name)?.get : undefined);
  // The parts' sizes and places read by the built-ins' own getters (their brand checks, too): a getter a page put on
  // ArrayBuffer.prototype, a typed array's prototype or DataView.prototype, or a constructor's Symbol.species or
  // Symbol.hasInstance, sees no read of ours. Copied with no slice(): slice looks the species constructor up.
  const bufferLength = getterOf(ArrayBuffer.prototype, 'byteLength');
  const typedBuffer = getterOf(typedArrayProto, 'buffer');
  const typedOffset = getterOf(typedArrayProto, 'byteOffset');
  const typedLength = getterOf(typedArrayProto, 'byteLength');
  const viewProto = (g.DataView as { prototype?: object } | undefined)?.prototype;
  const viewBuffer = getterOf(viewProto, 'buffer');
  const viewOffset = getterOf(viewProto, 'byteOffset');
  const viewLength = getterOf(viewProto, 'byteLength');
  const setBytes = (typedArrayProto as { set?: unknown }).set as (this: Uint8Array, source: ArrayLike<number>, offset: number) => void;
  /** `get` called on `value`, or undefined where it throws (`value` is not of that type). */
  const read = (get: ((this: unknown) => unknown) | undefined, value: unknown): unknown => {
    if (!get || value === null || typeof value !== 'object') return undefined;
    try {
      return apply(get, value, []);
    } catch {
      return undefined;
    }
  };
  /** A copy of the bytes of an ArrayBuffer, a typed array or a DataView, or null for anything else. */
  const bytesOf = (part: unknown): Uint8Array | null => {
    let buffer: unknown = part;
    let offset = 0;
    let length = read(bufferLength, part) as number | undefined;
    if (length === undefined) {
      buffer = read(typedBuffer, part) ?? read(viewBuffer, part);
      if (buffer === undefined) return null;
      offset = (read(typedOffset, part) ?? read(viewOffset, part)) as number;
      length = (read(typedLength, part) ?? read(viewLength, part)) as number;
    }
    if (read(bufferLength, buffer) === undefined) return null; // a SharedArrayBuffer's view: not a Blob's part
    const copy = new Bytes(length);
    apply(setBytes, copy, [new Bytes(buffer as ArrayBuffer, offset, length), 0]);
    return copy;
  };
  const put = (list: Part[], part: Part) =>
    define(list, list.length, { __proto__: null, value: part, writable: true, enumerable: true, configurable: true } as PropertyDescriptor);

  const keep = (blob: Blob, parts: unknown) => {
    if (parts === undefined) return void apply(mapSet, kept, [blob, []]);
    if (!isArray(parts)) return; // another iterable: read once by the constructor, not again here
    const bytesToo = apply(exec, scriptType, [apply(typeOf, blob, []) as string]) !== null;
    const out: Part[] = [];
    let size = 0;
    for (let i = 0; i < parts.length; i++) {
      const part: unknown = parts[i];
      if (typeof part === 'string') {
        size += part.length;
        put(out, part);
      } else if (read(sizeOf, part) !== undefined) {
        // A Blob (its own size getter answers: no instanceof, which a page's Symbol.hasInstance would see)
        if (!apply(mapHas, kept, [part])) return;
        size += read(sizeOf, part) as number;
        put(out, part as Blob);
      } else if (bytesToo && (read(bufferLength, part) !== undefined || isView(part))) {
        size += (read(bufferLength, part) ?? read(typedLength, part) ?? read(viewLength, part)) as number;
        const copy = size > limit ? null : bytesOf(part);
        if (!copy) return;
        put(out, copy);
      } else return; // anything else the constructor turned into a string its own way
      if (size > limit) return;
    }
    apply(mapSet, kept, [blob, out]);
  };

  for (const name of ['Blob', 'File']) {
    const Original = g[name] as (new (...a: unknown[]) => Blob) | undefined;
    if (typeof Original !== 'function') continue;
    const construct = (target: typeof Original, args: unknown[], newTarget: unknown): object => {
      let made: Blob;
      try {
        made = newOf(target, args, newTarget === wrapped ? target : (newTarget as typeof Original));
      } catch (error) {
        return rethrow(error, construct); // the browser's own error, as if it came from its constructor
      }
      try {
        keep(made, args[0]);
      } catch {
        // unknown: the prelude goes in front, as before
      }
      return made;
    };
    const wrapped: typeof Original = new Proxy(Original, { construct });
    masks.set(wrapped, native(name));
    define(g, name, { ...describe(g, name), value: wrapped });
    define(Original.prototype, 'constructor', { ...describe(Original.prototype, 'constructor'), value: wrapped });
    // File's constructor inherits from Blob's: from the one a script now finds under that name.
    if (name === 'File' && Object.getPrototypeOf(Original) === BlobType) Object.setPrototypeOf(Original, g.Blob as object);
  }

  // Read when a worker starts, long after the page's scripts ran: the realm's own, taken now (no WeakMap, Array,
  // TextEncoder, typed array or global a page could have replaced since sees a call of ours).
  const mapGet = WeakMap.prototype.get;
  // Not `instanceof`: it looks Symbol.hasInstance up on the constructor, where a page may have defined its own.
  const hasInstance = g.Function.prototype[g.Symbol.hasInstance] as (this: unknown, value: unknown) => boolean;
  const isBlob = (x: unknown) => apply(hasInstance, BlobType, [x]) as boolean;
  const Encoder = g.TextEncoder;
  const Decoder = g.TextDecoder;
  const encodeText = Encoder.prototype.encode;
  const decodeText = Decoder.prototype.decode;
  const lengthOf = describe(typedArrayProto, 'length')!.get!;
  const bytesLength = (bytes: Uint8Array) => apply(lengthOf, bytes, []) as number;
  const isBytes = (x: unknown) => {
    try {
      apply(lengthOf, x, []);
      return true;
    } catch {
      return false; // a string or a kept Blob
    }
  };

  const flatten = (blob: object, into: (string | Uint8Array)[], depth: number): boolean => {
    const parts = apply(mapGet, kept, [blob]) as Part[] | undefined;
    if (!parts || depth > 32) return false;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (typeof part === 'string' || isBytes(part)) put(into as Part[], part);
      else if (!flatten(part as Blob, into, depth + 1)) return false;
    }
    return true;
  };

  return (blob) => {
    if (!isBlob(blob)) return null;
    const pieces: (string | Uint8Array)[] = [];
    if (!flatten(blob as Blob, pieces, 0)) return null;
    // The bytes the Blob holds (strings as the constructor encodes them: UTF-8, an unpaired surrogate as U+FFFD).
    const encoder = new Encoder();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      const chunk = typeof p === 'string' ? (apply(encodeText, encoder, [p]) as Uint8Array) : p;
      put(chunks as unknown as Part[], chunk);
      total += bytesLength(chunk);
    }
    if (total !== apply(sizeOf, blob, [])) return null;
    const bytes = new Bytes(total);
    let at = 0;
    for (let i = 0; i < chunks.length; i++) {
      apply(setBytes, bytes, [chunks[i]!, at]);
      at += bytesLength(chunks[i]!);
    }
    // A UTF-16 byte-order mark: what a worker would make of it is not this decoder's business.
    if (total >= 2 && ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe))) return null;
    // A worker's script is UTF-8 decoded, a UTF-8 byte-order mark dropped: as TextDecoder does by default.
    return apply(decodeText, new Decoder(), [bytes]) as string;
  };
}
