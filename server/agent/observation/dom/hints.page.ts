import { gridPlace, rowText } from './places.page';
import { byId, clip, isElement, isSvg, isText, norm, styleOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): the best hint there is for a control the page gave no name (an icon with a
 * click listener, a twisty, an empty calendar slot), so that it can be listed and told apart rather than left out:
 * what its author wrote on it besides a name — data attributes (a tooltip, an action, a test id), the icon it shows
 * (an icon font's ligature or glyph class, an SVG <use href="#icon-star">, an image's file name), the words of its
 * own id (its siblings share its classes), then of its classes (`btn-trash` → "trash"; hashed and utility class names, and the page's namespace, are
 * left out), where a link goes, a table cell's column and
 * row headers, a form field's row (places.page.ts: the one field of a table row or a settings row), a cell's row and
 * column in a grid of like controls, and last the text right next to it. The observation says where the name came
 * from (`nameFrom`): it is a guess a person would make, not the page's own name.
 */
export type HintSource = 'data' | 'icon' | 'class' | 'href' | 'headers' | 'nearby' | 'row' | 'position';

export interface Hint {
  name: string;
  from: HintSource;
}

/** Data attributes that hold what a control is for, most telling first. */
const DATA_KEYS = [
  'data-tooltip',
  'data-tooltip-content',
  'data-title',
  'data-original-title',
  'data-bs-original-title',
  'data-tip',
  'data-label',
  'data-name',
  'data-action',
  'data-do',
  'data-command',
  'data-icon',
  'data-testid',
  'data-test-id',
  'data-test',
  'data-qa',
  'data-cy',
];

/** The vocabulary of styling and layout: words a class name is made of that say nothing of what the control does. */
const STOP = new Set(
  (
    'icon icons ico btn button buttons material symbols outlined rounded sharp round glyphicon glyph fa fas far fab fal fad ' +
    'mdi bi ion ionicon ionicons octicon feather lucide svg img image pic wrap wrapper container inner outer box item items ' +
    'element elem component comp base root main content holder link links action actions control controls toolbar bar tool ' +
    'tools group list row col cell grid flex inline block hidden visible show shown active inactive hover focus focused ' +
    'selected disabled enabled opened closed left right top bottom center middle small large medium big tiny primary ' +
    'secondary tertiary default light dark white black gray grey text clickable pointer cursor js ui app page view widget ' +
    'module mobile desktop only with and the has is no not css style styled inline svg-inline tw theme variant size sm md lg ' +
    'xl xs xxl outline solid regular filled fill stroke label'
  ).split(' '),
);
/** Two-letter words that do name what a control does (thumbs up, zoom in, ok). */
const SHORT: Record<string, 1> = { up: 1, ok: 1, go: 1, in: 1 };
/** Words too generic to name a control on their own: the text next to it is added. */
const GENERIC = new Set('toggle toggler twisty caret chevron arrow expand expander collapse collapser handle more dots kebab'.split(' '));

/** The words of an identifier: camelCase, kebab-case and snake_case split; [] when it looks generated (a hash). */
function identWords(token: string): string[] {
  if (/\d/.test(token) || /^(css|sc|jsx|svelte|emotion|styled|tw|astro|_)[-_]/i.test(token)) return [];
  const parts = token
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[\s_\-.:]+/)
    .filter(Boolean);
  const out: string[] = [];
  for (const p of parts) {
    if (p.length < 3 && !SHORT[p.toLowerCase()]) continue;
    // a run of consonants is a hash fragment, not a word
    if (!/[aeiouy]/i.test(p)) return [];
    const w = p.toLowerCase();
    if (!STOP.has(w)) out.push(w);
  }
  return out;
}

function wordsOf(list: string[], limit = 4, skip?: Set<string>): string {
  const seen: string[] = [];
  for (const tok of list)
    for (const w of identWords(tok)) {
      if (skip && skip.has(w)) continue;
      if (seen.indexOf(w) < 0) seen.push(w);
      if (seen.length >= limit) return seen.join(' ');
    }
  return seen.join(' ');
}

/** Namespace words are counted over this many elements' classes, and kept this long (a snapshot's hints share them). */
const NAMESPACE_SAMPLE = 3000;
const NAMESPACE_TTL_MS = 2000;
let namespaceCache: { doc: Document; at: number; words: Set<string> } | null = null;

/**
 * The words a page starts most of its class names with: its namespace (`red-ui-footer-button`, `MuiButton-root`).
 * They are on every control alike, so they tell none apart, and a hint leaves them out.
 */
function namespaceWords(doc: Document): Set<string> {
  const now = Date.now();
  if (namespaceCache && namespaceCache.doc === doc && now - namespaceCache.at < NAMESPACE_TTL_MS) return namespaceCache.words;
  const counts = new Map<string, number>();
  let total = 0;
  const els = doc.querySelectorAll('[class]');
  for (let i = 0; i < els.length && i < NAMESPACE_SAMPLE; i++) {
    for (const t of (els[i]!.getAttribute('class') || '').split(/\s+/)) {
      const first = t.replace(/([a-z])([A-Z])/g, '$1 $2').split(/[\s_\-.:]+/)[0];
      if (!first) continue;
      total++;
      const w = first.toLowerCase();
      counts.set(w, (counts.get(w) || 0) + 1);
    }
  }
  const words = new Set<string>();
  if (total >= 30) counts.forEach((n, w) => n >= total * 0.3 && words.add(w));
  namespaceCache = { doc, at: now, words };
  return words;
}

/**
 * Icon fonts' classes (Font Awesome, Bootstrap Icons, Glyphicons, Ionicons, Material Design Icons, Remix, Boxicons …):
 * `fa-angle-double-up` names its glyph; size, animation and style modifiers (`fa-fw`, `fa-2x`, `fa-spin`) do not.
 */
const ICON_FONT = /^(?:fa[srlbdt]?|bi|glyphicon|icon|mdi|ion|ti|la[srb]?|octicon|codicon|ri|bx[sl]?|lni|feather|uil|oi)-([a-z][a-z0-9-]*)$/;
const ICON_MODIFIER =
  /^(?:fw|lg|xs|sm|xl|2xs|2xl|\d+x|spin|pulse|beat|bounce|fade|shake|border|inverse|li|ul|solid|regular|light|thin|duotone|brands|sharp|(?:flip|rotate|stack|pull)(?:-[a-z0-9-]+)?)$/;

function iconFontName(el: Element): string {
  if (el.childElementCount > 0 || norm(el.textContent)) return '';
  for (const t of (el.getAttribute('class') || '').split(/\s+/)) {
    const m = ICON_FONT.exec(t);
    if (!m || ICON_MODIFIER.test(m[1]!)) continue;
    const w = wordsOf([m[1]!]);
    if (w) return w;
  }
  return '';
}

/** An attribute value that reads as a word or a phrase (not an id, a number or JSON). */
function wordy(v: string | null): string {
  const s = norm(v);
  if (!s || s.length > 60 || !/[a-z]{3}/i.test(s) || /^[\d\W]+$/.test(s) || /[{}[\]<>=]/.test(s)) return '';
  // an identifier (compose-button, mark_unread) reads as its words
  return /^[\w-]+$/.test(s) && /[-_]|[a-z][A-Z]/.test(s) ? wordsOf([s]) || '' : s;
}

function dataHint(el: Element): string {
  for (const k of DATA_KEYS) {
    const v = wordy(el.getAttribute(k));
    if (v) return v;
  }
  const ad = norm(el.getAttribute('aria-description'));
  if (ad) return ad;
  const db = el.getAttribute('aria-describedby');
  if (db) {
    const d = byId(el, norm(db).split(' ')[0]!);
    if (d) return norm(d.textContent);
  }
  return '';
}

/** The file name a URL (or a CSS url(…)) points at, as words ("/img/trash-can.svg" → "trash can"). */
function fileWords(src: string): string {
  const u = /url\(\s*["']?([^"')]*)/.exec(src);
  const url = u ? u[1]! : src;
  if (/^data:/.test(url)) return '';
  const m = /([^/?#]+?)(?:\.\w{2,5})?(?:[?#].*)?$/.exec(url);
  return m ? wordsOf([m[1]!]) : '';
}

/** The icon an element shows: an icon font's ligature, an SVG's symbol or data-icon, an image's file name. */
function iconHint(el: Element, depth: number): string {
  if (isSvg(el)) {
    const di = wordy(el.getAttribute('data-icon'));
    if (di) return di;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (c.localName !== 'use') continue;
      const href = c.getAttribute('href') || c.getAttribute('xlink:href') || '';
      const w = wordsOf([href.replace(/^.*#/, '')]);
      if (w) return w;
    }
    return wordsOf((el.getAttribute('class') || '').split(/\s+/));
  }
  if (el.tagName === 'IMG') return fileWords(el.getAttribute('src') || '');
  // A ligature icon (Material Icons/Symbols): the glyph's name is the element's text, often hidden from the
  // accessibility tree with aria-hidden.
  const cls = el.getAttribute('class') || '';
  if (/material|icon|symbol/i.test(cls) && el.childElementCount === 0) {
    const t = norm(el.textContent);
    if (/^[a-z][a-z_]{1,30}$/.test(t)) return t.replace(/_/g, ' ');
  }
  const font = iconFontName(el);
  if (font) return font;
  const st = styleOf(el);
  if (st && st.backgroundImage && st.backgroundImage.indexOf('url(') === 0) {
    const f = fileWords(st.backgroundImage);
    if (f) return f;
  }
  if (depth < 3)
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const h = iconHint(c, depth + 1);
      if (h) return h;
    }
  return '';
}

/**
 * The words of an element's own id: the author's name for this one element (`view-zoom-out`), where its classes are
 * shared with its siblings (three footer buttons, one class). Generated ids (with digits) say nothing.
 */
function idHint(el: Element): string {
  const id = el.getAttribute('id');
  return id ? wordsOf([id], 3, namespaceWords(el.ownerDocument)) : '';
}

/** The words of the classes and ids of an element and the few elements inside it (the page's namespace left out). */
function classHint(el: Element): string {
  const toks: string[] = [];
  const add = (e: Element) => {
    toks.push(...(e.getAttribute('class') || '').split(/\s+/).filter((t) => t && t !== e.tagName.toLowerCase()));
    const id = e.getAttribute('id');
    if (id) toks.push(id);
  };
  add(el);
  let n = 0;
  for (let c = el.firstElementChild; c && n < 3; c = c.nextElementSibling, n++) add(c);
  return wordsOf(toks, 3, namespaceWords(el.ownerDocument));
}

function hrefHint(el: Element): string {
  if (el.tagName !== 'A') return '';
  const h = el.getAttribute('href') || '';
  if (!h || h.charAt(0) === '#' || /^javascript:/i.test(h)) return '';
  return wordsOf(h.split(/[?#]/)[0]!.split('/').filter(Boolean).slice(-1));
}

/** A table cell's column header and row header ("Tue 10:00"). */
function headersHint(el: Element): string {
  const cell = el.closest('td,th,[role=gridcell]');
  if (!cell || !(cell as HTMLTableCellElement).parentElement) return '';
  const row = cell.parentElement as HTMLTableRowElement;
  const table = cell.closest('table,[role=grid],[role=treegrid]');
  if (!table || !row.cells) return '';
  const i = (cell as HTMLTableCellElement).cellIndex;
  const head = (table as HTMLTableElement).tHead;
  const headRow = head && head.rows[head.rows.length - 1];
  const col = headRow && headRow.cells[i] ? norm(headRow.cells[i]!.textContent) : '';
  const first = row.cells[0];
  const rowHead = first && first !== cell && first.tagName === 'TH' ? norm(first.textContent) : '';
  return norm(col + ' ' + rowHead);
}

/** The text right next to an element in its parent (the label beside a twisty or a bare checkbox). */
function nearbyText(el: Element): string {
  for (const dir of ['next', 'prev'] as const) {
    for (let n = dir === 'next' ? el.nextSibling : el.previousSibling; n; n = dir === 'next' ? n.nextSibling : n.previousSibling) {
      const t = isText(n) ? norm(n.data) : isElement(n) ? norm((n as HTMLElement).innerText || n.textContent) : '';
      if (t) return t.length <= 60 ? t : '';
    }
  }
  return '';
}

/** The best hint for an element without a name, or null when nothing about it says what it is. */
export function hintOf(el: Element, role: string | null): Hint | null {
  const cellish = el.tagName === 'TD' || role === 'gridcell';
  if (cellish) {
    const h = headersHint(el);
    if (h) {
      const cw = classHint(el);
      return { name: clip(cw ? h + ' ' + cw : h, 80), from: 'headers' };
    }
  }
  const d = dataHint(el);
  if (d) return { name: clip(d, 80), from: 'data' };
  const field = el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA';
  const row = field ? rowText(el) : '';
  if (row) return { name: clip(row, 80), from: 'row' };
  const i = iconHint(el, 0);
  if (i) return { name: clip(i, 80), from: 'icon' };
  const own = idHint(el);
  if (own && !GENERIC.has(own)) return { name: clip(own, 80), from: 'class' };
  const c = classHint(el);
  if (c && !GENERIC.has(c)) return { name: clip(c, 80), from: 'class' };
  const href = hrefHint(el);
  if (href) return { name: clip(href, 80), from: 'href' };
  // a cell of a board or of a grid of bare checkboxes: its neighbour's text would name the wrong one
  const place = gridPlace(el);
  if (place) return { name: place, from: 'position' };
  const near = nearbyText(el);
  if (near) return { name: clip(c ? c + ' ' + near : near, 80), from: 'nearby' };
  // a generic word ("more", "toggle") with nothing beside it still tells the control apart from nothing at all
  const generic = own || c;
  return generic ? { name: clip(generic, 80), from: 'class' } : null;
}
