import { frameworkHandler } from './controls.page';
import { styleOf, upOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): whether a plain element is clickable by a listener — its own (an on*
 * attribute or property, a React/Vue handler prop, or what the DevTools `getEventListeners(el)` reports where the
 * snapshot is evaluated with the command-line API) or one an ancestor holds for it (delegation: jQuery's
 * `$(list).on('click', '.trash', …)`, a framework's root listener). Delegation is only believed for an element
 * that sets a pointer cursor of its own (its parent's is not a pointer): the page tells a person "click here" and a
 * listener above it answers the click. Where a library keeps a registry of its delegated selectors (jQuery), the
 * elements they match are believed whatever their cursor (delegation.page.ts). The number of listener queries is capped.
 */

/** The DevTools command-line API, there only when the snapshot is evaluated with it (see documents.ts). */
declare const getEventListeners: ((el: EventTarget) => Record<string, unknown[] | undefined>) | undefined;

const CLICK_EVENTS = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];
const MAX_LISTENER_CHECKS = 400;
const MAX_LEAF_CHECKS = 150;
const MAX_ANCESTOR_CHECKS = 200;
/** SVG roots and shapes asked (svg.page.ts). */
const MAX_SHAPE_CHECKS = 150;

/** No signal; a listener (or handler) of its own; a listener of an ancestor, for an element with a pointer of its own. */
export const NONE = 0;
export const OWN = 1;
export const DELEGATED = 2;
export type Signal = typeof NONE | typeof OWN | typeof DELEGATED;

type HandlerProps = Partial<Record<'onclick' | 'onmousedown' | 'onpointerdown' | 'onmouseup', unknown>>;

export interface ListenerProbe {
  /** explained: the pointer cursor this element inherits comes from an ancestor known to be clickable. */
  signal(el: Element, st: CSSStyleDeclaration, explained: boolean, onScreen: (el: Element) => boolean): Signal;
  /** A handler of its own, or a library's delegated one for it (an SVG shape: no cursor or size tells). */
  own(el: Element): boolean;
  checks(): number;
}

/** delegated: the elements a library's registry of delegated handlers answers for (delegation.page.ts). */
export function listenerProbe(cli: boolean, delegated: Set<Element> = new Set()): ListenerProbe {
  let checks = 0;
  let leafChecks = 0;
  let ancestorChecks = 0;
  let shapeChecks = 0;
  const known = new Map<EventTarget, boolean>();

  function listens(t: EventTarget): boolean {
    const k = known.get(t);
    if (k !== undefined) return k;
    let yes = false;
    try {
      const ls = getEventListeners!(t);
      for (const type of CLICK_EVENTS) if (ls && ls[type] && ls[type]!.length) yes = true;
    } catch {
      // a page may shadow the function
    }
    known.set(t, yes);
    return yes;
  }
  /** A listener for clicks on an ancestor, the document or the window. */
  function byAncestor(el: Element): boolean {
    for (let a = upOf(el); a; a = upOf(a)) {
      if (known.get(a) === undefined) {
        if (ancestorChecks >= MAX_ANCESTOR_CHECKS) return false;
        ancestorChecks++;
      }
      if (listens(a)) return true;
    }
    const doc = el.ownerDocument;
    return listens(doc) || (!!doc.defaultView && listens(doc.defaultView));
  }
  function ownPointer(el: Element, st: CSSStyleDeclaration): boolean {
    if (st.cursor !== 'pointer') return false;
    const p = upOf(el);
    const ps = p && styleOf(p);
    return !ps || ps.cursor !== 'pointer';
  }

  function handler(el: Element): boolean {
    if (el.hasAttribute('onclick') || el.hasAttribute('onmousedown') || el.hasAttribute('onpointerdown') || el.hasAttribute('onmouseup'))
      return true;
    const h = el as unknown as HandlerProps;
    return typeof h.onclick === 'function' || typeof h.onmousedown === 'function' || typeof h.onpointerdown === 'function';
  }

  return {
    checks: () => checks,
    own(el) {
      if (delegated.has(el) || handler(el) || frameworkHandler(el)) return true;
      // a budget of its own: a page of icons must not spend the checks the rest of the page needs
      if (!cli || shapeChecks >= MAX_SHAPE_CHECKS) return false;
      shapeChecks++;
      checks++;
      return listens(el);
    },
    signal(el, st, explained, onScreen) {
      // the page's library says it answers this element's clicks (jQuery's delegated selectors)
      if (delegated.has(el)) return OWN;
      if (el.hasAttribute('onmousedown') || el.hasAttribute('onpointerdown') || el.hasAttribute('onmouseup')) return OWN;
      const h = el as unknown as HandlerProps;
      if (typeof h.onclick === 'function' || typeof h.onmousedown === 'function' || typeof h.onpointerdown === 'function') return OWN;
      if (frameworkHandler(el)) return OWN;
      if (!cli || checks >= MAX_LISTENER_CHECKS) return NONE;
      if (st.cursor !== 'pointer' || explained) {
        if (leafChecks >= MAX_LEAF_CHECKS || el.childElementCount > 3 || !onScreen(el)) return NONE;
        leafChecks++;
      }
      checks++;
      if (listens(el)) return OWN;
      return !explained && ownPointer(el, st) && byAncestor(el) ? DELEGATED : NONE;
    },
  };
}
