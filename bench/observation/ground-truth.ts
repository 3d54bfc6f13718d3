import type { CDPSession, Page } from 'playwright-core';

import { listedNodes, type PageSnapshot } from '../../server/agent/observation';

/**
 * The controls a person can see and operate on a page, found WITHOUT the observation (the ground truth the
 * observation is measured against), from what Chromium itself knows, through CDP:
 *   - Accessibility.getFullAXTree: every non-ignored node with an interactive role (button, link, checkbox, textbox,
 *     combobox, date and time inputs …) whose element is rendered; a checkbox or radio also when only its label is
 *     (the input hidden behind a styled label);
 *   - DOMSnapshot.captureSnapshot's isClickable (Chromium's own "responds to mouse clicks": click, mousedown or mouseup
 *     listeners, links, form controls): rendered elements clickable by a listener only, the innermost of nested ones,
 *     that are not a container of controls already counted and not a page-sized backdrop;
 *   - labels standing for a checkbox or radio that has no node of its own in the accessibility tree (display: none);
 *   - what a page declares as its controls (data-interactive, the breadth corpus: targets of delegated listeners).
 * A nameless link to the same place as a named one (an avatar beside the name) counts once, as the named one. While
 * a modal dialog is open (aria-modal or a modal <dialog>), only what is in it can be operated, so only that counts.
 * Shadow roots are walked (DOMSnapshot flattens them; the accessibility tree follows the flat tree), frames too: the
 * same-process ones in the page's own snapshot, each out-of-process frame through a CDP session of its own. Browser
 * internals (the user-agent shadow root of a date input) are not the page's controls.
 *
 * Then each control is looked up among what the observation listed (by the browser's node id: the element, its
 * label or input, or a descendant close below): listed, and named when the observation's element has a name.
 */
export interface AuditedControl {
  role: string;
  name: string;
  /** Origin of the frame it is in. */
  frame: string;
  listed: boolean;
  named: boolean;
}

export interface ControlAudit {
  controls: AuditedControl[];
  present: number;
  listed: number;
  named: number;
}

const ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'treeitem',
  'Date',
  'DateTime',
  'InputTime',
  'ColorWell',
]);
const CHECKABLE = new Set(['checkbox', 'radio', 'switch']);
/** Elements whose clickability the accessibility tree already accounts for. */
const NATIVE = new Set(['A', 'AREA', 'BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'LABEL', 'SUMMARY', 'HTML', 'BODY']);
/** What a page of the breadth corpus (test/fixtures/breadth/) marks each of its controls with. */
const DECLARED_ATTRIBUTE = 'data-interactive';
/** How far below a control the observation may have put its index (a listener on a row, the index on its first cell). */
const DESCENDANT_DEPTH = 3;

interface RareData<T> {
  index: number[];
  value?: T[];
}
interface DocumentSnapshot {
  documentURL: number;
  frameId: number;
  nodes: {
    parentIndex: number[];
    nodeType: number[];
    nodeName: number[];
    nodeValue: number[];
    backendNodeId: number[];
    attributes: number[][];
    shadowRootType?: RareData<number>;
    isClickable?: RareData<never>;
  };
  layout: { nodeIndex: number[]; styles: number[][]; bounds: number[][] };
}
interface Snapshot {
  documents: DocumentSnapshot[];
  strings: string[];
}
interface AxNode {
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  properties?: { name: string; value: { value?: unknown } }[];
  backendDOMNodeId?: number;
}

/** One document of a DOMSnapshot, with the questions the audit asks of it. */
class Doc {
  readonly n: number;
  readonly url: string;
  readonly frameId: string;
  private readonly layoutOf = new Map<number, number>();
  private readonly byBackend = new Map<number, number>();
  /** Each node's browser node id. */
  readonly backend: number[];
  private readonly attrs: Map<string, string>[];
  private readonly uaShadow: boolean[];
  readonly clickable: Set<number>;
  readonly children: number[][];

  constructor(
    private readonly d: DocumentSnapshot,
    private readonly s: string[],
    private readonly viewport: { width: number; height: number },
  ) {
    const nodes = d.nodes;
    this.n = nodes.parentIndex.length;
    this.url = s[d.documentURL] ?? '';
    this.frameId = s[d.frameId] ?? '';
    d.layout.nodeIndex.forEach((node, li) => this.layoutOf.set(node, li));
    nodes.backendNodeId.forEach((b, i) => this.byBackend.set(b, i));
    this.backend = nodes.backendNodeId;
    this.attrs = nodes.attributes.map((a) => {
      const m = new Map<string, string>();
      for (let k = 0; k + 1 < a.length; k += 2) m.set(s[a[k]!]!, s[a[k + 1]!] ?? '');
      return m;
    });
    this.children = Array.from({ length: this.n }, () => []);
    nodes.parentIndex.forEach((p, i) => p >= 0 && this.children[p]!.push(i));
    const ua = new Set<number>();
    nodes.shadowRootType?.index.forEach((node, k) => s[nodes.shadowRootType!.value![k]!] === 'user-agent' && ua.add(node));
    this.uaShadow = [];
    for (let i = 0; i < this.n; i++) {
      const p = nodes.parentIndex[i]!;
      this.uaShadow[i] = ua.has(i) || (p >= 0 && p < i && !!this.uaShadow[p]);
    }
    this.clickable = new Set(nodes.isClickable?.index ?? []);
  }

  tag = (i: number) => (this.s[this.d.nodes.nodeName[i]!] ?? '').toUpperCase();
  attr = (i: number, name: string) => this.attrs[i]?.get(name);
  parent = (i: number) => this.d.nodes.parentIndex[i]!;
  node = (backend: number) => this.byBackend.get(backend);
  internal = (i: number) => !!this.uaShadow[i];

  /** Laid out with an area, visible, not transparent itself, not parked off the page. */
  rendered(i: number): boolean {
    const li = this.layoutOf.get(i);
    if (li === undefined) return false;
    const [x, y, w, h] = this.d.layout.bounds[li]!;
    const [visibility, opacity] = this.d.layout.styles[li]!.map((k) => this.s[k]);
    return w! * h! > 0 && visibility === 'visible' && opacity !== '0' && x! + w! > 0 && y! + h! > 0;
  }

  /** Larger than half the viewport: a backdrop or a page-wide container, not a control. */
  huge(i: number): boolean {
    const li = this.layoutOf.get(i);
    const b = li === undefined ? undefined : this.d.layout.bounds[li];
    return !!b && b[2]! * b[3]! > 0.5 * this.viewport.width * this.viewport.height;
  }

  ancestors(i: number): number[] {
    const out: number[] = [];
    for (let p = this.parent(i); p >= 0; p = this.parent(p)) out.push(p);
    return out;
  }

  descendants(i: number, depth: number): number[] {
    const out: number[] = [];
    const walk = (j: number, d: number) => {
      for (const c of this.children[j]!) {
        out.push(c);
        if (d > 1) walk(c, d - 1);
      }
    };
    walk(i, depth);
    return out;
  }

  text(i: number): string {
    const parts: string[] = [];
    const walk = (j: number) => {
      if (this.d.nodes.nodeType[j] === 3) parts.push(this.s[this.d.nodes.nodeValue[j]!] ?? '');
      for (const c of this.children[j]!) walk(c);
    };
    walk(i);
    return parts.join(' ').replace(/\s+/g, ' ').trim().slice(0, 60);
  }

  /** Labels of a form control: <label for=id> in the document, or a <label> around it. */
  labelsOf(i: number): number[] {
    const id = this.attr(i, 'id');
    const out: number[] = [];
    if (id) for (let j = 0; j < this.n; j++) if (this.tag(j) === 'LABEL' && this.attr(j, 'for') === id) out.push(j);
    const around = this.ancestors(i).find((a) => this.tag(a) === 'LABEL');
    if (around !== undefined) out.push(around);
    return out;
  }

  /** The checkbox or radio a label stands for. */
  controlOf(label: number): number | undefined {
    const f = this.attr(label, 'for');
    const isCheck = (j: number) => this.tag(j) === 'INPUT' && /^(checkbox|radio)$/i.test(this.attr(j, 'type') ?? '');
    if (f) {
      for (let j = 0; j < this.n; j++) if (this.attr(j, 'id') === f) return isCheck(j) ? j : undefined;
      return undefined;
    }
    return this.descendants(label, 6).find(isCheck);
  }
}

async function sessionsOf(page: Page): Promise<CDPSession[]> {
  const sessions = [await page.context().newCDPSession(page)];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    // Only an out-of-process frame has a session of its own; the others are in the page's snapshot.
    const s = await page
      .context()
      .newCDPSession(frame)
      .catch(() => null);
    if (s) sessions.push(s);
  }
  return sessions;
}

export async function auditControls(page: Page, snapshot: PageSnapshot): Promise<ControlAudit> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  const names = new Map(snapshot.elements.map((e) => [String(e.index), e.name.trim()]));
  const listed = await listedNodes(page);
  const controls: (AuditedControl & { node: number })[] = [];
  let modalOpen = false;
  const sessions = await sessionsOf(page);
  try {
    for (const [k, session] of sessions.entries()) {
      const snap = (await session.send('DOMSnapshot.captureSnapshot', {
        computedStyles: ['visibility', 'opacity'],
      })) as unknown as Snapshot;
      for (const [d, raw] of snap.documents.entries()) {
        const doc = new Doc(raw, snap.strings, viewport);
        if (!/^https?:/.test(doc.url)) continue; // error pages of refused frames, blank frames
        const ax = (await session.send('Accessibility.getFullAXTree', { frameId: doc.frameId }).catch(() => ({ nodes: [] }))) as {
          nodes: AxNode[];
        };
        const found = controlsOf(doc, ax.nodes, names, listed);
        const top = k === 0 && d === 0;
        // An open modal dialog on the page (aria-modal, a modal <dialog>): only what is in it can be operated.
        const modal = top ? modalOf(doc, ax.nodes) : undefined;
        if (modal !== undefined) modalOpen = true;
        if (!top && modalOpen) continue;
        controls.push(...(modal === undefined ? found : found.filter((c) => c.node === modal || doc.ancestors(c.node).includes(modal))));
      }
    }
  } finally {
    await Promise.all(sessions.map((s) => s.detach().catch(() => undefined)));
  }
  return {
    controls: controls.map(({ node: _node, ...c }) => c),
    present: controls.length,
    listed: controls.filter((c) => c.listed).length,
    named: controls.filter((c) => c.named).length,
  };
}

/** The open modal dialog of a document (its node), when there is one. */
function modalOf(doc: Doc, ax: AxNode[]): number | undefined {
  for (const a of ax) {
    if (a.ignored || !/^(dialog|alertdialog)$/.test(a.role?.value ?? '') || a.backendDOMNodeId === undefined) continue;
    if (!a.properties?.some((p) => p.name === 'modal' && p.value.value === true)) continue;
    const i = doc.node(a.backendDOMNodeId);
    if (i !== undefined && doc.rendered(i)) return i;
  }
  return undefined;
}

function controlsOf(
  doc: Doc,
  ax: AxNode[],
  names: Map<string, string>,
  listed: Map<number, number>,
): (AuditedControl & { node: number })[] {
  const frame = new URL(doc.url).origin;
  const out: (AuditedControl & { node: number })[] = [];
  const counted = new Set<number>();
  const mark = (i: number) => {
    const idx = listed.get(doc.backend[i]!);
    return idx === undefined ? undefined : String(idx);
  };
  const result = (node: number, role: string, name: string, marks: (string | undefined)[]) => {
    const idx = marks.find((m) => m !== undefined);
    return { node, role, name, frame, listed: idx !== undefined, named: idx !== undefined && !!names.get(idx) };
  };
  const near = (i: number) => [mark(i), ...doc.descendants(i, DESCENDANT_DEPTH).map(mark)];

  // Interactive roles of the accessibility tree. A nameless link to where a named link goes (the avatar beside a
  // person's name) is the same control twice: counted once, by its named twin.
  const namedHrefs = new Set<string>();
  for (const a of ax) {
    const i = a.backendDOMNodeId === undefined ? undefined : doc.node(a.backendDOMNodeId);
    const href = i === undefined ? undefined : doc.attr(i, 'href');
    if (!a.ignored && a.role?.value === 'link' && a.name?.value && href) namedHrefs.add(href);
  }
  for (const a of ax) {
    const role = a.role?.value ?? '';
    if (a.ignored || !ROLES.has(role) || a.backendDOMNodeId === undefined) continue;
    const i = doc.node(a.backendDOMNodeId);
    if (i === undefined || doc.internal(i) || counted.has(i)) continue;
    if (role === 'link' && !a.name?.value && namedHrefs.has(doc.attr(i, 'href') ?? '')) continue;
    const labels = CHECKABLE.has(role) ? doc.labelsOf(i) : [];
    if (!doc.rendered(i) && !labels.some((l) => doc.rendered(l))) continue;
    counted.add(i);
    labels.forEach((l) => counted.add(l));
    out.push(result(i, role, a.name?.value ?? '', [...near(i), ...labels.map(mark)]));
  }
  // Labels standing for an input that has no node of its own.
  for (const l of doc.clickable) {
    if (doc.tag(l) !== 'LABEL' || counted.has(l) || !doc.rendered(l)) continue;
    const input = doc.controlOf(l);
    if (input === undefined || counted.has(input)) continue;
    counted.add(l);
    counted.add(input);
    out.push(result(l, (doc.attr(input, 'type') ?? 'checkbox').toLowerCase(), doc.text(l), [...near(l), mark(input)]));
  }
  // The page's own list of its controls (the breadth corpus marks each with data-interactive="<role>"): a target of a
  // delegated listener has no listener of its own, so neither the accessibility tree nor Chromium's bit knows it.
  for (let i = 0; i < doc.n; i++) {
    const role = doc.attr(i, DECLARED_ATTRIBUTE);
    if (role === undefined || counted.has(i) || doc.internal(i) || !doc.rendered(i)) continue;
    counted.add(i);
    out.push(result(i, role || 'clickable', doc.text(i), near(i)));
  }
  // Elements clickable only by a listener: the innermost, not containers of counted controls, not backdrops.
  const candidates = [...doc.clickable].filter(
    (i) => !NATIVE.has(doc.tag(i)) && !counted.has(i) && !doc.internal(i) && doc.rendered(i) && !doc.huge(i),
  );
  const inside = (i: number) => doc.ancestors(i);
  const containers = new Set<number>();
  for (const i of [...candidates, ...counted]) for (const a of inside(i)) containers.add(a);
  for (const i of candidates) {
    if (containers.has(i) || inside(i).some((a) => counted.has(a))) continue;
    out.push(result(i, 'clickable', doc.text(i), near(i)));
  }
  return out;
}
