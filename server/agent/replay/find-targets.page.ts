import { holdsControls } from '../observation/dom/controls.page';
import { hintOf } from '../observation/dom/hints.page';
import { accName, CONTAINER, isInteractive, roleOf, scopeOf, topModal } from '../observation/dom/roles.page';
import { statesOf, valueOf } from '../observation/dom/states.page';
import { clip, isSelect, isSvg, norm, type Refs, SKIP, styleOf } from '../observation/dom/tree.page';
import type { ObservedElement } from '../observation/types';

/**
 * In the page: the elements a replay step may act on, found without taking a whole snapshot — the elements with
 * the step's role that the snapshot would list, each with what the snapshot would say of it (name, scope,
 * states …), kept by index in `refs` as the snapshot keeps its elements (never marked on the page). It uses the snapshot's own helpers (roleOf, accName,
 * scopeOf, isInteractive … of observation/dom/) so both name an element alike, and mirrors the snapshot's walk:
 * what it skips (hidden subtrees, SKIP tags, svg, hidden inputs, an element's own visibility) and that it does
 * not list an interactive element inside another one that is not a container, unless that one holds controls of
 * its own (controls.page.ts holdsControls: a row's links, a button inside a link).
 *
 * With `name` (only when no redaction could have produced the recorded name) it lists only elements of that
 * name, which spares the walk for the many links of a page that are not the one.
 *
 * It answers `fallback` where it could see less than the snapshot: frames, shadow roots. The caller then takes
 * the full snapshot, as it does for the final word on a step that did not resolve.
 */
export interface FindArgs {
  role: string;
  /** The raw name to match (clipped as the snapshot clips it), or null for any name. */
  name: string | null;
  /** Past this many candidates: fallback. */
  max: number;
}

export type Found = { fallback: string } | { url: string; title: string; modal: boolean; elements: ObservedElement[] };

export default function findTargets(a: FindArgs, refs: Refs): Found {
  if (!document.body) return { fallback: 'no document body' };
  if (document.querySelector('iframe,frame')) return { fallback: 'the page has frames' };
  const modal = topModal();
  const root = modal || document.body;
  const all = document.body.querySelectorAll('*');
  for (let s = 0; s < all.length; s++) if (all[s]!.shadowRoot) return { fallback: 'the page has shadow roots' };
  function hiddenSubtree(e: Element): boolean {
    if (SKIP[e.tagName] || isSvg(e) || e.getAttribute('aria-hidden') === 'true' || (e as HTMLElement).inert) return true;
    const st = styleOf(e);
    return !st || st.display === 'none';
  }
  function listed(el: Element): boolean {
    if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return false;
    const st = styleOf(el);
    if (!st || st.visibility !== 'visible') return false;
    for (let e: Element | null = el; e; e = e.parentElement) {
      if (e === document.body && !modal) break;
      if (hiddenSubtree(e)) return false;
      if (e !== el) {
        const r = roleOf(e);
        const es = styleOf(e);
        // inside a control only what it holds of its own is listed (a row's links), as the snapshot does
        if (es && es.visibility === 'visible' && isInteractive(e, r) && !(r && CONTAINER[r]) && !holdsControls(e)) return false;
      }
      if (e === root) break;
    }
    return true;
  }
  refs.el.length = 0;
  const pool: ArrayLike<Element> = modal ? [modal].concat(Array.prototype.slice.call(modal.querySelectorAll('*'))) : all;
  const out: ObservedElement[] = [];
  for (let i = 0; i < pool.length; i++) {
    const el = pool[i]!;
    const role = roleOf(el);
    if ((role || el.tagName.toLowerCase()) !== a.role || !isInteractive(el, role)) continue;
    const named = accName(el, role);
    // a control the page gave no name: the snapshot's hint, and where it came from
    const hint = named ? null : hintOf(el, role);
    const full = named || (hint ? hint.name : '');
    if (a.name != null && clip(full, 150) !== a.name) continue;
    if (!listed(el) || (el.tagName === 'A' && el.getAttribute('tabindex') === '-1' && !named)) continue;
    if (out.length >= a.max) return { fallback: 'more than ' + a.max + ' candidates' };
    const index = out.length + 1;
    refs.el[index] = el;
    const info: ObservedElement = {
      index,
      role: a.role,
      name: clip(full, 150),
      tag: el.tagName.toLowerCase(),
      scope: scopeOf(el),
      states: statesOf(el),
    };
    if (hint) info.nameFrom = hint.from;
    const v = valueOf(el);
    if (v != null) info.value = clip(String(v), 300);
    if (isSelect(el))
      info.options = Array.prototype.slice.call(el.options, 0, 30).map((o: HTMLOptionElement) => clip(norm(o.label || o.text), 80));
    out.push(info);
  }
  return { url: location.href, title: document.title, modal: !!modal, elements: out };
}
