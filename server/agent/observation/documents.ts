import type { CDPSession, Frame, Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageBundle, type PageEntry } from '../../page-code/page-bundle';
import { callExpression } from '../../page-code/page-function';
import { type Deep, fromDeep } from './deep-value';
import type { DomOp, DomOps } from './dom/agent-dom.page';
import { type CdpRefs, cdpRefs, type DocRefs, handleRefs, type Observed } from './element-refs';

/**
 * Where the observation's page code (dom/agent-dom.page.ts, "the DOM script") runs: each document of the page (the
 * top one and every iframe) in its own main world.
 *
 * Through CDP where we can: `Runtime.evaluate` with `includeCommandLineAPI` gives the script the DevTools
 * `getEventListeners(node)`, the one reliable way to see that a plain element was made clickable by a listener
 * (the DOM itself cannot tell; guessing from class names is what we refuse to do). A listener is only visible
 * from its own context, so each frame is evaluated in its own default context: same-process frames through the
 * session of the process that holds them (contexts learned with Runtime.enable, frames named by
 * DOM.describeNode of their iframe element), out-of-process frames through a session of their own. Where CDP is
 * not available the script runs through Playwright's evaluate, without listener detection.
 *
 * Nothing is left on the page: what a snapshot lists stays in a closure the node side holds by reference
 * (`capture`, element-refs.ts), and the frames are found through those references.
 */

const RETRYABLE =
  /Execution context was destroyed|Cannot find context|Cannot find default execution context|navigat|Target closed|frame was detached|Inspected target navigated/i;

export const isRetryable = (err: unknown): boolean => RETRYABLE.test(String((err as Error)?.message ?? err));

/** The expression that runs one operation of the DOM script (its arguments as JSON: CDP evaluates one expression). */
export const expressionOf = <K extends DomOp>(op: K, args: Parameters<DomOps[K]>[0]) => callExpression(PAGE_ENTRIES.agentDom, op, args);

interface Session {
  cdp: CDPSession;
  /** frameId → its default (main world) execution context and that context's origin, once Runtime.enable ran. */
  contexts: Map<string, { id: number; origin: string }>;
  /**
   * frameId → Playwright's isolated (utility) worlds there, where the tools' locators find elements: a document may
   * have two of that name (one made at its start, one by Playwright on demand), and which one Playwright's selector
   * engine uses is its own affair, so the elements are put in each.
   */
  utility: Map<string, Set<number>>;
  enabling?: Promise<void>;
}

/** A document to run the DOM script in. */
export interface DocTarget {
  /**
   * Runs a `function` entry, `(…args, refs)`, keeping the references it fills outside the page: its result by value
   * and the references held (element-refs.ts).
   */
  capture<T>(entry: PageEntry, args: unknown[]): Promise<{ value: T; refs: DocRefs }>;
  /** Whether the script sees getEventListeners. */
  listeners: boolean;
  /** The iframes the snapshot held in `refs` listed (numbers from..to-1): a target for each, or why not. */
  children(refs: DocRefs, from: number, to: number): Promise<ChildFrame[]>;
}

/** The expression that runs an entry with a fresh references object: `[result, () => refs]` (the closure keeps them). */
function captureExpression(entry: PageEntry, args: unknown[]): string {
  const list = args.map((a) => (a === undefined ? 'undefined' : JSON.stringify(a))).join(', ');
  return `(function () { var r = { el: [], sec: [], frame: [], opt: [] }; return [(${pageBundle(entry)})(${list}${list ? ', ' : ''}r), function () { return r; }]; })()`;
}

let groups = 0;

/** The iframes of refs.frame[from..to-1] as their windows. */
const FRAME_WINDOWS = () =>
  `function (r, a) { return (${pageBundle(PAGE_ENTRIES.agentDom)})('frameElements', a, r).map(function (f) { return f && f.contentWindow; }); }`;

/** A child frame: its URL (or just its origin) and how to read it, or null when only Playwright can find it. */
export type ChildFrame = { k: number; url: string; open: () => Promise<DocTarget | null> } | { k: number; url: null };

const sessions = new WeakMap<Page | Frame, Promise<Session | null>>();

/** The CDP session of a page, or of an out-of-process frame (null for a frame that shares its parent's process). */
function sessionOf(page: Page, owner: Page | Frame): Promise<Session | null> {
  let s = sessions.get(owner);
  if (!s) {
    s = page
      .context()
      .newCDPSession(owner)
      .then(
        (cdp) => ({ cdp, contexts: new Map<string, { id: number; origin: string }>(), utility: new Map<string, Set<number>>() }) as Session,
      )
      .catch(() => {
        // A frame may move to a process of its own when it navigates: only a page's failure is final.
        if (owner !== page) sessions.delete(owner);
        return null;
      });
    sessions.set(owner, s);
  }
  return s;
}

async function enableContexts(s: Session): Promise<void> {
  if (!s.enabling) {
    s.cdp.on('Runtime.executionContextCreated', (e) => {
      const aux = e.context.auxData as { isDefault?: boolean; frameId?: string } | undefined;
      if (aux?.isDefault && aux.frameId) s.contexts.set(aux.frameId, { id: e.context.id, origin: e.context.origin });
      else if (aux?.frameId && e.context.name.startsWith('__playwright_utility_world')) {
        const worlds = s.utility.get(aux.frameId) ?? new Set<number>();
        s.utility.set(aux.frameId, worlds.add(e.context.id));
      }
    });
    s.cdp.on('Runtime.executionContextDestroyed', (e) => {
      for (const [frame, c] of s.contexts) if (c.id === e.executionContextId) s.contexts.delete(frame);
      for (const worlds of s.utility.values()) worlds.delete(e.executionContextId);
    });
    s.cdp.on('Runtime.executionContextsCleared', () => {
      s.contexts.clear();
      s.utility.clear();
    });
    // The events for the contexts that already exist arrive before the reply.
    s.enabling = s.cdp.send('Runtime.enable').then(() => undefined);
  }
  return s.enabling;
}

/** Playwright's utility worlds of the document a context (undefined: the session's top frame) is the main world of. */
async function utilityOf(s: Session, contextId: number | undefined): Promise<number[]> {
  await enableContexts(s);
  let frameId: string | undefined;
  if (contextId === undefined) frameId = (await s.cdp.send('Page.getFrameTree')).frameTree.frame.id;
  else for (const [f, c] of s.contexts) if (c.id === contextId) frameId = f;
  return frameId === undefined ? [] : [...(s.utility.get(frameId) ?? [])];
}

function playwrightTarget(page: Page, frame: Frame, chain: readonly number[], o: Observed): DocTarget {
  return {
    listeners: false,
    capture: async <T>(entry: PageEntry, args: unknown[]) => {
      const holder = await frame.evaluateHandle(captureExpression(entry, args));
      const refs = handleRefs(holder);
      try {
        return { value: (await holder.evaluate((h) => (h as unknown[])[0])) as T, refs };
      } catch (err) {
        refs.release();
        throw err;
      }
    },
    children: async (_refs, from, to) => {
      const out: ChildFrame[] = [];
      for (let k = from; k < to; k++) {
        const child = await o.frame(page, [...chain, k]);
        out.push(child ? { k, url: child.url(), open: async () => playwrightTarget(page, child, [...chain, k], o) } : { k, url: null });
      }
      return out;
    },
  };
}

function cdpTarget(page: Page, s: Session, contextId: number | undefined, chain: readonly number[]): DocTarget {
  return {
    listeners: true,
    capture: async <T>(entry: PageEntry, args: unknown[]) => {
      const group = `agentlink-refs-${++groups}`;
      // Deep serialization gives the result by value and keeps the array by reference, in one round trip.
      const r = await s.cdp.send('Runtime.evaluate', {
        expression: captureExpression(entry, args),
        ...(contextId === undefined ? {} : { contextId }),
        includeCommandLineAPI: true,
        objectGroup: group,
        serializationOptions: { serialization: 'deep', maxDepth: 12 },
      });
      if (r.exceptionDetails) {
        void s.cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => undefined);
        throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      }
      const items = (r.result.deepSerializedValue?.value ?? []) as Deep[];
      const refs = cdpRefs(s.cdp, r.result.objectId!, group, () => utilityOf(s, contextId));
      return { value: fromDeep(items[0] ?? { type: 'undefined' }) as T, refs };
    },
    children: async (refs, from, to) => {
      // The frames' windows, deep-serialized, name their frames (CDP frame ids): one round trip for all of them.
      const [list] = await Promise.all([(refs as CdpRefs).windows(FRAME_WINDOWS(), { from, to }), enableContexts(s)]);
      return Array.from({ length: to - from }, (_, i): ChildFrame => {
        const k = from + i;
        const frameId = list[i]?.type === 'window' ? list[i]!.value?.context : undefined;
        const context = frameId ? s.contexts.get(frameId) : undefined;
        // Not in this process (an out-of-process frame) or not loaded yet: the caller goes through Playwright.
        if (!context) return { k, url: null };
        return { k, url: context.origin, open: async () => cdpTarget(page, s, context.id, [...chain, k]) };
      });
    },
  };
}

/** The top document of a page (o: the observation its frames are found through, when one is being made). */
export async function topTarget(page: Page, o: Observed): Promise<DocTarget> {
  const s = await sessionOf(page, page);
  return s ? cdpTarget(page, s, undefined, []) : playwrightTarget(page, page.mainFrame(), [], o);
}

/** A frame CDP could not place in its parent's process: found through Playwright, with its own session if it has one. */
export async function separateTarget(
  page: Page,
  chain: readonly number[],
  o: Observed,
): Promise<{ url: string; target: DocTarget } | null> {
  const frame = await o.frame(page, chain);
  if (!frame) return null;
  const s = frame.parentFrame() ? await sessionOf(page, frame) : null;
  return { url: frame.url(), target: s ? cdpTarget(page, s, undefined, chain) : playwrightTarget(page, frame, chain, o) };
}
