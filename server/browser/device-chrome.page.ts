import type { WorkerKit } from './device-workers.page';

/** What applyDevice (device.page.ts) lends window.chrome: its window, the toString masks and the built-ins' errors. */
export type ChromeKit = Pick<WorkerKit, 'g' | 'masks' | 'rethrow'>;

/**
 * window.chrome as a desktop Chrome page has it (the headless shell has none), shaped as Chrome makes it:
 * - loadTimes and csi first: a V8 extension defines them, as anonymous functions, when the context is made;
 * - then app, from the extension bindings: isInstalled, its two enums and four methods, which throw Chrome's
 *   "Error in invocation" when given what they do not take.
 * Their answers come from the document's own navigation timing, so chrome.loadTimes() and performance agree.
 *
 * Self-contained (nothing from outside its body but its argument), as every module of the device's page code.
 */
export function windowChrome(kit: ChromeKit): void {
  const { g, masks, rethrow } = kit;
  if ('chrome' in g) return;
  const perf = g.performance;
  const origin = perf.timeOrigin;
  // The realm's own built-ins, taken before any of its page scripts ran: Chrome's own loadTimes calls no script, so no
  // call of ours may go through a built-in the page replaced since (device-workers.page.ts, Original).
  const apply = g.Reflect.apply;
  const round = g.Math.round;
  const entriesByType = g.Performance.prototype.getEntriesByType;
  const now = g.Performance.prototype.now;
  const entries = (type: string) => apply(entriesByType, perf, [type]) as PerformanceEntry[];
  const navigation = () => entries('navigation')[0] as PerformanceNavigationTiming | undefined;
  // Whole milliseconds since the epoch, as Chrome reports them; 0 for what has not happened yet.
  const at = (ms: number | undefined) => (ms && ms > 0 ? round(origin + ms) : 0);
  const firstPaint = () => {
    const paints = entries('paint');
    for (let i = 0; i < paints.length; i++) if (paints[i]!.name === 'first-paint') return paints[i]!.startTime;
    return undefined;
  };
  const anonymous = 'function () { [native code] }';

  const loadTimes = [
    function () {
      const n = navigation();
      const protocol = n?.nextHopProtocol || 'http/1.1';
      const negotiated = protocol === 'h2' || protocol === 'h3';
      const started = round(origin) / 1000; // the navigation's start, in seconds
      return {
        requestTime: started,
        startLoadTime: started,
        commitLoadTime: at(n?.responseStart) / 1000,
        finishDocumentLoadTime: at(n?.domContentLoadedEventEnd) / 1000,
        finishLoadTime: at(n?.loadEventEnd) / 1000,
        firstPaintTime: at(firstPaint()) / 1000,
        firstPaintAfterLoadTime: 0,
        navigationType: n?.type === 'reload' ? 'Reload' : n?.type === 'back_forward' ? 'BackForward' : 'Other',
        wasFetchedViaSpdy: negotiated,
        wasNpnNegotiated: negotiated,
        npnNegotiatedProtocol: negotiated ? protocol : 'unknown',
        wasAlternateProtocolAvailable: false,
        connectionInfo: protocol,
      };
    },
  ][0]!;
  const csi = [
    function () {
      const n = navigation();
      return {
        startE: round(origin),
        onloadT: at(n?.domContentLoadedEventEnd),
        pageT: apply(now, perf, []) as number,
        tran: n?.type === 'reload' ? 16 : n?.type === 'back_forward' ? 6 : 15,
      };
    },
  ][0]!;
  masks.set(loadTimes, anonymous);
  masks.set(csi, anonymous);

  // chrome.app's methods take nothing but installState's callback; anything else is Chrome's invocation error.
  const setTimer = g.setTimeout;
  const invocation = (name: string, signature: string, ours: unknown) =>
    rethrow(new g.TypeError(`Error in invocation of app.${name}(${signature})`), ours);
  const app = {
    get isInstalled() {
      return false;
    },
    InstallState: { DISABLED: 'disabled', INSTALLED: 'installed', NOT_INSTALLED: 'not_installed' },
    RunningState: { CANNOT_RUN: 'cannot_run', READY_TO_RUN: 'ready_to_run', RUNNING: 'running' },
    getDetails(...args: unknown[]): null {
      if (args.length) invocation('getDetails', '', app.getDetails);
      return null;
    },
    getIsInstalled(...args: unknown[]): boolean {
      if (args.length) invocation('getIsInstalled', '', app.getIsInstalled);
      return false;
    },
    installState(...args: unknown[]): void {
      const callback = args[0];
      if (args.length !== 1 || typeof callback !== 'function') invocation('installState', 'function callback', app.installState);
      setTimer(() => (callback as (state: string) => void)('not_installed'), 0);
    },
    runningState(...args: unknown[]): string {
      if (args.length) invocation('runningState', '', app.runningState);
      return 'cannot_run';
    },
  };
  masks.set(Object.getOwnPropertyDescriptor(app, 'isInstalled')!.get!, 'function get isInstalled() { [native code] }');
  for (const name of ['getDetails', 'getIsInstalled', 'installState', 'runningState'] as const)
    masks.set(app[name], `function ${name}() { [native code] }`);
  const chrome = { loadTimes, csi, app };
  // A window the page opened empty gets this from its opener's script: what it holds inherits from its own realm's
  // Object and Function, as the objects its own window.chrome would (`chrome instanceof Object` there, too).
  const functions = [loadTimes, csi, app.getDetails, app.getIsInstalled, app.installState, app.runningState];
  functions.push(Object.getOwnPropertyDescriptor(app, 'isInstalled')!.get!);
  for (const f of functions) Object.setPrototypeOf(f, g.Function.prototype);
  for (const o of [chrome, app, app.InstallState, app.RunningState]) Object.setPrototypeOf(o, g.Object.prototype);
  Object.defineProperty(g, 'chrome', { value: chrome, writable: true, enumerable: true, configurable: false });
}
