/**
 * In the page: waitForReady's half (page-ready.ts). Resolves once the DOM has not changed for `quietMs` and the
 * page shows its content — the provider's declared `readyWhen` (a selector present, a text shown), or by default a
 * main landmark holding something, or (no landmark) something outside the header, footer and navigation — or after
 * `maxMs` with what was still missing. One bounded promise; the observer is disconnected either way.
 */
export interface ReadyArgs {
  quietMs: number;
  maxMs: number;
  readyWhen?: { selector?: string; text?: string };
}

export interface ReadyCheck {
  /** The DOM was quiet for quietMs and the content was there. */
  ready: boolean;
  /** The DOM was quiet for quietMs at the end (whatever the content). */
  quiet: boolean;
  /** What the page still lacked: 'content' (nothing but chrome, or a loading indicator), 'readyWhen', 'dom'. */
  missing?: 'content' | 'readyWhen' | 'dom';
}

/** Chrome around the content: a page that shows only these has not drawn its content yet. */
const CHROME = 'header, footer, nav, aside, [role="banner"], [role="contentinfo"], [role="navigation"], script, style, noscript, template';
/** Things a person can use or see besides text. */
const MEDIA_OR_CONTROL =
  'input, button, select, textarea, a[href], img, canvas, svg, video, iframe, table, [role="button"], [role="link"], [role="grid"], [role="listitem"]';
/** A lone loading message is not content. */
const LOADING_TEXT = /^\s*(loading|please wait|one moment)\b[.\u2026\s]*$/i;

function busyInside(root: Element): boolean {
  return !!(root.matches('[aria-busy="true"]') || root.querySelector('[aria-busy="true"], [role="progressbar"]'));
}

function holdsContent(root: Element): boolean {
  if (busyInside(root) && (root.textContent ?? '').trim().length < 40) return false;
  const text = (root.textContent ?? '').trim();
  if (text && !LOADING_TEXT.test(text)) return true;
  return !!root.querySelector(MEDIA_OR_CONTROL);
}

/** The default content test: a main landmark that holds something, or something outside the chrome. */
function defaultContent(): boolean {
  const main = document.querySelector('main, [role="main"]');
  if (main) return holdsContent(main);
  const body = document.body;
  if (!body) return false;
  for (const child of Array.from(body.children)) {
    if (child.matches(CHROME)) continue;
    // A wrapper (the app's root element) may hold the chrome and the content together: look one level into it.
    const inner = Array.from(child.children);
    if (inner.length && inner.some((c) => c.matches(CHROME))) {
      if (inner.some((c) => !c.matches(CHROME) && holdsContent(c))) return true;
      continue;
    }
    if (holdsContent(child)) return true;
  }
  return false;
}

function declaredContent(w: NonNullable<ReadyArgs['readyWhen']>): boolean {
  if (w.selector) {
    try {
      if (!document.querySelector(w.selector)) return false;
    } catch {
      return false; // not a selector this browser reads: never met (the budget bounds the wait)
    }
  }
  if (w.text && !(document.body?.innerText ?? '').includes(w.text)) return false;
  return true;
}

export default function pageReady(a: ReadyArgs): Promise<ReadyCheck> {
  return new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    const mo = new MutationObserver(() => {
      last = performance.now();
    });
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const content = () => (a.readyWhen && (a.readyWhen.selector || a.readyWhen.text) ? declaredContent(a.readyWhen) : defaultContent());
    function tick() {
      const now = performance.now();
      const quiet = now - last >= a.quietMs;
      // The content is looked at only once the DOM is still: a page mid-render is not ready whatever it shows.
      const shown = quiet && content();
      if (shown || now - start >= a.maxMs) {
        mo.disconnect();
        const missing = shown
          ? undefined
          : !quiet
            ? 'dom'
            : a.readyWhen && (a.readyWhen.selector || a.readyWhen.text)
              ? 'readyWhen'
              : 'content';
        resolve({ ready: shown, quiet, ...(missing ? { missing } : {}) });
        return;
      }
      // Still: the content is looked for again every half window (it may come by a timer, with no mutation first).
      setTimeout(tick, quiet ? Math.max(25, a.quietMs / 2) : Math.max(5, a.quietMs - (now - last)));
    }
    setTimeout(tick, a.quietMs);
  });
}
