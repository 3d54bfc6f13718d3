/**
 * In the page (see agent-dom.page.ts): the references the observation keeps to what it listed, text helpers, and the
 * flat tree — open shadow roots and slots, as the page is rendered — with what is shown of it.
 */

/**
 * What the last snapshot (or a replay's narrow search) listed, by number: never marked on the page, where its
 * scripts could read it (issue 36), but held by the node side as a DevTools reference (element-refs.ts) and handed
 * back to each later operation. Sparse arrays: an index is unique across the documents of a page.
 */
export interface Refs {
  /** Elements by index (the tools find them by this). */
  el: Element[];
  /** Readable sections by number (extractText reads them by this). */
  sec: Element[];
  /** Iframes by their number in this document. */
  frame: Element[];
  /** The option markOption found, at 0. */
  opt: Element[];
}

export type RefKind = keyof Refs;

export function newRefs(): Refs {
  return { el: [], sec: [], frame: [], opt: [] };
}

/** Tags whose content is never page text (svg in both spellings: HTML and XML documents). */
export const SKIP: Record<string, 1> = {
  SCRIPT: 1,
  STYLE: 1,
  NOSCRIPT: 1,
  TEMPLATE: 1,
  HEAD: 1,
  META: 1,
  LINK: 1,
  IFRAME: 1,
  FRAME: 1,
  OBJECT: 1,
  EMBED: 1,
  CANVAS: 1,
  svg: 1,
  SVG: 1,
};

/**
 * Element kinds by tag name, not instanceof: an element of a frame's document is not an instance of this
 * window's classes.
 */
export const isInput = (el: Element): el is HTMLInputElement => el.tagName === 'INPUT';
export const isSelect = (el: Element): el is HTMLSelectElement => el.tagName === 'SELECT';
export const isTextArea = (el: Element): el is HTMLTextAreaElement => el.tagName === 'TEXTAREA';
export const isLabel = (el: Element): el is HTMLLabelElement => el.tagName === 'LABEL';
export const isDetails = (el: Element): el is HTMLDetailsElement => el.tagName === 'DETAILS';
export const isFrameElement = (el: Element): el is HTMLIFrameElement => el.tagName === 'IFRAME' || el.tagName === 'FRAME';
export const isElement = (n: Node): n is Element => n.nodeType === 1;
export const isText = (n: Node): n is Text => n.nodeType === 3;
/** An element with a rendered text and a style (HTML, SVG): what the walks read. */
export const asHtml = (el: Element) => el as HTMLElement;

export function norm(s: unknown): string {
  return String(s == null ? '' : s)
    .replace(/[\s\u00a0\u200b]+/g, ' ')
    .trim();
}
/** Rendered text of an element (the answer bindings of replays read values with it). */
export function innerTextOf(el: Element): string {
  return (asHtml(el).innerText || el.textContent || '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}
export function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
}
export function quote(s: string): string {
  return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";
}
export function isSvg(el: Element): boolean {
  return el.namespaceURI === 'http://www.w3.org/2000/svg';
}
export function viewOf(el: Element): Window {
  return (el.ownerDocument && el.ownerDocument.defaultView) || window;
}
export function styleOf(el: Element): CSSStyleDeclaration | null {
  try {
    return viewOf(el).getComputedStyle(el);
  } catch {
    return null;
  }
}
/** The flat tree: an open shadow root is rendered instead of the host's children; a slot shows what is assigned to it. */
export function kidsOf(el: Element): ArrayLike<Node> {
  if (el.shadowRoot) return el.shadowRoot.childNodes;
  if (el.tagName === 'SLOT' && typeof (el as HTMLSlotElement).assignedNodes === 'function') {
    const a = (el as HTMLSlotElement).assignedNodes();
    if (a.length) return a;
  }
  return el.childNodes;
}
export function upOf(n: Element): Element | null {
  return n.assignedSlot || n.parentElement || (n.parentNode && (n.parentNode as ShadowRoot).host) || null;
}
/** IDREFs resolve in the element's own tree (its shadow root), then in its document. */
export function byId(el: Element, id: string): HTMLElement | null {
  const root = el.getRootNode ? (el.getRootNode() as Document | ShadowRoot) : null;
  return (root && root.getElementById && root.getElementById(id)) || el.ownerDocument.getElementById(id);
}
/** Not hidden from people: no aria-hidden or inert above it, displayed, visible, rendered. */
export function shown(el: Element): boolean {
  for (let a: Element | null = el; a && a.nodeType === 1; a = upOf(a)) {
    if (a.getAttribute('aria-hidden') === 'true' || asHtml(a).inert) return false;
  }
  const st = styleOf(el);
  if (!st || st.display === 'none' || st.visibility !== 'visible') return false;
  if (st.display === 'contents') return true;
  if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  return el.getClientRects().length > 0;
}
/** The focused element, through open shadow roots. */
export function activeOf(doc: Document): Element | null {
  let a = doc.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}
/** A referenced element still in its document (a node the page removed since is not acted on). */
export function refOf(refs: Refs, kind: RefKind, n: number | undefined): Element | null {
  const el = n === undefined ? undefined : refs[kind][n];
  return el && el.isConnected ? el : null;
}
/** All matches in a tree and every open shadow root below it (for the rare operations that need it). */
export function deepAll(root: ParentNode, sel: string, out: Element[] = []): Element[] {
  root.querySelectorAll(sel).forEach((e) => out.push(e));
  root.querySelectorAll('*').forEach((e) => {
    if (e.shadowRoot) deepAll(e.shadowRoot, sel, out);
  });
  return out;
}

/** The iframes the last snapshot listed, in frame-number order (returned by reference to the node side). */
export function frameElements(a: { from: number; to: number }, refs: Refs): (Element | null)[] {
  const out: (Element | null)[] = [];
  for (let k = a.from; k < a.to; k++) out.push(refOf(refs, 'frame', k));
  return out;
}
