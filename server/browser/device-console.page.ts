import type { NativeMasks } from '../page-code/native-masks.page';
import type { WorkerKit } from './device-workers.page';

/** What applyDevice (device.page.ts) lends the console: its realm, its method wrapper and the realm's masks. */
export interface ConsoleKit extends Pick<WorkerKit, 'g' | 'method'> {
  realmMasks: NativeMasks;
}

/**
 * A console only DevTools would read, as in a person's browser with DevTools closed. Playwright keeps the Runtime
 * domain of every page and worker enabled, so whatever a page logs is described for it at once: an Error's stack is
 * formatted (the page's own Error.prepareStackTrace runs), an element's id is read. A site logs such an object and
 * learns that a debugger listens: fpscanner's hasCDP, the "Runtime.enable" checks of commercial detectors.
 * - The methods that only carry data do nothing here.
 * - timeLog keeps its label (the browser converts it, so a label's toString still runs) and drops its data.
 * - count, time, timeEnd, group's end and the rest stay the browser's: they convert a label and log a string.
 * The passkey hold (connect/live/passkey-consent.ts) speaks through console.debug, so the realm's original is kept in
 * its masks, which only scripts of ours can ask for (native-masks.page.ts).
 *
 * Self-contained (nothing from outside its body but its argument): device.page.ts puts its source text into the
 * prelude it makes for workers.
 */
export function quietConsole(kit: ConsoleKit): void {
  const { g, method, realmMasks } = kit;
  const own = g.console as (Console & Record<string, unknown>) | undefined;
  if (!own) return;
  if (typeof own.debug === 'function') realmMasks.consoleDebug = own.debug;
  // The methods that only carry data to DevTools: nothing of theirs reaches the page.
  for (const name of ['debug', 'error', 'info', 'log', 'warn', 'dir', 'dirxml', 'table', 'trace', 'group', 'groupCollapsed', 'assert'])
    method(own, name, () => undefined);
  method(own, 'timeLog', (_self, args, original) => original(args.length ? [args[0]] : []));
}
