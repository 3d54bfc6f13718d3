import { type Bound, type BoundList, type LeafBinding, type ListBinding, type Read, type ReadRows, type ValueForms } from './binding.page';
import { bindLeaf, bindList, readLeaf, readList } from './binding.page';
import { type ExtractArgs, type Extracted, extractText, type MarkedOption, markOption, type MarkOptionArgs } from './read.page';
import { type RawDoc, snapshot, type SnapshotArgs } from './snapshot.page';
import { frameElements } from './tree.page';

/**
 * The observation's code in the page: one function, `(op, args) => result`, evaluated as one expression per call
 * (`(bundle)(op, args)`, see documents.ts): nothing is installed on the page's window and page CSP does not apply
 * to it. Bundled by esbuild from these modules (server/page-code/page-bundle.ts).
 *
 * Operations (each on the document it is evaluated in; frames are read one by one, see snapshot.ts):
 *   snapshot       indexed view of the document: interactive elements (role, name, value, states, scope)
 *                  interleaved with visible text and headings, iframes as placeholders; marks each element with
 *                  data-agentlink-idx, each readable section with data-agentlink-sec, each iframe with
 *                  data-agentlink-frame (snapshot.page.ts)
 *   frameElements  the iframes the snapshot marked (by reference, for CDP)
 *   extractText    visible text of one marked element or section, or of the page, page by page (read.page.ts)
 *   markOption     finds the option to choose in an open listbox and marks it with data-agentlink-opt
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
  snapshot: (a: SnapshotArgs) => RawDoc;
  frameElements: (a: { from: number; to: number }) => (Element | null)[];
  extractText: (a: ExtractArgs) => Extracted;
  markOption: (a: MarkOptionArgs) => MarkedOption;
  bindLeaf: (a: ValueForms) => Bound;
  readLeaf: (b: LeafBinding) => Read;
  bindList: (a: { items: (ValueForms | null)[][]; values?: string[]; request?: string }) => BoundList;
  readList: (plan: ListBinding) => ReadRows;
}

export type DomOp = keyof DomOps;

const OPS: DomOps = { snapshot, frameElements, extractText, markOption, bindLeaf, readLeaf, bindList, readList };

export default function agentDom<K extends DomOp>(op: K, args: Parameters<DomOps[K]>[0]): ReturnType<DomOps[K]> {
  if (!Object.prototype.hasOwnProperty.call(OPS, op)) throw new Error('unknown operation ' + op);
  return (OPS[op] as (a: unknown) => ReturnType<DomOps[K]>)(op === 'snapshot' ? args || {} : args);
}
