import { type Hint, hintOf } from './hints.page';
import type { ListenerProbe } from './listeners.page';
import { svgName } from './roles.page';
import { clip, norm, styleOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): the shapes of an SVG drawing that a listener makes controls (a chart's points,
 * the slices of a wheel menu and their labels, the tiles of a board drawn in SVG). An SVG has no roles or names of
 * its own to go by, so each shape with a handler (its own, or a library's delegated one) is listed, named by its
 * <title> or aria-label, its text (a <text>, or the <text> of the group it is drawn in), its id or class words, and
 * in a chart by where it stands: the axis label under it and the value its height reads on the axis at its left.
 * Bounded: the nodes looked at in one drawing, the texts read for positions.
 */
export interface SvgControl {
  el: Element;
  name: string;
  from?: Hint['from'] | 'chart';
}

const MAX_NODES = 400;
const MAX_TEXTS = 80;
/** Not drawn, or drawn only through a reference: never a control. */
const NOT_DRAWN: Record<string, 1> = {
  title: 1,
  desc: 1,
  defs: 1,
  clippath: 1,
  mask: 1,
  symbol: 1,
  style: 1,
  script: 1,
  lineargradient: 1,
  radialgradient: 1,
  pattern: 1,
  filter: 1,
  marker: 1,
  metadata: 1,
};

interface Box {
  el: Element;
  text: string;
  x: number;
  y: number;
}

const centre = (r: DOMRect) => ({ x: r.left + r.width / 2, y: r.top + r.height / 2 });

/** The drawing's texts with their centres, read once per drawing and only when a shape needs its place. */
function textsOf(svg: Element): Box[] {
  const out: Box[] = [];
  const ts = svg.querySelectorAll('text');
  for (let i = 0; i < ts.length && i < MAX_TEXTS; i++) {
    const t = norm(ts[i]!.textContent);
    if (!t || t.length > 40) continue;
    const c = centre(ts[i]!.getBoundingClientRect());
    out.push({ el: ts[i]!, text: t, ...c });
  }
  return out;
}

/** Where a shape stands in a chart: the label below (or above) it on its x, and its value read on the numeric axis at its left. */
function chartPlace(el: Element, r: DOMRect, texts: Box[]): string {
  const c = centre(r);
  let xLabel: Box | null = null;
  for (const t of texts)
    if (Math.abs(t.x - c.x) <= Math.max(12, r.width) && Math.abs(t.y - c.y) > r.height && (!xLabel || t.y > xLabel.y)) xLabel = t;
  // numeric ticks at the left of the shape: the value at its centre, on the line through the two farthest apart
  const ticks = texts.filter((t) => t.x < r.left && /^-?\d+(\.\d+)?%?$/.test(t.text));
  let value = '';
  if (ticks.length >= 2) {
    ticks.sort((a, b) => a.y - b.y);
    const a = ticks[0]!;
    const b = ticks[ticks.length - 1]!;
    if (b.y - a.y > 4) {
      const va = parseFloat(a.text);
      const vb = parseFloat(b.text);
      const v = va + ((c.y - a.y) * (vb - va)) / (b.y - a.y);
      value = String(Math.round(v * 10) / 10);
    }
  }
  if (xLabel && xLabel.el !== el) return value ? xLabel.text + ', ' + value : xLabel.text;
  return value;
}

/** The text a shape shows or is drawn with: its own (a <text>), its group's (a <g> holding it), its group's one <text>. */
function shapeText(el: Element): string {
  const tag = el.localName;
  if (tag === 'text' || tag === 'tspan' || tag === 'g' || tag === 'a') {
    const t = norm(tag === 'g' || tag === 'a' ? (el.querySelector('text') || el).textContent : el.textContent);
    if (t) return t;
  }
  const g = el.parentElement;
  if (g && g.localName === 'g') {
    const ts = g.querySelectorAll(':scope > text');
    if (ts.length === 1) return norm(ts[0]!.textContent);
  }
  return '';
}

/** The shapes of `svg` with a click handler, each with the best name there is (skips what is not drawn). */
export function svgControls(svg: Element, probe: ListenerProbe): SvgControl[] {
  const found: Element[] = [];
  let seen = 0;
  const walk = (n: Element) => {
    for (let c = n.firstElementChild; c && seen < MAX_NODES; c = c.nextElementSibling) {
      seen++;
      if (NOT_DRAWN[c.localName.toLowerCase()] || c.getAttribute('aria-hidden') === 'true') continue;
      if (probe.own(c)) found.push(c);
      else walk(c);
    }
  };
  walk(svg);
  const out: SvgControl[] = [];
  let texts: Box[] | null = null;
  for (const el of found) {
    const r = el.getBoundingClientRect();
    const st = styleOf(el);
    if (r.width < 1 || r.height < 1 || !st || st.display === 'none' || st.visibility !== 'visible') continue;
    const own = svgName(el) || norm(el.getAttribute('title'));
    if (own) {
      out.push({ el, name: clip(own, 80) });
      continue;
    }
    const text = shapeText(el);
    if (text) {
      out.push({ el, name: clip(text, 80) });
      continue;
    }
    const hint = hintOf(el, 'button');
    if (!texts) texts = textsOf(svg);
    const place = chartPlace(el, r, texts);
    if (place) out.push({ el, name: clip(hint && hint.from !== 'nearby' ? hint.name + ' ' + place : place, 80), from: 'chart' });
    else if (hint) out.push({ el, name: hint.name, from: hint.from });
    else out.push({ el, name: '' });
  }
  return out;
}
