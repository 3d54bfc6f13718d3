/**
 * In the page: waitForQuiet's half (page-quiet.ts). Resolves true once the DOM has not changed for `quietMs`
 * (`leadMs` while it has not changed at all), false after `maxMs`: one bounded promise, nothing left behind.
 */
export interface QuietArgs {
  quietMs: number;
  leadMs: number;
  maxMs: number;
}

export default function domQuiet(a: QuietArgs): Promise<boolean> {
  return new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    let changed = false;
    const mo = new MutationObserver(() => {
      last = performance.now();
      changed = true;
    });
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    function tick() {
      const now = performance.now();
      const need = changed ? a.quietMs : a.leadMs;
      if (now - last >= need || now - start >= a.maxMs) {
        mo.disconnect();
        resolve(now - last >= need);
        return;
      }
      // Looked at every quietMs at least, so a change late in a lead is settled quietMs after it, not at the lead's end.
      setTimeout(tick, Math.max(5, Math.min(a.quietMs, need - (now - last))));
    }
    setTimeout(tick, Math.min(a.quietMs, a.leadMs));
  });
}
