import { DOM_BINDING_PART } from './dom-binding.part';
import { DOM_READ_PART } from './dom-read.part';
import { DOM_SNAPSHOT_PART } from './dom-snapshot.part';

/**
 * The code that runs inside the page. It is kept as source text and evaluated as one expression per call
 * (`(source)(op, args)`): nothing is installed on the page's window, page CSP does not apply to it, and no
 * transpiler helper (tsx's `__name`) can leak into it. Plain ES2019, no template literals.
 *
 * Operations (each on the document it is evaluated in; frames are read one by one, see snapshot.ts):
 *   snapshot       indexed view of the document: interactive elements (role, name, value, states, scope)
 *                  interleaved with visible text and headings, iframes as placeholders; marks each element with
 *                  data-agentlink-idx, each readable section with data-agentlink-sec, each iframe with
 *                  data-agentlink-frame
 *   frameElements  the iframes the snapshot marked (by reference, for CDP)
 *   extractText    visible text of one marked element or section, or of the page, page by page
 *   markOption     finds the option to choose in an open listbox and marks it with data-agentlink-opt
 *   bindLeaf       finds where a value of a final answer stands on the page: an anchor (tag, scope, nth) and
 *                  the text around it, checked by reading it back
 *   readLeaf       reads a value back through such a binding
 *   bindList       the same for an array: list container, item signature and per-field paths, checked
 *   readList       reads the items back
 *
 * Accessible names follow the accname rules that matter in practice (aria-labelledby, aria-label, <label>,
 * content, SVG <title>, placeholder, title); roles are explicit or implicit from the tag.
 *
 * Assembled from the source parts (the snapshot with the shared helpers; reading; answer bindings for replays)
 * into one function in the page.
 */
export const DOM_SCRIPT = String.raw`function agentlinkDom(op, args) {
'use strict';
${DOM_SNAPSHOT_PART}
${DOM_READ_PART}
${DOM_BINDING_PART}
switch (op) {
  case 'snapshot': return snapshot(args || {});
  case 'frameElements': return frameElements(args);
  case 'extractText': return extractText(args);
  case 'markOption': return markOption(args);
  case 'bindLeaf': return bindLeaf(args);
  case 'readLeaf': return readLeaf(args);
  case 'bindList': return bindList(args);
  case 'readList': return readList(args);
}
throw new Error('unknown operation ' + op);
}`;
