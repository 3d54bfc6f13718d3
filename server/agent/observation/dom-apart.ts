import { randomBytes } from 'node:crypto';

import { REGISTER_FN } from '../../browser/element-ref-engine';
import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageBundle } from '../../page-code/page-bundle';
import type { DomOp, DomOps } from './dom/agent-dom.page';
import type { RefKind } from './dom/tree.page';
import type { Observed } from './element-refs';

/**
 * The DOM script's operations on an element the observation listed, run in Playwright's utility world where the tools'
 * reads already run (element-calls.ts; issue 36): reading an element's or a section's text (extract_text) and finding
 * the option to choose in an open list (the select tool) call nothing a page's script could wrap and record. The
 * operation gets a references object holding only the element it is about; the option it finds is registered in the
 * utility worlds as the option reference (`opt` 0), where the tool's locator finds it.
 *
 * Not every call can: a document only Playwright reaches, an element gone from the page, an operation about no
 * element (the option list of the whole document). Then `runApart` answers null and the caller runs the operation in
 * the document's own world with the observation's references, as before, where the same code gives the same answer.
 */

type ApartOp = Extract<DomOp, 'extractText' | 'markOption'>;
type Result<K extends ApartOp> = ReturnType<DomOps[K]>;

/** `(el, a)`: the operation on references holding `el` alone; a found option registered under `a.optToken`. */
const ON_ELEMENT = () => `function (el, a) {
  var r = { el: [], sec: [], frame: [], opt: [] };
  r[a.k][a.n] = el;
  var out = (${pageBundle(PAGE_ENTRIES.agentDom)})(a.op, a.args, r);
  if (a.optToken && out && out.ok && r.opt[0]) (${REGISTER_FN}).call(r.opt[0], a.optToken, a.gen);
  return out;
}`;

/** The reference an operation is about: the listed element, or else the section; none for the whole document. */
function pickOf(args: { index?: number; section?: number }): { k: RefKind; n: number } | null {
  if (args.index) return { k: 'el', n: args.index };
  if ('section' in args && args.section) return { k: 'sec', n: args.section };
  return null;
}

export async function runApart<K extends ApartOp>(
  o: Observed,
  chain: readonly number[],
  op: K,
  args: Parameters<DomOps[K]>[0],
): Promise<{ value: Result<K> } | null> {
  const pick = pickOf(args);
  if (!pick) return null;
  const optToken = op === 'markOption' ? `${o.gen}.${randomBytes(6).toString('hex')}` : undefined;
  const arg = { op, args, k: pick.k, n: pick.n, optToken, gen: o.gen };
  let res: { value: Result<K> } | null;
  try {
    res = await o.evaluate<Result<K>>(chain, pick.k, pick.n, ON_ELEMENT(), arg);
  } catch {
    return null; // gone, or a world that could not run it: the document's own world answers as it always did
  }
  if (!res || !optToken || !res.value.ok) return res;
  // The option goes into each of the document's utility worlds (the tool's locator may use either), then is the
  // observation's option reference. Where it cannot, the document's own world finds it again.
  if (await o.adopt(chain, 'opt', 0, optToken)) return res;
  o.forget(chain, 'opt', 0);
  return null;
}
