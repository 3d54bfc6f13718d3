import type { ObservedElement } from '../types';
import {
  boxName,
  clearMarks,
  clickableWrapper,
  hasControl,
  holdsControls,
  isFocusHost,
  isToggle,
  operable,
  scrollState,
  visibleLabel,
} from './controls.page';
import { delegatedTargets } from './delegation.page';
import { hintOf } from './hints.page';
import { DELEGATED, listenerProbe, NONE, OWN, type Signal } from './listeners.page';
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
import { record } from './states.page';
import { hasSubList, plainRole } from './structure.page';
import { type SvgControl, svgControls } from './svg.page';
import {
  clip,
  FRAME,
  HOST,
  IDX,
  isDetails,
  isElement,
  isFrameElement,
  isLabel,
  isSvg,
  isText,
  kidsOf,
  norm,
  SEC,
  shown,
  SKIP,
  styleOf,
} from './tree.page';

/**
 * In the page (see agent-dom.page.ts): the indexed snapshot of one document, walked in the flat tree (open shadow
 * roots in place, slotted content once).
 *
 * What it decides (the node side, snapshot.ts, splices frames and chooses the text):
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
 *   - iframes: a {k:'f'} line at their place, the element marked with FRAME for the node side to read it;
 *   - text lines carry v (on screen) and c (their section: a labelled region, a scrollable box, a frame body).
 */

export interface SnapshotArgs {
  maxElements?: number;
  /** The text the document may give, in characters; past it text lines keep only their length. */
  rawTextChars?: number;
  /** Ask getEventListeners (when the page has it). */
  listeners?: boolean;
  /** The first index to give (indexes are unique across the documents of a page). */
  startIndex?: number;
  /** The first frame number to give. */
  frameStart?: number;
  /** false: nothing counts as on screen (a frame that is off screen). */
  onScreen?: boolean;
  /** The document is a frame's: its body is a section named frameTitle (or its title). */
  frameDoc?: boolean;
  frameTitle?: string;
  /** The scope the frame stands in, for elements with none of their own inside. */
  baseScope?: string | null;
}

export interface RawSection {
  id: number;
  role: string;
  name: string;
  tag: string;
  /** The index of the element it is, when it is one (a dialog, a scrollable box). */
  idx: number;
}

export interface RawFrameLine {
  k: 'f';
  f: number;
  /** The iframe's title or aria-label. */
  t: string;
  /** The scope the iframe stands in. */
  sc: string | null;
  v: 0 | 1;
  /** Its src, resolved (what a frame that failed to load or has an opaque origin is judged by). */
  u: string;
}

/**
 * A line of one document: text (h: in a heading of that level; c: its section; v: on screen; n: the length of
 * text left out past rawTextChars), an element by index, a region label, an iframe.
 */
export type RawLine =
  | { k: 't'; s: string; h?: number; c?: number; v?: 1; n?: number }
  | { k: 'e'; i: number; h?: number }
  | { k: 's'; s: string }
  | RawFrameLine;

export interface RawDoc {
  url: string;
  title: string;
  modal: boolean;
  elements: ObservedElement[];
  lines: RawLine[];
  sections: RawSection[];
  truncated: { elements: number; text: boolean };
  /** The next index and frame number to give, in the next document. */
  next: number;
  nextFrame: number;
  /** Iframes marked in this document. */
  frames: number;
  /** Listener queries made. */
  checks: number;
  /** ::before/::after styles read (pseudo.page.ts reads only those a rule can give text). */
  pseudo: number;
}

/** The DevTools command-line API, there only when the snapshot is evaluated with it (see documents.ts). */
declare const getEventListeners: unknown;

/** A control the page gave no name is listed with a hint only when it is icon-sized: not a backdrop, a panel, nothing. */
const HINT_MAX_W = 400;
const HINT_MAX_H = 200;

interface Rect {
  l: number;
  t: number;
  r: number;
  b: number;
}

export function snapshot(a: SnapshotArgs): RawDoc {
  const maxEls = a.maxElements || 300;
  const rawCap = a.rawTextChars || 24000;
  const cli = !!a.listeners && typeof getEventListeners === 'function';
  const S = {
    elements: [] as ObservedElement[],
    lines: [] as RawLine[],
    sections: [] as RawSection[],
    frames: 0,
    textChars: 0,
    dropped: 0,
    index: 1,
    frame: 1,
    sec: 0,
  };
  let cur: string[] = [];
  let heading = 0;
  let sec = 0;
  let clipR: Rect | null = null;
  let owners: Element[] = [];
  let handled = new Set<Element>();
  let shadowModal: Element | null = null;
  let probe = listenerProbe(cli);
  /** How deep the walk is inside controls that open something (a tree item with aria-expanded). */
  let opener = 0;

  function reset() {
    clearMarks();
    S.elements = [];
    S.lines = [];
    S.sections = [];
    S.frames = S.textChars = S.dropped = S.sec = 0;
    probe = listenerProbe(cli, delegatedTargets(document));
    S.index = a.startIndex || 1;
    S.frame = a.frameStart || 1;
    cur = [];
    heading = 0;
    sec = 0;
    owners = [];
    handled = new Set();
    shadowModal = null;
    opener = 0;
    clipR = a.onScreen === false ? null : { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
  }
  function onScreen(el: Element | undefined): boolean {
    if (!clipR || !el) return false;
    const r = el.getBoundingClientRect();
    return r.bottom > clipR.t && r.top < clipR.b && r.right > clipR.l && r.left < clipR.r;
  }
  function flush() {
    const s = norm(cur.join(''));
    cur = [];
    if (!s) return;
    const line: Extract<RawLine, { k: 't' }> = { k: 't', s };
    if (heading) line.h = heading;
    if (sec) line.c = sec;
    if (S.textChars >= rawCap) {
      line.s = '';
      line.n = s.length;
    } else {
      S.textChars += s.length;
      if (onScreen(owners[owners.length - 1])) line.v = 1;
    }
    S.lines.push(line);
  }
  /**
   * The listener signal of a plain element. Inside a control that opens something only its icons (no text: the text
   * is the control's name) are asked, off screen too: they are few, and the expander must be listed wherever it is.
   */
  function ask(el: Element, st: CSSStyleDeclaration, explained: boolean): Signal {
    if (!opener) return probe.signal(el, st, explained, onScreen);
    return norm(el.textContent) ? NONE : probe.signal(el, st, explained, () => true);
  }
  function put(el: Element, info: ObservedElement): number {
    flush();
    if (S.elements.length >= maxEls) {
      S.dropped++;
      return 0;
    }
    info.index = S.index++;
    el.setAttribute(IDX, String(info.index));
    S.elements.push(info);
    S.lines.push(heading ? { k: 'e', i: info.index, h: heading } : { k: 'e', i: info.index });
    return info.index;
  }
  /** A checkbox/radio listed once: state from the input, index on what a click must hit. */
  function putToggle(ctl: Element, carrier: Element, scope: string | null) {
    handled.add(ctl);
    const info = record(ctl, roleOf(ctl) || 'checkbox', scope, accName(ctl, roleOf(ctl)) || norm(textOf(carrier, 0)));
    info.tag = carrier.tagName.toLowerCase();
    if (carrier !== ctl || !operable(ctl)) info.hiddenInput = true;
    put(carrier, info);
  }
  function startSection(el: Element, role: string | null, name: string, idx: number): number {
    const id = ++S.sec;
    el.setAttribute(SEC, String(id));
    S.sections.push({ id, role: role || 'region', name: clip(name, 80), tag: el.tagName.toLowerCase(), idx: idx || 0 });
    return id;
  }
  /** Puts a control, named by the page or, failing that, by the best hint there is (null: no name and no hint). */
  function putNamed(el: Element, role: string, scope: string | null, name: string, always: boolean): number | null {
    const info = record(el, role, scope, name);
    if (!name) {
      const r = el.getBoundingClientRect();
      const sized = r.width >= 4 && r.height >= 4 && r.width <= HINT_MAX_W && r.height <= HINT_MAX_H;
      const h = always || sized ? hintOf(el, role) : null;
      if (h) {
        info.name = h.name;
        info.nameFrom = h.from;
      } else if (!always) return null;
    }
    return put(el, info);
  }
  function putShape(c: SvgControl, scope: string | null) {
    const info = record(c.el, 'button', scope, c.name);
    if (c.from) info.nameFrom = c.from;
    put(c.el, info);
  }
  /** A delegated candidate after its content: listed in place of its text when nothing inside it was listed. */
  function putDeferred(el: Element, scope: string | null, d: { lines: number; els: number; chars: number }) {
    flush();
    if (S.elements.length !== d.els) return;
    const text = S.lines.slice(d.lines);
    if (text.some((l) => l.k !== 't')) return;
    S.lines.length = d.lines;
    const chars = S.textChars;
    S.textChars = d.chars;
    if (!putNamed(el, plainRole(el), scope, accName(el, 'button'), false)) {
      S.lines.push(...text);
      S.textChars = chars;
    }
  }
  function visitFrame(el: HTMLIFrameElement, scope: string | null) {
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) return;
    flush();
    const k = S.frame++;
    S.frames++;
    el.setAttribute(FRAME, String(k));
    const title = clip(norm(el.getAttribute('title') || el.getAttribute('aria-label')), 80);
    S.lines.push({
      k: 'f',
      f: k,
      t: title,
      sc: scope,
      v: onScreen(el) ? 1 : 0,
      u: String(el.src || (el.hasAttribute('srcdoc') ? 'about:srcdoc' : '')),
    });
  }
  function visit(el: Element, scope: string | null, explained: boolean, quiet: boolean): void {
    const tag = el.tagName;
    if (el.getAttribute('aria-hidden') === 'true' || (el as HTMLElement).inert) return;
    if (isFrameElement(el)) {
      const fs = styleOf(el);
      if (fs && fs.display !== 'none' && fs.visibility === 'visible') visitFrame(el, scope);
      return;
    }
    if (isSvg(el)) {
      // an icon is text only as part of a control's name; an svg that is itself a control is listed, else its shapes with listeners
      const r = el.getAttribute('role');
      if (el.localName === 'svg' && (r === 'button' || r === 'link' || probe.own(el)))
        put(el, record(el, r || 'button', scope, svgName(el)));
      else if (el.localName === 'svg') for (const c of svgControls(el, probe)) putShape(c, scope);
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
    if ((tag === 'DIALOG' || role === 'dialog' || role === 'alertdialog') && !shadowModal && el.getRootNode() !== document && isModal(el))
      shadowModal = el;
    if (visibleSelf && isLabel(el) && el.control) {
      const ctl = el.control;
      if (handled.has(ctl)) {
        q = true;
        carried = true;
      } else if (isToggle(ctl) && !operable(ctl)) {
        putToggle(ctl, el, scope);
        q = true;
        carried = true;
      } else if (shown(ctl)) {
        const lt = norm(textOf(el, 0));
        q = !lt || accName(ctl, roleOf(ctl)).indexOf(lt) >= 0;
      }
    } else if (visibleSelf && isToggle(el)) {
      if (handled.has(el)) return;
      if (!operable(el)) {
        if (visibleLabel(el)) return; // its label carries it, before or after this point
        putToggle(el, clickableWrapper(el) || el, scope);
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
    let deferred: { lines: number; els: number; chars: number } | null = null;
    if (visibleSelf && isInteractive(el, role) && !isFocusHost(el, role)) {
      // clickable by onclick or focusable by tabindex, without a role: a person sees a button (or a link, a cell …)
      if (!role) role = plainRole(el);
      const name = accName(el, role);
      const idx = tag === 'A' && el.getAttribute('tabindex') === '-1' && !name ? 0 : putNamed(el, role, scope, name, true) || 0;
      if (!CONTAINER[role]) {
        // a tree item's sub-items and the controls a control holds are listed after it; the rest is its name
        if (!idx || !(hasSubList(el) || holdsControls(el))) return;
        nameOnly = true;
      } else if (label) newSec = startSection(el, role, accName(el, role), idx);
    } else {
      signal =
        // a label tied to its control is not a control of its own (a click on it is a click on the control)
        visibleSelf && !carried && tag !== 'BODY' && !(isLabel(el) && el.control) && !(role && (role in SCOPES || role === 'heading'))
          ? ask(el, st, explained)
          : NONE;
      if (signal) {
        const tog = el.querySelector('input[type=checkbox],input[type=radio]');
        if (tog && !handled.has(tog) && !operable(tog)) {
          putToggle(tog, el, scope);
          return;
        }
        if (!hasControl(el) && String(el.textContent || '').length <= 600) {
          const sub = hasSubList(el);
          // a listener of a container that no pointer marks (delegation) is the container's only when nothing in it is a control
          if ((signal === DELEGATED || st.cursor !== 'pointer') && el.childElementCount > 0 && !sub) {
            flush();
            deferred = { lines: S.lines.length, els: S.elements.length, chars: S.textChars };
          } else if (putNamed(el, plainRole(el), scope, sub ? norm(contentText(el, true)) : accName(el, 'button'), false)) {
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
        newSec = startSection(el, role, bn, put(el, sinfo));
      } else if (label && visibleSelf) {
        if (role && HEADER_SCOPES[role]) {
          flush();
          S.lines.push({ k: 's', s: label });
        }
        newSec = startSection(el, role, accName(el, role), 0);
      }
    }
    const block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
    const h = headingLevel(el, role);
    if (block || h || tag === 'BR') flush();
    const prevHeading = heading;
    const prevSec = sec;
    const prevClip = clipR;
    if (h) heading = h;
    if (newSec) sec = newSec;
    if (scroll && clipR) {
      const r = el.getBoundingClientRect();
      clipR = { l: Math.max(clipR.l, r.left), t: Math.max(clipR.t, r.top), r: Math.min(clipR.r, r.right), b: Math.min(clipR.b, r.bottom) };
    }
    if (block) owners.push(el);
    if (el.shadowRoot) el.setAttribute(HOST, '');
    // below a pointer that a listener explains (a card holding its own controls), the inherited pointer says nothing
    const pointer = st.cursor === 'pointer' && (explained || signal === OWN || nameOnly);
    if (nameOnly) q = true;
    const kids = kidsOf(el);
    // a control that opens and closes something: its expander icon is looked for inside it
    const opens = nameOnly && el.hasAttribute('aria-expanded');
    // a closed <details> shows only its summary
    const closed = isDetails(el) && !el.open;
    const said = visibleSelf && !q;
    if (said) cur.push(pseudoText(el, '::before'));
    for (let i = 0; i < kids.length; i++) {
      const n = kids[i]!;
      if (closed && (n as Element).tagName !== 'SUMMARY') continue;
      if (isText(n)) {
        if (said) cur.push(n.data);
      } else if (isElement(n)) {
        if (opens) opener++;
        visit(n, inner, pointer, q);
        if (opens) opener--;
      }
    }
    if (said) cur.push(pseudoText(el, '::after'));
    if (deferred) putDeferred(el, scope, deferred);
    if (block || h) flush();
    if (block) owners.pop();
    heading = prevHeading;
    sec = prevSec;
    clipR = prevClip;
  }
  function walkFrom(root: Element, scope: string | null) {
    if (root === document.body) {
      if (a.frameDoc) sec = startSection(root, 'document', a.frameTitle || document.title || '', 0);
      if (root.shadowRoot) root.setAttribute(HOST, '');
      const kids = kidsOf(root);
      for (let i = 0; i < kids.length; i++) {
        const n = kids[i]!;
        if (isElement(n)) visit(n, scope, false, false);
        else if (isText(n)) cur.push(n.data);
      }
    } else visit(root, scope, false, false);
    flush();
  }

  reset();
  let modal = topModal();
  if (modal) walkFrom(modal, scopeOf(modal) || a.baseScope || null);
  else if (document.body) {
    walkFrom(document.body, a.baseScope || null);
    if (shadowModal) {
      modal = shadowModal;
      reset();
      walkFrom(modal, a.baseScope || null);
    }
  }
  return {
    url: location.href,
    title: document.title,
    modal: !!modal,
    elements: S.elements,
    lines: S.lines,
    sections: S.sections,
    truncated: { elements: S.dropped, text: false },
    next: S.index,
    nextFrame: S.frame,
    frames: S.frames,
    checks: probe.checks(),
    pseudo: pseudoReads(),
  };
}
