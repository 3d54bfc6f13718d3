import type { WorkerKit } from './device-workers.page';

/** What applyDevice (device.page.ts) lends the battery: its realm, its wrappers and the set its stand-ins are kept in. */
export interface BatteryKit extends Pick<WorkerKit, 'g' | 'method' | 'masks' | 'native' | 'rethrow'> {
  getter: (proto: object | undefined, name: string, read: (self: unknown, original: () => unknown) => unknown) => void;
  standIns: WeakSet<object>;
}

/**
 * navigator.getBattery() of a desktop with no battery, as Chrome answers there (charging, full, 0 s to charge, never
 * discharging), in the top-level document of every page. Headless Chromium with no power service on the machine (no
 * D-Bus, as in a container) answers only the first page of the browser that asks: every other page's promise never
 * settles, so a site's script that waits on it hangs, and whether it does depends on what else the shared browser has
 * open (another run, another tenant). The answer is the promise the browser would give: the same one at every call of
 * a document, resolved with a BatteryManager (an EventTarget of its prototype, kept among the device's stand-ins, so its
 * getters answer it instead of failing their brand check). Frames and wrong receivers get the browser's own.
 *
 * Window only (workers have no getBattery): device.page.ts calls it after a worker's prelude has returned.
 */
export function desktopBattery(kit: BatteryKit): void {
  const { g, method, getter, masks, native, rethrow, standIns } = kit;
  const apply = g.Reflect.apply; // the realm's own, taken before any of its page scripts ran (device-workers.page.ts)
  const describe = Object.getOwnPropertyDescriptor;
  const define = Object.defineProperty;
  const battery = (g.BatteryManager as { prototype?: object } | undefined)?.prototype;
  const navigatorProto = (g.Navigator as { prototype?: object } | undefined)?.prototype;
  const navigator = g.navigator as object | undefined;
  // A frame's document keeps the browser's: whether a frame may ask at all is the browser's to say.
  if (!battery || !navigatorProto || !navigator || g.self !== g.top) return;
  const EventTargetOf = g.EventTarget;
  const weakSetAdd = g.WeakSet.prototype.add;
  const weakSetHas = g.WeakSet.prototype.has;
  const construct = g.Reflect.construct;
  const BatteryManagerOf = g.BatteryManager as unknown as new () => object;
  // The answer is the promise of a task posted to the browser's scheduler, which the browser settles itself once our
  // callback has returned, as its battery service's answer is settled: a `then` a page put on a prototype is looked up
  // there, with no frame of ours and no await of the page's under it.
  const scheduler = g.scheduler as object | undefined;
  const postTask = (g.Scheduler as { prototype?: { postTask?: unknown } } | undefined)?.prototype?.postTask;
  if (!scheduler || typeof postTask !== 'function') return;
  const ours = new g.WeakSet<object>();
  const isOurs = (self: unknown) => apply(weakSetHas, ours, [self]) as boolean;

  const values: Record<string, unknown> = {
    __proto__: null,
    charging: true,
    chargingTime: 0,
    dischargingTime: Infinity,
    level: 1,
  } as never;
  for (const name of ['charging', 'chargingTime', 'dischargingTime', 'level'])
    getter(battery, name, (self, original) => (isOurs(self) ? values[name] : original()));

  // Its event handlers: a desktop's battery never changes, so they are only kept (a non-function is null, as WebIDL's).
  const handlers = new g.WeakMap<object, Record<string, unknown>>();
  const weakMapGet = g.WeakMap.prototype.get;
  const weakMapSet = g.WeakMap.prototype.set;
  for (const name of ['onchargingchange', 'onchargingtimechange', 'ondischargingtimechange', 'onlevelchange']) {
    const before = describe(battery, name);
    if (!before?.get || !before.set) continue;
    const originalGet = before.get;
    const originalSet = before.set;
    const accessors = describe(
      {
        get [name](): unknown {
          try {
            if (!isOurs(this)) return apply(originalGet, this, []);
            const held = apply(weakMapGet, handlers, [this]) as Record<string, unknown> | undefined;
            return held && held[name] !== undefined ? held[name] : null;
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
            let held = apply(weakMapGet, handlers, [this]) as Record<string, unknown> | undefined;
            if (!held) apply(weakMapSet, handlers, [this, (held = { __proto__: null } as never)]);
            held![name] = typeof value === 'function' || (typeof value === 'object' && value !== null) ? value : null;
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
    apply(weakSetAdd, standIns, [manager]); // its getters skip the brand check that an EventTarget of ours would fail
    answer = apply(postTask, scheduler, [() => manager]) as Promise<unknown>;
    return answer;
  });
}
