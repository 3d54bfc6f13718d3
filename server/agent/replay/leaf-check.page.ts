import { elementsFor, type LeafBinding, type Read, readFrom } from '../observation/dom/binding.page';
import { pathOf } from './list-check.page';

/**
 * In the page: a recorded leaf of an answer (one value, found by its element's tag, scope and place) keeps the
 * ancestry of that element (tag, role, id up to the body), and a replay reads the value only from an element that
 * still has it. When the page grew elsewhere, the element at the recorded place is another one: the value is read
 * from the one element of that ancestry whose text still reads around it, or not at all (list-check.page.ts does
 * the same for lists).
 */
export interface LeafCheck {
  path: string[];
}

export type CheckedRead = Read | { ok: false; error: string; mismatch: true };

export function describeLeaf(b: LeafBinding): LeafCheck | null {
  const el = elementsFor(b.anchor)[b.anchor.nth];
  return el ? { path: pathOf(el) } : null;
}

export function readCheckedLeaf(b: LeafBinding, check: LeafCheck): CheckedRead {
  const key = check.path.join('>');
  const els = elementsFor(b.anchor);
  const at = els[b.anchor.nth];
  if (at && pathOf(at).join('>') === key) return readFrom(at, b);
  const reads = els.filter((e) => pathOf(e).join('>') === key).map((e) => readFrom(e, b));
  const good = reads.filter((r) => r.ok);
  if (good.length === 1) return good[0]!;
  return {
    ok: false,
    mismatch: true,
    error:
      good.length > 1
        ? good.length +
          ' elements on the page could hold the value (' +
          check.path.slice(0, 3).join(' < ') +
          '); which one was recorded is not clear'
        : 'the element that held the value (' + check.path.slice(0, 3).join(' < ') + ') is not on the page',
  };
}
