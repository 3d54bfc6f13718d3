import { viewOf } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): the text CSS puts before or after an element (`::before`/`::after`
 * `content`), read only where a style rule can put some.
 *
 * Reading a pseudo-element's computed style costs about as much as the element's own, and the walk would ask it
 * twice for every element (in open shadow roots as well as in the document). So the style sheets of each tree — a
 * document or an open shadow root: its <style> and <link> sheets, @import-ed ones, and the adopted ones — are read
 * once per call for rules with a pseudo-element and a `content`, and their selectors (without the pseudo-element)
 * are queried once in that tree: only the elements found are asked. Rules that reach across a shadow boundary are
 * followed: `:host` (the host of the tree), `::slotted()` (what is slotted into it) and `::part()` (the parts of
 * the shadow trees below). Anything that cannot be read (another origin's sheet) or queried (a nested `&` rule)
 * makes every element of that tree be asked, as before.
 */

/** What the style sheets of one sheet say: the selectors to query, and the rules that reach across a boundary. */
interface SheetRules {
  sels: string[];
  host: boolean;
  slotted: boolean;
  part: boolean;
}

/** The same for a tree, with the elements its selectors found; els null: any element of the tree may have text. */
interface TreeRules {
  els: Set<Element> | null;
  host: boolean;
  slotted: boolean;
  part: boolean;
}

type Tree = Document | ShadowRoot;

/** Kept for one call of the page code (the bundle is evaluated anew each time): a page's styles change between calls. */
const sheets = new Map<CSSStyleSheet, SheetRules | null>();
const byText = new Map<string, { count: number; rules: SheetRules | null }>();
const trees = new Map<Node, TreeRules>();
let reads = 0;

const PSEUDO = /::?(?:before|after)\b/g;
const HAS_PSEUDO = /::?(?:before|after)\b/;
const HOST = /:host(?:-context)?(?:\((?:[^()]|\([^()]*\))*\))?\s*[>+~]?\s*/g;

/** A selector list split at its top-level commas (not those inside :is(), :not() or a quoted string). */
function selectorParts(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list.charAt(i);
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out.map((x) => x.trim()).filter(Boolean);
}

/** Adds a rule's selector list to `out`; false: it cannot be queried on its own. */
function addSelector(text: string, out: SheetRules): boolean {
  if (text.indexOf('&') >= 0) return false;
  for (const part of selectorParts(text)) {
    if (!HAS_PSEUDO.test(part)) continue;
    if (part.indexOf('::slotted') >= 0) out.slotted = true;
    else if (part.indexOf('::part') >= 0) out.part = true;
    else {
      const hosted = part.indexOf(':host') >= 0;
      // `:host::before` is the host's; `:host(.dark) .badge::before` is also `.badge`'s, inside the tree
      if (hosted) out.host = true;
      const sel = (hosted ? part.replace(HOST, '') : part).replace(PSEUDO, '').trim();
      if (sel) out.sels.push(sel);
      else if (!hosted) out.sels.push('*'); // a bare `::before`
    }
  }
  return true;
}

function readRules(rules: CSSRuleList, out: SheetRules): boolean {
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i] as CSSStyleRule & { cssRules?: CSSRuleList; styleSheet?: CSSStyleSheet | null };
    if (r.selectorText && r.style && HAS_PSEUDO.test(r.selectorText)) {
      const c = r.style.getPropertyValue('content');
      if (c && c !== 'none' && c !== 'normal' && !addSelector(r.selectorText, out)) return false;
    }
    if (r.styleSheet) {
      // an @import-ed sheet
      const sub = sheetRules(r.styleSheet);
      if (!sub) return false;
      merge(out, sub);
    }
    if (r.cssRules && !readRules(r.cssRules, out)) return false;
  }
  return true;
}

function merge(into: SheetRules, from: SheetRules): void {
  into.sels.push(...from.sels);
  into.host = into.host || from.host;
  into.slotted = into.slotted || from.slotted;
  into.part = into.part || from.part;
}

function sheetRules(sh: CSSStyleSheet): SheetRules | null {
  if (sheets.has(sh)) return sheets.get(sh)!;
  // Each instance of a web component has its own <style> with the same text: read once (building the CSSOM of its
  // rules is what costs). A script may have added rules (insertRule): the count of rules must match too.
  const owner = sh.ownerNode;
  const text = owner && owner.nodeName === 'STYLE' ? owner.textContent || '' : '';
  let count = -1;
  try {
    count = sh.cssRules.length;
  } catch {
    // another origin's sheet: read below
  }
  const known = text ? byText.get(text) : undefined;
  if (known && known.count === count) {
    sheets.set(sh, known.rules);
    return known.rules;
  }
  let found: SheetRules | null = { sels: [], host: false, slotted: false, part: false };
  try {
    if (!readRules(sh.cssRules, found)) found = null;
  } catch {
    found = null; // another origin's sheet
  }
  sheets.set(sh, found);
  if (text) byText.set(text, { count, rules: found });
  return found;
}

function treeRules(tree: Tree): TreeRules {
  let t = trees.get(tree);
  if (t) return t;
  const all: SheetRules = { sels: [], host: false, slotted: false, part: false };
  let readable = true;
  const list = Array.prototype.slice
    .call(tree.styleSheets)
    .concat((tree as Tree & { adoptedStyleSheets?: CSSStyleSheet[] }).adoptedStyleSheets || []) as CSSStyleSheet[];
  for (const sh of list) {
    const r = sheetRules(sh);
    if (!r) {
      readable = false;
      break;
    }
    merge(all, r);
  }
  let els: Set<Element> | null = null;
  if (readable) {
    els = new Set<Element>();
    const seen: Record<string, 1> = {};
    for (const sel of all.sels) {
      if (seen[sel]) continue;
      seen[sel] = 1;
      try {
        tree.querySelectorAll(sel).forEach((e) => els!.add(e));
      } catch {
        els = null;
        break;
      }
    }
  }
  // what cannot be read may hold rules of every kind
  t = readable ? { els, host: all.host, slotted: all.slotted, part: all.part } : { els: null, host: true, slotted: true, part: true };
  trees.set(tree, t);
  return t;
}

function isTree(n: Node): n is Tree {
  return n.nodeType === 9 || n.nodeType === 11;
}

/** Whether a rule may give `el` ::before/::after text: its own tree's, its shadow root's :host, a ::slotted or a ::part rule. */
export function mayHavePseudo(el: Element): boolean {
  const tree = el.getRootNode();
  if (!isTree(tree)) return true;
  const own = treeRules(tree);
  if (!own.els || own.els.has(el)) return true;
  if (el.shadowRoot && treeRules(el.shadowRoot).host) return true;
  const slot = el.assignedSlot;
  if (slot) {
    const st = slot.getRootNode();
    if (isTree(st) && treeRules(st).slotted) return true;
  }
  if (tree.nodeType === 11 && el.hasAttribute('part')) {
    for (let h: Node = (tree as ShadowRoot).host.getRootNode(); isTree(h); h = (h as ShadowRoot).host.getRootNode()) {
      if (treeRules(h).part) return true;
      if (h.nodeType === 9) break;
    }
  }
  return false;
}

/** How many pseudo-elements' styles this call read (the benchmark's measure of the cost). */
export function pseudoReads(): number {
  return reads;
}

/** Characters of an icon font (the Private Use Area): a glyph a person sees as a picture, not as text. */
const ICON_GLYPHS = /[\ue000-\uf8ff]/g;

/**
 * The text CSS puts before or after an element: quoted strings and attr(), as the page renders them (counters,
 * quotes and images are not text a person reads as words). Icon-font glyphs are left out.
 */
export function pseudoText(el: Element, which: '::before' | '::after'): string {
  if (!mayHavePseudo(el)) return '';
  let c: string;
  try {
    reads++;
    c = viewOf(el).getComputedStyle(el, which).content;
  } catch {
    return '';
  }
  if (!c || c === 'none' || c === 'normal') return '';
  // Images (url(), image-set(), gradients) and counters carry quoted strings that are not text: a data: URL of an SVG
  // checkbox would become the control's name. Their alternative text, after a slash, stays.
  c = c.replace(/(?:url|image-set|[\w-]*gradient|counters?)\((?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^()"']|\([^()]*\))*\)/g, '');
  let out = '';
  const re = /"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)/g;
  for (let m = re.exec(c); m; m = re.exec(c)) {
    if (m[3]) out += el.getAttribute(m[3]) || '';
    else
      out += (m[1] !== undefined ? m[1] : m[2] || '')
        .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, h: string) => codePoint(parseInt(h, 16)))
        .replace(/\\(.)/g, '$1');
  }
  return out.replace(ICON_GLYPHS, '');
}

function codePoint(n: number): string {
  return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
}
