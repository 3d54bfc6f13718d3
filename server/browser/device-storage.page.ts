/** What applyDevice (device.page.ts) lends the storage quota: its realm, the device's quota and its method wrapper. */
export interface StorageKit {
  g: Record<string, unknown> & typeof globalThis;
  quota: number;
  method: (
    proto: object | undefined,
    name: string,
    run: (self: unknown, args: unknown[], original: (args?: unknown[]) => unknown) => unknown,
    returnsPromise?: boolean,
  ) => void;
}

/**
 * The storage quota a normal profile's origin has on the device's disk (DeviceFacts.storageQuota), in every realm:
 * navigator.storage.estimate() and the older navigator.webkitTemporaryStorage.queryUsageAndQuota(). The contexts of a
 * shared browser are off the record, whose quota is a share of memory, less than twice the JavaScript heap's limit: the
 * test sites use to tell a private window (detectIncognito). A person's own browser is not one. The usage is the
 * browser's own; only the quota is the device's.
 *
 * Self-contained (nothing from outside its body but its argument): device.page.ts puts its source text into the
 * prelude it makes for workers.
 */
export function diskQuota(kit: StorageKit): void {
  const { g, quota, method } = kit;
  const apply = g.Reflect.apply; // the realm's own, taken before any of its page scripts ran (device-workers.page.ts)
  const define = Object.defineProperty;
  const promiseThen = g.Promise.prototype.then;
  const storage = (g.StorageManager as { prototype?: object } | undefined)?.prototype;
  const estimate = storage
    ? (Object.getOwnPropertyDescriptor(storage, 'estimate')?.value as (() => Promise<unknown>) | undefined)
    : undefined;
  if (!storage || typeof estimate !== 'function') return;
  /** The browser's estimate (a dictionary of its own: data properties), its quota the device's, in the same place. */
  const withQuota = (answer: unknown) => {
    if (typeof answer === 'object' && answer !== null)
      define(answer, 'quota', {
        __proto__: null,
        value: quota,
        writable: true,
        enumerable: true,
        configurable: true,
      } as PropertyDescriptor);
    return answer;
  };
  /** `promise` (the browser's, never handed to the page) with a species of its own: `then` reads no page's constructor. */
  const internal = (promise: unknown) => {
    if (typeof promise === 'object' && promise !== null)
      define(promise, 'constructor', { __proto__: null, value: undefined } as PropertyDescriptor);
    return promise;
  };
  method(storage, 'estimate', (_self, args, original) => apply(promiseThen, internal(original(args)), [withQuota]), true);

  // The temporary storage's callbacks (window only), called with their arguments from a microtask (a bound function: no
  // frame of ours under the page's callback, no timer id taken). The persistent storage's stay the browser's.
  // Its interface has no global: its prototype is reached through the object (reading it makes no deprecation report).
  const nav = (g.Navigator as { prototype?: object } | undefined)?.prototype;
  const managerOf = nav ? Object.getOwnPropertyDescriptor(nav, 'storage')?.get : undefined;
  const temporaryOf = nav ? Object.getOwnPropertyDescriptor(nav, 'webkitTemporaryStorage')?.get : undefined;
  const navigator = g.navigator as object | undefined;
  const queueMicrotaskOf = g.queueMicrotask;
  const bind = g.Function.prototype.bind;
  /** `callback` called as the browser calls one: `this` undefined (bound: the list's first), from no frame of ours. */
  const callLater = (callback: unknown, bound: unknown[]) => apply(queueMicrotaskOf, g, [apply(bind, callback, bound)]);
  if (!managerOf || !temporaryOf || !navigator) return;
  const temporary = apply(temporaryOf, navigator, []) as object | null;
  if (typeof temporary !== 'object' || temporary === null) return;
  method(g.Reflect.getPrototypeOf(temporary) ?? undefined, 'queryUsageAndQuota', (self, args, original) => {
    const success = args[0];
    const failure = args[1]; // indexed: destructuring would ask the page's array iterator
    const callable = typeof success === 'function' && (failure === undefined || failure === null || typeof failure === 'function');
    if (!callable || self !== temporary) return original(args); // the browser's own, errors too
    apply(promiseThen, internal(apply(estimate, apply(managerOf, navigator, []), [])), [
      (estimated: { usage?: unknown }) => callLater(success, [undefined, estimated.usage, quota]),
      (error: unknown) => (typeof failure === 'function' ? callLater(failure, [undefined, error]) : undefined),
    ]);
    return undefined;
  });
}
