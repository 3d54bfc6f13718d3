import type { BuiltInErrors } from './built-in-errors.page';

/** What a realm's Function.prototype.toString of ours keeps: the functions put in place, each with the text it shows. */
export interface NativeMasks {
  masks: WeakMap<object, string>;
  /** This realm's own Function.prototype.toString. */
  nativeToString: (this: unknown) => string;
  /** Whether the device is in place in this realm (device.page.ts: once per realm). */
  device?: boolean;
  /** The realm's own console.debug, kept by the device before it quiets the console (device-console.page.ts). */
  consoleDebug?: (...data: unknown[]) => void;
  /** What the same-origin realms of a page share besides the masks (one object for all of them). */
  shared: Record<string, unknown>;
}

/**
 * Function.prototype.toString, in realm `g`, answering for the functions page code of ours puts in place (the device's,
 * the WebAuthn gate's) as for the built-ins they replace: `function platform() { [native code] }`.
 *
 * One map for every same-origin realm of a page: its frames, the windows it opens, their frames. A lie detector asks a
 * fresh iframe's toString about the top page's getter; with a map per realm, that toString would print our source.
 * Realms find each other's map through toString itself: asked with `this` the symbol `Symbol.for(key)` (`key`: a secret
 * of the server process, in the script's arguments, which no page reads), a toString of ours answers with its realm's
 * masks; the built-in throws on a symbol, as on any. A realm that has one of ours already (the other script's, or this
 * prelude run again by the next module of a module worker) keeps it: no toString wrapped twice.
 *
 * Self-contained (nothing from outside its body but its arguments): the device's worker prelude carries its source text.
 */
export function nativeMasks(g: typeof globalThis, key: string, rethrow: BuiltInErrors['rethrow']): NativeMasks {
  const secret = Symbol.for(key);
  const ask = (realm: unknown): NativeMasks | null => {
    try {
      const found = (realm as typeof globalThis).Function.prototype.toString.call(secret as unknown as () => void) as unknown;
      return typeof found === 'object' && found !== null ? (found as NativeMasks) : null;
    } catch {
      return null; // the built-in's, or a realm of another origin
    }
  };
  const own = ask(g);
  if (own) return own;
  let related: NativeMasks | null = null;
  for (const name of ['parent', 'opener', 'top'] as const) {
    let realm: unknown;
    try {
      realm = (g as unknown as Record<string, unknown>)[name];
    } catch {
      continue;
    }
    if (realm && realm !== g) related = ask(realm);
    if (related) break;
  }
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const proto = g.Function.prototype;
  const nativeToString = proto.toString as (this: unknown) => string;
  const masks = related ? related.masks : new WeakMap<object, string>();
  const mine: NativeMasks = { masks, nativeToString, shared: related ? related.shared : { __proto__: null } };
  // The realm's own built-ins, taken before any page script of it ran: a page that replaces Function.prototype.call or
  // WeakMap.prototype.get sees no call of a toString of ours go through them, as the built-in toString makes none.
  const apply = g.Reflect.apply;
  const has = g.WeakMap.prototype.has;
  const get = g.WeakMap.prototype.get;
  const toStringShim = {
    toString(this: unknown) {
      if (this === secret) return mine as unknown as string;
      if (typeof this === 'function' && apply(has, masks, [this])) return apply(get, masks, [this]) as string;
      try {
        return apply(nativeToString, this, []) as string;
      } catch (error) {
        return rethrow(error, toStringShim, true); // V8's toString shows its own frame: kept
      }
    },
  }.toString;
  masks.set(toStringShim, nativeToString.call(nativeToString));
  define(proto, 'toString', { ...describe(proto, 'toString'), value: toStringShim });
  return mine;
}
