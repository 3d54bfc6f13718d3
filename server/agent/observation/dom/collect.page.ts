import type { ObservedElement } from '../types';
import { operable } from './controls.page';
import { delegatedTargets } from './delegation.page';
import { hintOf } from './hints.page';
import { type ListenerProbe, listenerProbe, NONE, type Signal } from './listeners.page';
import { accName, roleOf, textOf } from './roles.page';
import type { RawDoc, RawLine, RawSection, SnapshotArgs } from './snapshot-types.page';
import { record } from './states.page';
import { plainRole } from './structure.page';
import type { SvgControl } from './svg.page';
import { clip, norm, type Refs } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): what the snapshot's walk (snapshot.page.ts) collects as it goes — the lines,
 * the listed elements and sections, the iframes — and where it stands (heading, section, the box that clips what is
 * on screen, the block that owns the text). What is listed is kept by reference in `refs`, never marked on the page.
 */

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

/** Where a delegated candidate's content started (it is listed in place of that content when nothing in it was). */
export interface Deferred {
  lines: number;
  els: number;
  chars: number;
}

export interface Walk {
  a: SnapshotArgs;
  refs: Refs;
  maxEls: number;
  rawCap: number;
  cli: boolean;
  elements: ObservedElement[];
  lines: RawLine[];
  sections: RawSection[];
  frames: number;
  textChars: number;
  dropped: number;
  index: number;
  frame: number;
  sec: number;
  /** Text of the current line, in pieces. */
  cur: string[];
  heading: number;
  /** The section the walk is in. */
  inSec: number;
  clipR: Rect | null;
  owners: Element[];
  handled: Set<Element>;
  shadowModal: Element | null;
  probe: ListenerProbe;
  /** How deep the walk is inside controls that open something (a tree item with aria-expanded). */
  opener: number;
}

export function newWalk(a: SnapshotArgs, refs: Refs): Walk {
  const cli = !!a.listeners && typeof getEventListeners === 'function';
  const w = {
    a,
    refs,
    maxEls: a.maxElements || 300,
    rawCap: a.rawTextChars || 24000,
    cli,
    probe: listenerProbe(cli),
  } as Walk;
  reset(w);
  return w;
}

/** Starts the walk over (a modal dialog found in a shadow root is walked alone). */
export function reset(w: Walk): void {
  w.refs.el.length = w.refs.sec.length = w.refs.frame.length = w.refs.opt.length = 0;
  w.elements = [];
  w.lines = [];
  w.sections = [];
  w.frames = w.textChars = w.dropped = w.sec = 0;
  w.probe = listenerProbe(w.cli, delegatedTargets(document));
  w.index = w.a.startIndex || 1;
  w.frame = w.a.frameStart || 1;
  w.cur = [];
  w.heading = 0;
  w.inSec = 0;
  w.owners = [];
  w.handled = new Set();
  w.shadowModal = null;
  w.opener = 0;
  w.clipR = w.a.onScreen === false ? null : { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
}

export function onScreen(w: Walk, el: Element | undefined): boolean {
  const c = w.clipR;
  if (!c || !el) return false;
  const r = el.getBoundingClientRect();
  return r.bottom > c.t && r.top < c.b && r.right > c.l && r.left < c.r;
}

/** Narrows what counts as on screen to a scrollable box's viewport (restored by the caller after the box). */
export function clipTo(w: Walk, el: Element): void {
  if (!w.clipR) return;
  const r = el.getBoundingClientRect();
  const c = w.clipR;
  w.clipR = { l: Math.max(c.l, r.left), t: Math.max(c.t, r.top), r: Math.min(c.r, r.right), b: Math.min(c.b, r.bottom) };
}

/** Ends the current text line. */
export function flush(w: Walk): void {
  const s = norm(w.cur.join(''));
  w.cur = [];
  if (!s) return;
  const line: Extract<RawLine, { k: 't' }> = { k: 't', s };
  if (w.heading) line.h = w.heading;
  if (w.inSec) line.c = w.inSec;
  if (w.textChars >= w.rawCap) {
    line.s = '';
    line.n = s.length;
  } else {
    w.textChars += s.length;
    if (onScreen(w, w.owners[w.owners.length - 1])) line.v = 1;
  }
  w.lines.push(line);
}

/**
 * The listener signal of a plain element. Inside a control that opens something only its icons (no text: the text
 * is the control's name) are asked, off screen too: they are few, and the expander must be listed wherever it is.
 */
export function ask(w: Walk, el: Element, st: CSSStyleDeclaration, explained: boolean): Signal {
  if (!w.opener) return w.probe.signal(el, st, explained, (e) => onScreen(w, e));
  return norm(el.textContent) ? NONE : w.probe.signal(el, st, explained, () => true);
}

export function put(w: Walk, el: Element, info: ObservedElement): number {
  flush(w);
  if (w.elements.length >= w.maxEls) {
    w.dropped++;
    return 0;
  }
  info.index = w.index++;
  w.refs.el[info.index] = el;
  w.elements.push(info);
  w.lines.push(w.heading ? { k: 'e', i: info.index, h: w.heading } : { k: 'e', i: info.index });
  return info.index;
}

/** A checkbox/radio listed once: state from the input, index on what a click must hit. */
export function putToggle(w: Walk, ctl: Element, carrier: Element, scope: string | null): void {
  w.handled.add(ctl);
  const info = record(ctl, roleOf(ctl) || 'checkbox', scope, accName(ctl, roleOf(ctl)) || norm(textOf(carrier, 0)));
  info.tag = carrier.tagName.toLowerCase();
  if (carrier !== ctl || !operable(ctl)) info.hiddenInput = true;
  put(w, carrier, info);
}

export function startSection(w: Walk, el: Element, role: string | null, name: string, idx: number): number {
  const id = ++w.sec;
  w.refs.sec[id] = el;
  w.sections.push({ id, role: role || 'region', name: clip(name, 80), tag: el.tagName.toLowerCase(), idx: idx || 0 });
  return id;
}

/** Puts a control, named by the page or, failing that, by the best hint there is (null: no name and no hint). */
export function putNamed(w: Walk, el: Element, role: string, scope: string | null, name: string, always: boolean): number | null {
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
  return put(w, el, info);
}

export function putShape(w: Walk, c: SvgControl, scope: string | null): void {
  const info = record(c.el, 'button', scope, c.name);
  if (c.from) info.nameFrom = c.from;
  put(w, c.el, info);
}

/** Where a delegated candidate's content starts (see putDeferred). */
export function defer(w: Walk): Deferred {
  flush(w);
  return { lines: w.lines.length, els: w.elements.length, chars: w.textChars };
}

/** A delegated candidate after its content: listed in place of its text when nothing inside it was listed. */
export function putDeferred(w: Walk, el: Element, scope: string | null, d: Deferred): void {
  flush(w);
  if (w.elements.length !== d.els) return;
  const text = w.lines.slice(d.lines);
  if (text.some((l) => l.k !== 't')) return;
  w.lines.length = d.lines;
  const chars = w.textChars;
  w.textChars = d.chars;
  if (!putNamed(w, el, plainRole(el), scope, accName(el, 'button'), false)) {
    w.lines.push(...text);
    w.textChars = chars;
  }
}

/** An iframe: a {k:'f'} line at its place, the element kept in refs.frame for the node side to read the frame. */
export function putFrame(w: Walk, el: HTMLIFrameElement, scope: string | null): void {
  const r = el.getBoundingClientRect();
  if (r.width < 4 || r.height < 4) return;
  flush(w);
  const k = w.frame++;
  w.frames++;
  w.refs.frame[k] = el;
  const title = clip(norm(el.getAttribute('title') || el.getAttribute('aria-label')), 80);
  w.lines.push({
    k: 'f',
    f: k,
    t: title,
    sc: scope,
    v: onScreen(w, el) ? 1 : 0,
    u: String(el.src || (el.hasAttribute('srcdoc') ? 'about:srcdoc' : '')),
  });
}

/** What the walk gives the node side. */
export function result(w: Walk, modal: boolean, pseudo: number): RawDoc {
  return {
    url: location.href,
    title: document.title,
    modal,
    elements: w.elements,
    lines: w.lines,
    sections: w.sections,
    truncated: { elements: w.dropped, text: false },
    next: w.index,
    nextFrame: w.frame,
    frames: w.frames,
    checks: w.probe.checks(),
    pseudo,
  };
}
