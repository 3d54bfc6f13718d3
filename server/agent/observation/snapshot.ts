import type { Locator, Page } from 'playwright-core';

import { evaluateIsolated } from '../../browser/isolated-world';
import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageBundle } from '../../page-code/page-bundle';
import { chooseText, MIN_TEXT_CHARS, type WorkLine, type WorkSection } from './budget';
import { type DocTarget, isRetryable, separateTarget, topTarget } from './documents';
import type { DomOp, DomOps } from './dom/agent-dom.page';
import type { RawDoc, RawFrameLine } from './dom/snapshot.page';
import { runApart } from './dom-apart';
import { commitObserved, Observed, observedOf } from './element-refs';
import { Redactor } from './redact';
import type { ObservedElement, PageSnapshot, SnapshotLine } from './types';

export type { ElementStates, ObservedElement, PageSnapshot, SnapshotLine } from './types';

/**
 * Page → compact indexed view (the observation). Built in each document of the page by the DOM script (dom/):
 * interactive elements with role, accessible name, value and states, interleaved with visible text and headings,
 * open shadow roots in place. Iframes are read in place when the run may visit their origin (the egress policy), each in its
 * own document; other frames leave one line naming their host. Index numbers are unique across frames and each
 * element record says which frame it is in (elementLocator finds it there). The text is then chosen to fit
 * (budget.ts), and every string is redacted before it is returned. This module knows nothing of models or prompts.
 *
 * Nothing is marked on the page: what each document listed is held by reference outside it (element-refs.ts), and
 * elementLocator finds an element through that reference.
 *
 * For the tools: a checkbox, radio or switch whose native input cannot take a click carries its index on what a
 * person clicks (its label or wrapper) and says so with `hiddenInput` (see ObservedElement in types.ts); an element
 * in a frame has `frame`, and elementLocator finds it there; a section the text budget cut has `section`.
 */
export interface SnapshotOptions {
  redactor?: Redactor;
  maxElements?: number;
  /** About how many characters the page content (controls and text) may take; text is cut to fit, never below MIN_TEXT_CHARS. */
  maxTextChars?: number;
  /** The run's egress policy: a frame is read only when its URL is one the run may visit. Without it: same origin only. */
  egress?: { checkUrl(url: string, opts?: { pageLocal?: boolean }): { ok: boolean } };
}

/** How deep frames inside frames are read, and how many frames at most. */
const MAX_FRAME_DEPTH = 3;
const MAX_FRAMES = 12;

type OpResult<K extends DomOp> = ReturnType<DomOps[K]>;

/**
 * One operation of the DOM script as a function of one argument, `{ op, args }`, for an isolated world: a stand-in whose
 * text is the function (isolated-world.ts sends `String(fn)`), never called in Node.
 */
const AGENT_DOM_OP = Object.defineProperty(
  (_a: { op: string; args: unknown }): unknown => {
    throw new Error('the DOM script runs in a browser page');
  },
  'toString',
  { value: () => `function (a) { return (${pageBundle(PAGE_ENTRIES.agentDom)})(a.op, a.args); }` },
);

/**
 * Runs one operation of the DOM script on the top document, with no observation's references, riding out a navigation
 * that replaces the document mid-call. In AgentLink's isolated world (isolated-world.ts): the operations that need
 * none (finding where a value shows, for a replay's plan; a page's text before any observation) read the same DOM there,
 * and a site's scripts neither see nor wrap what they call; a replay reads its answer back in that world too.
 */
export async function runDom<K extends DomOp>(page: Page, op: K, args: Parameters<DomOps[K]>[0]): Promise<OpResult<K>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await evaluateIsolated(page, AGENT_DOM_OP, { op, args })) as OpResult<K>;
    } catch (err) {
      if (attempt >= 3 || !isRetryable(err) || page.isClosed()) throw err;
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
    }
  }
}

/** An operation of the DOM script run with a document's references: `(r, a) => agentDom(a.op, a.args, r)`. */
const WITH_REFS = () => `function (r, a) { return (${pageBundle(PAGE_ENTRIES.agentDom)})(a.op, a.args, r); }`;

/**
 * Runs one operation of the DOM script in the document an element is in, with what the latest observation listed
 * there; null when its frame is gone. Before any observation, in the top document with nothing listed.
 */
export async function runDomAt<K extends DomOp>(
  page: Page,
  at: { frame?: readonly number[] },
  op: K,
  args: Parameters<DomOps[K]>[0],
): Promise<OpResult<K> | null> {
  const o = observedOf(page);
  const chain = at.frame ?? [];
  const refs = o?.docs.get(Observed.key(chain));
  if (!refs) return chain.length ? null : runDom(page, op, args);
  if (op === 'extractText' || op === 'markOption') {
    // Out of the page's world where it can (dom-apart.ts); the whole top document's text in AgentLink's own world.
    const apart = await runApart(o!, chain, op as 'extractText' | 'markOption', args as never);
    if (apart) return apart.value as OpResult<K>;
    if (op === 'extractText' && !chain.length && !(args as { index?: number }).index && !(args as { section?: number }).section) {
      return runDom(page, op, args);
    }
  }
  // The option the document's own world finds is its refs.opt[0], which the tool's locator registers afresh.
  if (op === 'markOption') o!.forget(chain, 'opt', 0);
  return refs.call<OpResult<K>>(WITH_REFS(), { op, args });
}

interface Walk {
  page: Page;
  /** Where each document's references go. */
  refs: Observed;
  maxElements: number;
  index: number;
  frame: number;
  framesRead: number;
  dropped: number;
  elements: ObservedElement[];
  sections: Map<string, WorkSection>;
  mayRead: (url: string) => boolean;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host || url.split(/[?#]/)[0]!;
  } catch {
    return url.slice(0, 80);
  }
};

/** One document and, in place, the frames in it. */
async function readDocument(
  w: Walk,
  target: DocTarget,
  chain: number[],
  frame: { scope: string | null; title: string; onScreen: boolean } | null,
): Promise<{ raw: RawDoc; lines: WorkLine[] }> {
  const args: Parameters<DomOps['snapshot']>[0] = {
    maxElements: Math.max(0, w.maxElements - w.elements.length),
    startIndex: w.index,
    frameStart: w.frame,
    listeners: target.listeners,
    ...(frame ? { frameDoc: true, frameTitle: frame.title, baseScope: frame.scope, onScreen: frame.onScreen } : {}),
  };
  const { value: raw, refs } = await target.capture<RawDoc>(PAGE_ENTRIES.agentDom, ['snapshot', args]);
  w.refs.docs.set(Observed.key(chain), refs);
  w.index = raw.next;
  w.frame = raw.nextFrame;
  w.dropped += raw.truncated.elements;
  const key = (id: number) => `${chain.join('.')}/${id}`;
  for (const e of raw.elements) w.elements.push(chain.length ? { ...e, frame: chain } : e);
  for (const s of raw.sections) w.sections.set(key(s.id), { ...s, ...(chain.length ? { frame: chain } : {}) });
  const children =
    raw.frames && chain.length < MAX_FRAME_DEPTH ? await target.children(refs, raw.nextFrame - raw.frames, raw.nextFrame) : [];
  const lines: WorkLine[] = [];
  for (const l of raw.lines) {
    if (l.k === 't') lines.push(l.c ? { ...l, c: key(l.c) } : (l as WorkLine));
    else if (l.k !== 'f') lines.push(l);
    else
      lines.push(
        ...(await readFrame(
          w,
          target,
          chain,
          l,
          children.find((c) => c.k === l.f),
        )),
      );
  }
  return { raw, lines };
}

async function readFrame(
  w: Walk,
  parent: DocTarget,
  chain: number[],
  l: RawFrameLine,
  child: Awaited<ReturnType<DocTarget['children']>>[number] | undefined,
): Promise<WorkLine[]> {
  if (!child || w.framesRead >= MAX_FRAMES) return [];
  const path = [...chain, l.f];
  let found: { url: string; target: DocTarget | null } | null = null;
  if (child.url !== null) found = { url: child.url, target: null };
  else {
    const sep = await separateTarget(w.page, path, w.refs).catch(() => null);
    if (sep) found = sep;
  }
  if (!found) return [];
  // A context's origin when it is a web origin; else (an error page, a sandboxed frame) what its src asked for.
  const where = /^https?:\/\//i.test(found.url) ? found.url : l.u || found.url;
  if (/^about:blank$/i.test(where)) return [];
  if (!w.mayRead(where)) return [{ k: 'frame', host: hostOf(where) }];
  const target = found.target ?? (child.url !== null ? await child.open() : null);
  if (!target) return [];
  w.framesRead++;
  const scope = l.t ? `frame '${l.t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : l.sc;
  try {
    const { lines } = await readDocument(w, target, path, { scope, title: l.t, onScreen: l.v === 1 });
    return l.t ? [{ k: 's', s: scope! }, ...lines] : lines;
  } catch (err) {
    if (w.page.isClosed()) throw err;
    // A frame that navigates or goes away while it is read is left out; the rest of the page still counts.
    return [];
  }
}

function sameOriginAs(top: string): (url: string) => boolean {
  const originOf = (url: string) => {
    try {
      return new URL(url).origin;
    } catch {
      return 'null';
    }
  };
  const origin = originOf(top);
  return (url) => /^about:(blank|srcdoc)/i.test(url) || (origin !== 'null' && originOf(url) === origin);
}

async function observe(page: Page, opts: SnapshotOptions, refs: Observed): Promise<PageSnapshot> {
  const maxElements = opts.maxElements ?? 300;
  const w: Walk = {
    page,
    refs,
    maxElements,
    index: 1,
    frame: 1,
    framesRead: 0,
    dropped: 0,
    elements: [],
    sections: new Map(),
    mayRead: () => false,
  };
  const top = await topTarget(page, refs);
  // The top document decides which frames are the same site; the egress policy, when given, decides instead.
  const egress = opts.egress;
  const topUrl = page.url();
  w.mayRead = egress ? (url) => egress.checkUrl(url, { pageLocal: true }).ok : sameOriginAs(topUrl);
  const { raw, lines } = await readDocument(w, top, [], null);
  // The page content is about maxTextChars: controls first (they are what a model acts on), text in the rest.
  const controlChars = w.elements.reduce((n, e) => n + e.name.length + (e.value?.length ?? 0) + 24, 0);
  const budget = Math.max(MIN_TEXT_CHARS, (opts.maxTextChars ?? 6_000) - controlChars);
  const chosen = chooseText(lines, w.sections, budget, w.index);
  return {
    url: raw.url,
    title: raw.title,
    modal: raw.modal,
    elements: w.elements,
    lines: chosen.lines,
    truncated: { elements: w.dropped, text: chosen.cut },
    ...(chosen.sections.length ? { sections: chosen.sections } : {}),
  };
}

export async function takeSnapshot(page: Page, opts: SnapshotOptions = {}): Promise<PageSnapshot> {
  for (let attempt = 0; ; attempt++) {
    const refs = new Observed();
    try {
      const seen = await observe(page, opts, refs);
      commitObserved(page, refs);
      return redactSnapshot(seen, opts.redactor ?? new Redactor());
    } catch (err) {
      refs.release();
      if (attempt >= 3 || !isRetryable(err) || page.isClosed()) throw err;
      await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
    }
  }
}

function redactSnapshot(s: PageSnapshot, r: Redactor): PageSnapshot {
  const t = (v: string) => r.text(v);
  const element = (e: ObservedElement): ObservedElement => ({
    ...e,
    name: t(e.name),
    scope: e.scope === null ? null : t(e.scope),
    ...(e.value !== undefined ? { value: t(e.value) } : {}),
    ...(e.options ? { options: e.options.map(t) } : {}),
    ...(e.placeholder !== undefined ? { placeholder: t(e.placeholder) } : {}),
    ...(e.error !== undefined ? { error: t(e.error) } : {}),
  });
  const line = (l: SnapshotLine): SnapshotLine => {
    switch (l.k) {
      case 't':
      case 's':
        return { ...l, s: t(l.s) };
      case 'cut':
        return l.where === undefined ? l : { ...l, where: t(l.where) };
      case 'frame':
        return { ...l, host: t(l.host) };
      default:
        return l;
    }
  };
  return {
    url: t(s.url),
    title: t(s.title),
    modal: s.modal,
    truncated: s.truncated,
    elements: s.elements.map(element),
    lines: s.lines.map(line),
    ...(s.sections ? { sections: s.sections.map(element) } : {}),
  };
}

/** An element a snapshot listed (a control, or a section it cut): where it is, through the frames it is in. */
export type ElementRef = Pick<ObservedElement, 'index' | 'frame' | 'section'>;

/**
 * The element the latest observation gave `index` to (valid until the next one), in its frame: a locator that finds
 * it through the reference the observation holds (element-refs.ts); it matches nothing once the element is gone.
 */
export async function elementLocator(page: Page, el: number | ElementRef): Promise<Locator> {
  const ref: ElementRef = typeof el === 'number' ? { index: el } : el;
  const o = observedOf(page) ?? new Observed();
  return o.locate(page, ref.frame ?? [], ref.section ? 'sec' : 'el', ref.section ?? ref.index);
}

/** The option markOption chose, in the frame of the element it was chosen for. */
export async function optionLocator(page: Page, el: ElementRef): Promise<Locator> {
  const o = observedOf(page) ?? new Observed();
  return o.locate(page, el.frame ?? [], 'opt', 0);
}

/** Short human description of an element: "button 'Post'" (used in traces and tool results). */
export function describeElement(e: Pick<ObservedElement, 'role' | 'name'>): string {
  return `${e.role} ${quote(e.name)}`;
}

/** Quotes a page string on one line: a name holding a line break must not start a line of its own. */
export function quote(s: string): string {
  return `'${s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/g, '\\n')}'`;
}

export type ExtractResult = { ok: true; text: string; page: number; pages: number; chars: number } | { ok: false; error: string };

/** Visible text of one element or section (by its record) or of the whole page, redacted, one page of it. */
export async function extractText(
  page: Page,
  at: ElementRef | undefined,
  redactor: Redactor,
  maxChars = 4000,
  pageNo = 1,
): Promise<ExtractResult> {
  const args = { index: at?.section ? undefined : at?.index, section: at?.section, maxChars, page: pageNo };
  const res = await runDomAt(page, at ?? {}, 'extractText', args);
  if (!res) return { ok: false, error: `the frame of element [${at?.index}] is no longer on the page` };
  return res.ok ? { ...res, text: redactor.text(res.text) } : res;
}
