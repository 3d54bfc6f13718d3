/**
 * In the page: an element inside a list item named by the path of tag names (and places among same-tag siblings)
 * from the item down to it, so the same field is found again in every item (binding.page.ts, list-rule.page.ts).
 */
export function tagPath(from: Element, to: Element): [string, number][] {
  const path: [string, number][] = [];
  for (let e: Element | null = to; e && e !== from; e = e.parentElement) {
    let n = 0;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n++;
    path.unshift([e.tagName.toLowerCase(), n]);
  }
  return path;
}
export function follow(root: Element, path: [string, number][]): Element | null {
  let e: Element | null = root;
  for (let i = 0; e && i < path.length; i++) {
    const want = path[i]![0].toUpperCase();
    let n = path[i]![1];
    let hit: Element | null = null;
    for (let c: Element | null = e.firstElementChild; c; c = c.nextElementSibling)
      if (c.tagName === want && n-- === 0) {
        hit = c;
        break;
      }
    e = hit;
  }
  return e;
}
