import { type Bound, type BoundList, type LeafBinding, type ListBinding, type Read, type ReadRows, type ValueForms } from './binding.page';
import { bindLeaf, bindList, readLeaf, readList } from './binding.page';
import { type ExtractArgs, type Extracted, extractText, type MarkedOption, markOption, type MarkOptionArgs } from './read.page';
import { type RawDoc, snapshot, type SnapshotArgs } from './snapshot.page';
import { frameElements, newRefs, type Refs } from './tree.page';

/**
 * The observation's code in the page: one function, `(op, args, refs) => result`, evaluated as one expression per
 * call (`(bundle)(op, args, refs)`, see documents.ts): nothing is installed on the page's window or marked on its
 * elements, and page CSP does not apply to it. What a snapshot lists is kept in `refs` (tree.page.ts), which the
 * node side holds as a DevTools reference and hands to the later operations (element-refs.ts). Bundled by esbuild
 * from these modules (server/page-code/page-bundle.ts).
 *
 * Operations (each on the document it is evaluated in; frames are read one by one, see snapshot.ts):
 *   snapshot       indexed view of the document: interactive elements (role, name, value, states, scope)
 *                  interleaved with visible text and headings, iframes as placeholders; keeps each element in
 *                  refs.el, each readable section in refs.sec, each iframe in refs.frame (snapshot.page.ts)
 *   frameElements  the iframes the snapshot listed (by reference, for CDP)
 *   extractText    visible text of one listed element or section, or of the page, page by page (read.page.ts)
 *   markOption     finds the option to choose in an open listbox and keeps it in refs.opt
 *   bindLeaf       finds where a value of a final answer stands on the page: an anchor (tag, scope, nth) and
 *                  the text around it, checked by reading it back (binding.page.ts)
 *   readLeaf       reads a value back through such a binding
 *   bindList       the same for an array: list container, item signature and per-field paths, checked
 *   readList       reads the items back
 *
 * Accessible names follow the accname rules that matter in practice (aria-labelledby, aria-label, <label>,
 * content, SVG <title>, placeholder, title); roles are explicit or implicit from the tag (roles.page.ts).
 */
export interface DomOps {
  snapshot: (a: SnapshotArgs, refs: Refs) => RawDoc;
  frameElements: (a: { from: number; to: number }, refs: Refs) => (Element | null)[];
  extractText: (a: ExtractArgs, refs: Refs) => Extracted;
  markOption: (a: MarkOptionArgs, refs: Refs) => MarkedOption;
  bindLeaf: (a: ValueForms) => Bound;
  readLeaf: (b: LeafBinding) => Read;
  bindList: (a: { items: (ValueForms | null)[][]; values?: string[]; request?: string }) => BoundList;
  readList: (plan: ListBinding) => ReadRows;
}

export type DomOp = keyof DomOps;

const OPS: DomOps = { snapshot, frameElements, extractText, markOption, bindLeaf, readLeaf, bindList, readList };

/** refs: the references of the document's last snapshot (none: an operation that needs none, or a fresh set). */
export default function agentDom<K extends DomOp>(op: K, args: Parameters<DomOps[K]>[0], refs?: Refs): ReturnType<DomOps[K]> {
  if (!Object.prototype.hasOwnProperty.call(OPS, op)) throw new Error('unknown operation ' + op);
  return (OPS[op] as (a: unknown, r: Refs) => ReturnType<DomOps[K]>)(op === 'snapshot' ? args || {} : args, refs || newRefs());
}
