import {
  ask,
  clipTo,
  defer,
  type Deferred,
  flush,
  newWalk,
  put,
  putDeferred,
  putFrame,
  putNamed,
  putShape,
  putToggle,
  reset,
  result,
  startSection,
  type Walk,
} from './collect.page';
import {
  boxName,
  clickableWrapper,
  hasControl,
  holdsControls,
  isFocusHost,
  isToggle,
  operable,
  scrollState,
  visibleLabel,
} from './controls.page';
import { DELEGATED, NONE, OWN, type Signal } from './listeners.page';
import { pseudoReads, pseudoText } from './pseudo.page';
import {
  accName,
  CONTAINER,
  contentText,
  HEADER_SCOPES,
  headingLevel,
  isInteractive,
  isModal,
  roleOf,
  scopeLabel,
  scopeOf,
  SCOPES,
  svgName,
  textOf,
  topModal,
} from './roles.page';
import type { RawDoc, SnapshotArgs } from './snapshot-types.page';
import { record } from './states.page';
import { hasSubList, plainRole } from './structure.page';
import { svgControls } from './svg.page';
import { isDetails, isElement, isFrameElement, isLabel, isSvg, isText, kidsOf, norm, type Refs, shown, SKIP, styleOf } from './tree.page';

export type { RawDoc, RawFrameLine, RawLine, RawSection, SnapshotArgs } from './snapshot-types.page';

/**
 * In the page (see agent-dom.page.ts): the indexed snapshot of one document, walked in the flat tree (open shadow
 * roots in place, slotted content once).
 *
 * What it decides (the node side, snapshot.ts, splices frames and chooses the text; what it collects: collect.page.ts):
 *   - controls: role, name, value, states; an element made clickable only by a listener counts when a signal
 *     says so: an on* attribute, a React/Vue handler prop, or — where the DevTools command-line API is there
 *     (snapshot.ts evaluates through CDP with includeCommandLineAPI) — getEventListeners(el) for the elements a
 *     person could take for clickable: one with a pointer cursor that no clickable ancestor explains, and small
 *     on-screen leaves; or a listener of an ancestor for an element with a pointer cursor of its own (delegation,
 *     listeners.page.ts), or whatever a library's registry of delegated selectors matches (jQuery, delegation.page.ts);
 *     an SVG's shapes with listeners (svg.page.ts). A container known only by such a listener is listed only when nothing inside it is;
 *     controls inside a listed one are listed after it (a row's star icon or links, a tree item's expander arrow).
 *     The number of queries is capped; a nameless control is named by the best hint there is (hints.page.ts);
 *   - layout where markup is silent (structure.page.ts): a tree's folders expanded/collapsed, the items of a
 *     script's suggestion list under a field as options, a table cell as a gridcell; ::before/::after text in place
 *     (pseudo.page.ts);
 *   - a checkbox/radio whose native input a click cannot reach (display:none, zero size, clipped, covered) is
 *     listed once, on its visible label (or the clickable wrapper), with hiddenInput set;
 *   - iframes: a {k:'f'} line at their place, the element kept in refs.frame for the node side to read it;
 *   - text lines carry v (on screen) and c (their section: a labelled region, a scrollable box, a frame body).
 */

function visit(w: Walk, el: Element, scope: string | null, explained: boolean, quiet: boolean): void {
  const tag = el.tagName;
  if (el.getAttribute('aria-hidden') === 'true' || (el as HTMLElement).inert) return;
  if (isFrameElement(el)) {
    const fs = styleOf(el);
    if (fs && fs.display !== 'none' && fs.visibility === 'visible') putFrame(w, el, scope);
    return;
  }
  if (isSvg(el)) {
    // an icon is text only as part of a control's name; an svg that is itself a control is listed, else its shapes with listeners
    const r = el.getAttribute('role');
    if (el.localName === 'svg' && (r === 'button' || r === 'link' || w.probe.own(el)))
      put(w, el, record(el, r || 'button', scope, svgName(el)));
    else if (el.localName === 'svg') for (const c of svgControls(el, w.probe)) putShape(w, c, scope);
    return;
  }
  if (SKIP[tag]) return;
  if (tag === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return;
  const st = styleOf(el);
  if (!st || st.display === 'none') return;
  const visibleSelf = st.visibility === 'visible';
  let role = roleOf(el);
  let q = quiet;
  let carried = false;
  if ((tag === 'DIALOG' || role === 'dialog' || role === 'alertdialog') && !w.shadowModal && el.getRootNode() !== document && isModal(el))
    w.shadowModal = el;
  if (visibleSelf && isLabel(el) && el.control) {
    const ctl = el.control;
    if (w.handled.has(ctl)) {
      q = true;
      carried = true;
    } else if (isToggle(ctl) && !operable(ctl)) {
      putToggle(w, ctl, el, scope);
      q = true;
      carried = true;
    } else if (shown(ctl)) {
      const lt = norm(textOf(el, 0));
      q = !lt || accName(ctl, roleOf(ctl)).indexOf(lt) >= 0;
    }
  } else if (visibleSelf && isToggle(el)) {
    if (w.handled.has(el)) return;
    if (!operable(el)) {
      if (visibleLabel(el)) return; // its label carries it, before or after this point
      putToggle(w, el, clickableWrapper(el) || el, scope);
      return;
    }
  }
  const label = scopeLabel(el, role);
  const inner = label || scope;
  let newSec = 0;
  let scroll: ReturnType<typeof scrollState> = null;
  let signal: Signal = NONE;
  /** The content is the control's name: walked without its text, for the controls inside it (a row's star icon). */
  let nameOnly = false;
  /** Clickable only by delegation and holding elements: listed after its content, unless a control is found in it. */
  let deferred: Deferred | null = null;
  if (visibleSelf && isInteractive(el, role) && !isFocusHost(el, role)) {
    // clickable by onclick or focusable by tabindex, without a role: a person sees a button (or a link, a cell …)
    if (!role) role = plainRole(el);
    const name = accName(el, role);
    const idx = tag === 'A' && el.getAttribute('tabindex') === '-1' && !name ? 0 : putNamed(w, el, role, scope, name, true) || 0;
    if (!CONTAINER[role]) {
      // a tree item's sub-items and the controls a control holds are listed after it; the rest is its name
      if (!idx || !(hasSubList(el) || holdsControls(el))) return;
      nameOnly = true;
    } else if (label) newSec = startSection(w, el, role, accName(el, role), idx);
  } else {
    signal =
      // a label tied to its control is not a control of its own (a click on it is a click on the control)
      visibleSelf && !carried && tag !== 'BODY' && !(isLabel(el) && el.control) && !(role && (role in SCOPES || role === 'heading'))
        ? ask(w, el, st, explained)
        : NONE;
    if (signal) {
      const tog = el.querySelector('input[type=checkbox],input[type=radio]');
      if (tog && !w.handled.has(tog) && !operable(tog)) {
        putToggle(w, tog, el, scope);
        return;
      }
      if (!hasControl(el) && String(el.textContent || '').length <= 600) {
        const sub = hasSubList(el);
        // a listener of a container that no pointer marks (delegation) is the container's only when nothing in it is a control
        if ((signal === DELEGATED || st.cursor !== 'pointer') && el.childElementCount > 0 && !sub) {
          deferred = defer(w);
        } else if (putNamed(w, el, plainRole(el), scope, sub ? norm(contentText(el, true)) : accName(el, 'button'), false)) {
          if (!el.childElementCount) return;
          nameOnly = true;
        }
      }
    }
    if (visibleSelf) scroll = scrollState(el, st);
    if (scroll) {
      const bn = boxName(el, role);
      const sinfo = record(el, role || 'region', scope, bn);
      sinfo.states.scroll = scroll;
      newSec = startSection(w, el, role, bn, put(w, el, sinfo));
    } else if (label && visibleSelf) {
      if (role && HEADER_SCOPES[role]) {
        flush(w);
        w.lines.push({ k: 's', s: label });
      }
      newSec = startSection(w, el, role, accName(el, role), 0);
    }
  }
  const block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
  const h = headingLevel(el, role);
  if (block || h || tag === 'BR') flush(w);
  const prevHeading = w.heading;
  const prevSec = w.inSec;
  const prevClip = w.clipR;
  if (h) w.heading = h;
  if (newSec) w.inSec = newSec;
  if (scroll) clipTo(w, el);
  if (block) w.owners.push(el);
  // below a pointer that a listener explains (a card holding its own controls), the inherited pointer says nothing
  const pointer = st.cursor === 'pointer' && (explained || signal === OWN || nameOnly);
  if (nameOnly) q = true;
  const kids = kidsOf(el);
  // a control that opens and closes something: its expander icon is looked for inside it
  const opens = nameOnly && el.hasAttribute('aria-expanded');
  // a closed <details> shows only its summary
  const closed = isDetails(el) && !el.open;
  const said = visibleSelf && !q;
  if (said) w.cur.push(pseudoText(el, '::before'));
  for (let i = 0; i < kids.length; i++) {
    const n = kids[i]!;
    if (closed && (n as Element).tagName !== 'SUMMARY') continue;
    if (isText(n)) {
      if (said) w.cur.push(n.data);
    } else if (isElement(n)) {
      if (opens) w.opener++;
      visit(w, n, inner, pointer, q);
      if (opens) w.opener--;
    }
  }
  if (said) w.cur.push(pseudoText(el, '::after'));
  if (deferred) putDeferred(w, el, scope, deferred);
  if (block || h) flush(w);
  if (block) w.owners.pop();
  w.heading = prevHeading;
  w.inSec = prevSec;
  w.clipR = prevClip;
}
function walkFrom(w: Walk, root: Element, scope: string | null) {
  if (root === document.body) {
    if (w.a.frameDoc) w.inSec = startSection(w, root, 'document', w.a.frameTitle || document.title || '', 0);
    const kids = kidsOf(root);
    for (let i = 0; i < kids.length; i++) {
      const n = kids[i]!;
      if (isElement(n)) visit(w, n, scope, false, false);
      else if (isText(n)) w.cur.push(n.data);
    }
  } else visit(w, root, scope, false, false);
  flush(w);
}

/** The snapshot of this document; what it lists is kept in `refs` (by index, section and frame number). */
export function snapshot(a: SnapshotArgs, refs: Refs): RawDoc {
  const w = newWalk(a, refs);
  let modal = topModal();
  if (modal) walkFrom(w, modal, scopeOf(modal) || a.baseScope || null);
  else if (document.body) {
    walkFrom(w, document.body, a.baseScope || null);
    if (w.shadowModal) {
      modal = w.shadowModal;
      reset(w);
      walkFrom(w, modal, a.baseScope || null);
    }
  }
  return result(w, !!modal, pseudoReads());
}
