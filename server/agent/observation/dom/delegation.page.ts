/**
 * In the page (see agent-dom.page.ts): the targets of click handlers a library delegates from a container, read from
 * the library's own registry where the page has one. jQuery (`$(list).on('click', '.like', fn)`, `$(document).on(…)`)
 * keeps each element's handlers in its private data, the delegated ones first (`delegateCount`) with their selectors:
 * `jQuery._data(el, 'events')`, asked only of elements `jQuery.hasData` says have data (it creates none). The elements
 * those selectors match inside their container are controls, whatever their cursor: the page answers their clicks.
 * Bounded: the elements asked, the containers read, the selectors, the targets. The registry is the page's: whatever it
 * holds only ever names elements of the page (at most MAX_TARGETS, and the snapshot's own cap on elements holds).
 */

interface JQueryHandler {
  selector?: string;
}
interface JQueryLike {
  hasData?: (el: unknown) => boolean;
  _data?: (el: unknown, key: string) => Record<string, (JQueryHandler[] & { delegateCount?: number }) | undefined> | undefined;
  fn?: { jquery?: string };
}

const CLICK_TYPES = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart'];
/** Elements asked for data (a page's first ones, in document order), selectors read, targets kept. */
const MAX_ASKED = 5000;
const MAX_SELECTORS = 40;
/** Elements with jQuery data whose handlers are read (a list's rows may each have data). */
const MAX_CONTAINERS = 300;
const MAX_TARGETS = 600;

function libraryOf(win: Window): JQueryLike | null {
  const w = win as unknown as Record<string, unknown>;
  for (const name of ['jQuery', '$']) {
    const jq = w[name] as JQueryLike | undefined;
    // jQuery is a function with properties; its own version string tells it from another `$`
    if (
      jq &&
      (typeof jq === 'function' || typeof jq === 'object') &&
      typeof jq._data === 'function' &&
      typeof jq.hasData === 'function' &&
      jq.fn &&
      jq.fn.jquery
    )
      return jq;
  }
  return null;
}

/** The elements of `doc` a delegated click handler of the page's jQuery answers for (empty without jQuery). */
export function delegatedTargets(doc: Document): Set<Element> {
  const out = new Set<Element>();
  try {
    collect(doc, out);
  } catch {
    // the registry is the page's own code and data: a getter that throws leaves what was found so far
  }
  return out;
}

function collect(doc: Document, out: Set<Element>) {
  const win = doc.defaultView;
  const jq = win && libraryOf(win);
  if (!jq) return;
  const containers: (Document | Element)[] = [doc];
  const all = doc.getElementsByTagName('*');
  for (let i = 0; i < all.length && i < MAX_ASKED && containers.length < MAX_CONTAINERS; i++) {
    if (jq.hasData!(all[i])) containers.push(all[i]!);
  }
  let selectors = 0;
  for (const c of containers) {
    const events = jq._data!(c, 'events');
    if (!events || typeof events !== 'object') continue;
    for (const type of CLICK_TYPES) {
      const list = events[type];
      const n = list ? Math.min(Number(list.delegateCount) || 0, list.length) : 0;
      for (let k = 0; k < n && selectors < MAX_SELECTORS; k++) {
        const sel = list![k] && list![k]!.selector;
        if (!sel || typeof sel !== 'string') continue;
        selectors++;
        let found: NodeListOf<Element>;
        try {
          // jQuery's own extensions (:first, :eq) are no CSS: such a selector is left out
          found = c.querySelectorAll(sel);
        } catch {
          continue;
        }
        for (let j = 0; j < found.length && out.size < MAX_TARGETS; j++) out.add(found[j]!);
      }
    }
  }
}
