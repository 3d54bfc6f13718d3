import type { Page } from 'playwright-core';

/**
 * The changes a replayed list read meets on its page after it was recorded (bench:replay-mutations). Each is applied
 * in the page to the read's list as the read declares it; every element a change adds that is not an item of the list
 * carries the class `mut-added`, so the hand-read answer leaves it out.
 */
export interface ListRead {
  id: string;
  action: string;
  /** Loads the page as it was recorded (and marks the list the answer is read from: data-mut-list). */
  open(page: Page): Promise<void>;
  /** The element whose children are the list's items, and an item among them (a selector for children of it). */
  list: string;
  item: string;
  /** The element copied as a sibling list (the list itself, or its table). */
  block: string;
  /** Where the list's heading is written: an element's text, or an attribute of it. */
  heading: { selector: string; attr?: string };
  /** The answer read by hand from [data-mut-list]'s items (not .mut-added). */
  answer(page: Page): Promise<Record<string, unknown>>;
}

export type MutationKind =
  | 'grown'
  | 'shrunk'
  | 'reordered'
  | 'emptied'
  | 'renamed'
  | 'sibling list after'
  | 'sibling list before'
  | 'controls between'
  | 'heading renamed'
  | 'content added above';

/** keepsStructure: the list is still there with items to check (an emptied list has none). */
export const MUTATIONS: { kind: MutationKind; keepsStructure: boolean }[] = [
  { kind: 'grown', keepsStructure: true },
  { kind: 'shrunk', keepsStructure: true },
  { kind: 'reordered', keepsStructure: true },
  { kind: 'renamed', keepsStructure: true },
  { kind: 'sibling list after', keepsStructure: true },
  { kind: 'sibling list before', keepsStructure: true },
  { kind: 'controls between', keepsStructure: true },
  { kind: 'heading renamed', keepsStructure: true },
  { kind: 'content added above', keepsStructure: true },
  { kind: 'emptied', keepsStructure: false },
];

export async function mutate(page: Page, read: ListRead, kind: MutationKind): Promise<void> {
  // tsx (esbuild, keepNames) wraps the named helpers below in __name(), which the page does not have.
  await page.evaluate('globalThis.__name = globalThis.__name || ((f) => f)');
  await page.evaluate(
    ({ r, kind }) => {
      const list = document.querySelector('[data-mut-list]')!;
      const items = () => Array.from(list.querySelectorAll(r.item)).filter((e) => e.parentElement === list);
      /** The first text with letters in an element (an item's name, number or title). */
      const firstWords = (el: Element): Text | null => {
        const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = w.nextNode() as Text | null; n; n = w.nextNode() as Text | null) if (/\p{L}/u.test(n.data)) return n;
        return null;
      };
      const rename = (el: Element, suffix: string) => {
        const t = firstWords(el);
        if (t) t.data = t.data.trimEnd() + suffix;
      };
      const all = items();
      if (kind === 'grown') {
        const copy = all[0]!.cloneNode(true) as Element;
        rename(copy, ' new');
        list.appendChild(copy);
      } else if (kind === 'shrunk') all[Math.min(1, all.length - 1)]!.remove();
      else if (kind === 'reordered') all.reverse().forEach((e) => list.appendChild(e));
      else if (kind === 'emptied') all.forEach((e) => e.remove());
      else if (kind === 'renamed') rename(all[0]!, ' v2');
      else if (kind === 'sibling list after' || kind === 'sibling list before') {
        const block = document.querySelector(r.block)!;
        const copy = block.cloneNode(true) as Element;
        copy.removeAttribute('data-mut-list');
        copy.querySelectorAll('[data-mut-list]').forEach((e) => e.removeAttribute('data-mut-list'));
        if (copy.hasAttribute('aria-label')) copy.setAttribute('aria-label', 'Other list');
        copy.querySelectorAll(r.item).forEach((e) => rename(e, ' (other)'));
        const heading = document.createElement('h3');
        heading.className = 'mut-added';
        heading.textContent = 'Other list';
        if (kind === 'sibling list after') block.after(heading, copy);
        else block.before(heading, copy);
      } else if (kind === 'controls between') {
        for (const e of all) {
          const tag = e.tagName === 'TR' ? 'tr' : e.tagName === 'LI' ? 'li' : 'div';
          const c = document.createElement(tag);
          c.className = 'mut-added';
          c.innerHTML = `${tag === 'tr' ? '<td>' : ''}<button class="icon" aria-label="More"><i class="material-icons">more_vert</i></button><button aria-label="Hide"><i class="fa fa-eye"></i></button>${tag === 'tr' ? '</td>' : ''}`;
          e.after(c);
        }
      } else if (kind === 'heading renamed') {
        const h = document.querySelector(r.heading.selector)!;
        if (r.heading.attr) h.setAttribute(r.heading.attr, `${h.getAttribute(r.heading.attr)} (this week)`);
        else h.textContent = `${h.textContent} (this week)`;
      } else if (kind === 'content added above') {
        const banner = document.createElement('div');
        banner.className = 'mut-added';
        banner.innerHTML =
          '<div><div><span>Announcement</span></div><div><span>info</span></div></div><ul><li><div><span>help</span></div></li></ul>';
        document.body.prepend(banner);
      }
    },
    { r: { list: read.list, item: read.item, block: read.block, heading: read.heading }, kind },
  );
}
