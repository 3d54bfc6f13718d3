import { type LeafBinding, type ListBinding, type Read, readLeaf, readList, type ReadRows } from '../observation/dom/binding.page';
import { type CheckedRead, describeLeaf, type LeafCheck, readCheckedLeaf } from './leaf-check.page';
import { type CheckedRows, describeList, type ListCheck, readCheckedList } from './list-check.page';

/**
 * In the page: the DOM script's binding reads (observation/dom/binding.page.ts), many in one call — a replay's
 * result reads all its leaves and lists with one evaluate instead of one per leaf. A list recorded with its check
 * (list-check.page.ts) is read only after the check passes; `describe` takes a list's check on the recording page.
 * A read that throws answers with its error; the others still count.
 */
export type BindingRead =
  | { leaf: LeafBinding; check?: LeafCheck; list?: undefined; describe?: undefined; describeLeaf?: undefined }
  | { list: ListBinding; check?: ListCheck; describe?: undefined; describeLeaf?: undefined }
  | { describe: ListBinding; list?: undefined; describeLeaf?: undefined }
  | { describeLeaf: LeafBinding; list?: undefined; describe?: undefined };

export type BindingAnswer = Read | ReadRows | CheckedRows | CheckedRead | { ok: true; check: ListCheck | LeafCheck | null };

export default function readBindings(list: BindingRead[]): BindingAnswer[] {
  return list.map((r): BindingAnswer => {
    try {
      if (r.describe) return { ok: true, check: describeList(r.describe) };
      if (r.describeLeaf) return { ok: true, check: describeLeaf(r.describeLeaf) };
      if (r.list) return r.check ? readCheckedList(r.list, r.check) : readList(r.list);
      return r.check ? readCheckedLeaf(r.leaf, r.check) : readLeaf(r.leaf);
    } catch (e) {
      return { ok: false, error: String((e instanceof Error && e.message) || e) };
    }
  });
}
