import { accName, roleOf, topModal } from './roles.page';
import {
  byId,
  deepAll,
  isDetails,
  isElement,
  isFrameElement,
  isSvg,
  isText,
  kidsOf,
  norm,
  quote,
  refOf,
  type Refs,
  shown,
  SKIP,
  styleOf,
} from './tree.page';

/**
 * In the page (see agent-dom.page.ts): reading the text of one element, a section or the whole page, page by page
 * (extractText), and finding the option to choose in an open list (markOption). Both look through open shadow roots.
 */

/** The text a person reads in an element, in the flat tree, one line per block; same-origin frames in place. */
export function readText(root: Element): string {
  const out: string[] = [];
  function walk(el: Element, visible: boolean) {
    const kids = kidsOf(el);
    for (let i = 0; i < kids.length; i++) {
      const n = kids[i]!;
      if (isText(n)) {
        if (visible) out.push(n.data);
        continue;
      }
      if (!isElement(n) || n.getAttribute('aria-hidden') === 'true') continue;
      const tag = n.tagName;
      if (isFrameElement(n)) {
        let d: Document | null;
        try {
          d = n.contentDocument;
        } catch {
          d = null;
        }
        if (d && d.body) {
          out.push('\n');
          walk(d.body, true);
          out.push('\n');
        }
        continue;
      }
      if (SKIP[tag] || isSvg(n)) continue;
      const st = styleOf(n);
      if (!st || st.display === 'none') continue;
      if (tag === 'IMG') {
        const alt = norm(n.getAttribute('alt'));
        if (alt && st.visibility === 'visible') out.push(' ' + alt + ' ');
        continue;
      }
      if (tag === 'BR') {
        out.push('\n');
        continue;
      }
      const block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
      if (block) out.push('\n');
      if (isDetails(n) && !n.open) {
        const sm = n.querySelector(':scope > summary');
        if (sm) walk(sm, st.visibility === 'visible');
      } else walk(n, st.visibility === 'visible');
      if (block) out.push('\n');
    }
  }
  walk(root, (styleOf(root) || { visibility: 'visible' }).visibility === 'visible');
  return out.join('').split('\n').map(norm).filter(Boolean).join('\n');
}

/** Pages of at most max characters, cut at line ends where a line allows it. */
export function pagesOf(text: string, max: number): string[] {
  const pages: string[] = [];
  let curPage = '';
  text.split('\n').forEach((line) => {
    while (line.length > max) {
      if (curPage) {
        pages.push(curPage);
        curPage = '';
      }
      pages.push(line.slice(0, max));
      line = line.slice(max);
    }
    if (curPage && curPage.length + 1 + line.length > max) {
      pages.push(curPage);
      curPage = '';
    }
    curPage = curPage ? curPage + '\n' + line : line;
  });
  if (curPage || !pages.length) pages.push(curPage);
  return pages;
}

export interface ExtractArgs {
  /** The element the snapshot gave this index, or … */
  index?: number;
  /** … the section of this number, or else the page (its open modal dialog, when there is one). */
  section?: number;
  maxChars: number;
  page?: number;
}

export type Extracted = { ok: true; text: string; page: number; pages: number; chars: number } | { ok: false; error: string };

export function extractText(a: ExtractArgs, refs: Refs): Extracted {
  const el = a.index ? refOf(refs, 'el', a.index) : a.section ? refOf(refs, 'sec', a.section) : topModal() || document.body;
  if (!el) return { ok: false, error: 'element [' + a.index + '] is no longer on the page' };
  const text = readText(el);
  const pages = pagesOf(text, a.maxChars);
  const page = Math.max(1, a.page || 1);
  if (page > pages.length) return { ok: false, error: 'the text has ' + pages.length + ' page(s); there is no page ' + page };
  return { ok: true, text: pages[page - 1]!, page, pages: pages.length, chars: text.length };
}

export interface MarkOptionArgs {
  /** The element the list belongs to (its index), when known. */
  index?: number;
  /** The option's name or value, as the model wrote it. */
  option: string;
}

export type MarkedOption = { ok: true; name: string } | { ok: false; error: string };

interface Named {
  el: Element;
  name: string;
  value: string;
}

/** Finds the one option to choose in an open list and keeps it as refs.opt[0] (the tool clicks it). */
export function markOption(a: MarkOptionArgs, refs: Refs): MarkedOption {
  refs.opt.length = 0;
  const target = a.index ? refOf(refs, 'el', a.index) : null;
  const pools: ParentNode[] = [];
  if (target) {
    if (roleOf(target) === 'listbox') pools.push(target);
    const ctl = target.getAttribute('aria-controls') || target.getAttribute('aria-owns');
    if (ctl)
      norm(ctl)
        .split(' ')
        .forEach((id) => {
          const e = byId(target, id);
          if (e) pools.push(e);
        });
    const own = target.parentElement && target.parentElement.querySelector('[role=listbox]');
    if (own) pools.push(own);
  }
  pools.push(document);
  const want = norm(a.option).toLowerCase();
  for (const pool of pools) {
    const opts = deepAll(pool, '[role=option]').filter(shown);
    if (!opts.length) continue;
    const named: Named[] = opts.map((o) => ({
      el: o,
      name: norm(accName(o, 'option')),
      value: o.getAttribute('data-value') || o.getAttribute('value') || '',
    }));
    let pick: Named | null = null;
    const tests = [
      (o: Named) => o.name.toLowerCase() === want,
      (o: Named) => o.value.toLowerCase() === want,
      (o: Named) => o.name.toLowerCase().indexOf(want) === 0,
      (o: Named) => want.length > 1 && o.name.toLowerCase().indexOf(want) >= 0,
    ];
    for (let i = 0; i < tests.length && !pick; i++) {
      const hits = named.filter(tests[i]!);
      if (hits.length === 1) pick = hits[0]!;
      else if (hits.length > 1)
        return { ok: false, error: 'several options match ' + quote(a.option) + ': ' + hits.map((h) => quote(h.name)).join(', ') };
    }
    if (!pick)
      return {
        ok: false,
        error: 'no option matches ' + quote(a.option) + '; the options are ' + named.map((h) => quote(h.name)).join(', '),
      };
    refs.opt[0] = pick.el;
    return { ok: true, name: pick.name };
  }
  return { ok: false, error: 'no open list of options on the page' };
}
