import { type LeafBinding, type ListBinding, type Read, readLeaf, readList, type ReadRows } from '../observation/dom/binding.page';

/**
 * In the page: the DOM script's binding reads (observation/dom/binding.page.ts), many in one call — a replay's
 * result reads all its leaves and lists with one evaluate instead of one per leaf. A read that throws answers
 * with its error; the others still count.
 */
export type BindingRead = { leaf: LeafBinding; list?: undefined } | { list: ListBinding };

export default function readBindings(list: BindingRead[]): (Read | ReadRows)[] {
  return list.map((r) => {
    try {
      return r.list ? readList(r.list) : readLeaf(r.leaf);
    } catch (e) {
      return { ok: false, error: String((e instanceof Error && e.message) || e) };
    }
  });
}
