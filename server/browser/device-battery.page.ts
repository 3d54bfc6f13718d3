import type { WorkerKit } from './device-workers.page';

/** What applyDevice (device.page.ts) lends the battery: its realm, its wrappers, and what its same-origin realms share. */
export interface BatteryKit extends Pick<WorkerKit, 'g' | 'method' | 'masks' | 'native' | 'rethrow'> {
  /** device.page.ts's getter wrapper; `ours` names the receivers its brand check is skipped for. */
  getter: (
    proto: object | undefined,
    name: string,
    read: (self: unknown, original: () => unknown) => unknown,
    ours: (self: unknown) => boolean,
  ) => void;
  /** One object for every same-origin realm of the page (native-masks.page.ts): the battery objects of ours live here. */
  shared: Record<string, unknown>;
}

/**
 * navigator.getBattery() of a desktop with no battery, as Chrome answers there (charging, full, 0 s to charge, never
 * discharging), in every document of the page's origin. Headless Chromium with no power service on the machine (no
 * D-Bus, as in a container) answers only the first page of the browser that asks: every other page's promise never
 * settles, so a site's script that waits on it hangs, and whether it does depends on what else the shared browser has
 * open (another run, another tenant). The answer is the promise the browser would give: the same one at every call of
 * a document, settled by the browser, with a BatteryManager (an EventTarget made for that interface: its prototype and
 * its name in stacks; its getters and event handlers answer it, from any same-origin realm, as the browser's do).
 * A frame of another origin keeps the browser's own: whether it may ask at all is the browser's to say. (What stays
 * the EventTarget's: a message that names the type, structuredClone's.)
 *
 * Window only (workers have no getBattery): device.page.ts calls it after a worker's prelude has returned.
 */
export function desktopBattery(kit: BatteryKit): void {
  const { g, method, getter, masks, native, rethrow, shared } = kit;
  const apply = g.Reflect.apply; // the realm's own, taken before any of its page scripts ran (device-workers.page.ts)
  const describe = Object.getOwnPropertyDescriptor;
  const define = Object.defineProperty;
  const battery = (g.BatteryManager as { prototype?: object } | undefined)?.prototype;
  const navigatorProto = (g.Navigator as { prototype?: object } | undefined)?.prototype;
  const navigator = g.navigator as object | undefined;
  const scheduler = g.scheduler as object | undefined;
  const postTask = (g.Scheduler as { prototype?: { postTask?: unknown } } | undefined)?.prototype?.postTask;
  if (!battery || !navigatorProto || !navigator || !scheduler || typeof postTask !== 'function') return;
  // The document's origin (an about:blank frame has its parent's; its location's is "null"), and its ancestors'.
  const ancestors = g.location.ancestorOrigins;
  for (let i = 0; ancestors && i < ancestors.length; i++) if (ancestors[i] !== g.origin) return;
  const EventTargetOf = g.EventTarget;
  const construct = g.Reflect.construct;
  const BatteryManagerOf = g.BatteryManager as unknown as new () => object;
  const weakSetAdd = g.WeakSet.prototype.add;
  const weakSetHas = g.WeakSet.prototype.has;
  const weakMapGet = g.WeakMap.prototype.get;
  const weakMapSet = g.WeakMap.prototype.set;
  const listen = g.EventTarget.prototype.addEventListener;
  const unlisten = g.EventTarget.prototype.removeEventListener;
  // Ours, seen from every same-origin realm: a frame's getter asked about the top page's battery answers it too.
  const ours = (shared.batteries ??= new g.WeakSet<object>()) as WeakSet<object>;
  const handlers = (shared.batteryHandlers ??= new g.WeakMap<object, Record<string, unknown>>()) as WeakMap<
    object,
    Record<string, unknown>
  >;
  const isOurs = (self: unknown) => apply(weakSetHas, ours, [self]) as boolean;

  const values: Record<string, unknown> = {
    __proto__: null,
    charging: true,
    chargingTime: 0,
    dischargingTime: Infinity,
    level: 1,
  } as never;
  // From any same-origin realm: its getter asked about another realm's battery of ours answers it, as the browser's does.
  for (const name of ['charging', 'chargingTime', 'dischargingTime', 'level'])
    getter(battery, name, (self, original) => (isOurs(self) ? values[name] : original()), isOurs);

  // Its event handlers, as the browser keeps them: a function set is a listener of its event (called when the page
  // dispatches one: a desktop's battery never changes), an object is kept, anything else is null.
  for (const name of ['onchargingchange', 'onchargingtimechange', 'ondischargingtimechange', 'onlevelchange']) {
    const before = describe(battery, name);
    if (!before?.get || !before.set) continue;
    const type = name.slice(2);
    const originalGet = before.get;
    const originalSet = before.set;
    const held = (self: object) => {
      let all = apply(weakMapGet, handlers, [self]) as Record<string, unknown> | undefined;
      if (!all) apply(weakMapSet, handlers, [self, (all = { __proto__: null } as never)]);
      return all!;
    };
    const accessors = describe(
      {
        get [name](): unknown {
          try {
            if (!isOurs(this)) return apply(originalGet, this, []);
            const value = held(this as object)[name];
            return value === undefined ? null : value;
          } catch (error) {
            return rethrow(error, accessors.get);
          }
        },
        set [name](value: unknown) {
          try {
            if (!isOurs(this)) {
              apply(originalSet, this, [value]);
              return;
            }
            const all = held(this as object);
            const previous = all[name];
            if (typeof previous === 'function') apply(unlisten, this, [type, previous]);
            all[name] = typeof value === 'function' || (typeof value === 'object' && value !== null) ? value : null;
            if (typeof value === 'function') apply(listen, this, [type, value]);
          } catch (error) {
            rethrow(error, accessors.set);
          }
        },
      },
      name,
    )!;
    masks.set(accessors.get!, native(`get ${name}`));
    masks.set(accessors.set!, native(`set ${name}`));
    define(battery, name, { ...before, get: accessors.get, set: accessors.set });
  }

  let answer: Promise<unknown> | undefined;
  method(navigatorProto, 'getBattery', (self, args, original) => {
    if (self !== navigator) return original(args); // a wrong receiver: the browser's own rejection
    if (answer) return answer; // the same promise at every call, as the browser's
    // An EventTarget made for BatteryManager (new.target): of its prototype, and named BatteryManager in stacks.
    const manager = apply(construct, g.Reflect, [EventTargetOf, [], BatteryManagerOf]) as object;
    apply(weakSetAdd, ours, [manager]);
    // The promise of a task posted to the browser's scheduler, which the browser settles once our callback returned, as
    // its battery service's answer is settled: a `then` a page put on a prototype is looked up there, with no frame of
    // ours and no await of the page's under it.
    answer = apply(postTask, scheduler, [() => manager]) as Promise<unknown>;
    return answer;
  });
}
