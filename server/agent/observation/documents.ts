import type { CDPSession, Frame, Page } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { callExpression } from '../../page-code/page-function';
import type { DomOp, DomOps } from './dom/agent-dom.page';

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
 */
export const FRAME_ATTRIBUTE = 'data-agentlink-frame';

const RETRYABLE =
  /Execution context was destroyed|Cannot find context|Cannot find default execution context|navigat|Target closed|frame was detached|Inspected target navigated/i;

export const isRetryable = (err: unknown): boolean => RETRYABLE.test(String((err as Error)?.message ?? err));

/** The expression that runs one operation of the DOM script (its arguments as JSON: CDP evaluates one expression). */
export const expressionOf = <K extends DomOp>(op: K, args: Parameters<DomOps[K]>[0]) => callExpression(PAGE_ENTRIES.agentDom, op, args);

interface Session {
  cdp: CDPSession;
  /** frameId → its default (main world) execution context and that context's origin, once Runtime.enable ran. */
  contexts: Map<string, { id: number; origin: string }>;
  enabling?: Promise<void>;
}

/** A document to run the DOM script in. */
export interface DocTarget {
  /** Evaluates one operation (by value). */
  run<K extends DomOp>(op: K, args: Parameters<DomOps[K]>[0]): Promise<ReturnType<DomOps[K]>>;
  /** Whether the script sees getEventListeners. */
  listeners: boolean;
  /** The iframes the last snapshot of this document marked (numbers from..to-1): a target for each, or why not. */
  children(from: number, to: number): Promise<ChildFrame[]>;
}

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
      .then((cdp) => ({ cdp, contexts: new Map<string, { id: number; origin: string }>() }) as Session)
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
    });
    s.cdp.on('Runtime.executionContextDestroyed', (e) => {
      for (const [frame, c] of s.contexts) if (c.id === e.executionContextId) s.contexts.delete(frame);
    });
    s.cdp.on('Runtime.executionContextsCleared', () => s.contexts.clear());
    // The events for the contexts that already exist arrive before the reply.
    s.enabling = s.cdp.send('Runtime.enable').then(() => undefined);
  }
  return s.enabling;
}

/** The Playwright frame behind a chain of marked iframes (outermost first), or null when one is gone. */
export async function frameOf(page: Page, chain: readonly number[]): Promise<Frame | null> {
  let frame: Frame = page.mainFrame();
  for (const k of chain) {
    const handle = await frame.$(`[${FRAME_ATTRIBUTE}="${k}"]`).catch(() => null);
    if (!handle) return null;
    const child = await handle.contentFrame().catch(() => null);
    await handle.dispose().catch(() => undefined);
    if (!child) return null;
    frame = child;
  }
  return frame;
}

function playwrightTarget(page: Page, frame: Frame, chain: readonly number[]): DocTarget {
  return {
    listeners: false,
    run: async (op, args) => frame.evaluate(expressionOf(op, args)),
    children: async (from, to) => {
      const out: ChildFrame[] = [];
      for (let k = from; k < to; k++) {
        const child = await frameOf(page, [...chain, k]);
        out.push(child ? { k, url: child.url(), open: async () => playwrightTarget(page, child, [...chain, k]) } : { k, url: null });
      }
      return out;
    },
  };
}

function cdpTarget(page: Page, s: Session, contextId: number | undefined, chain: readonly number[]): DocTarget {
  return {
    listeners: true,
    run: async (op, args) => {
      const r = await s.cdp.send('Runtime.evaluate', {
        expression: expressionOf(op, args),
        ...(contextId === undefined ? {} : { contextId }),
        includeCommandLineAPI: true,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value;
    },
    children: async (from, to) => {
      // The frames' windows, deep-serialized, name their frames (CDP frame ids): one round trip for all of them.
      const group = 'agentlink-frames';
      const [list] = await Promise.all([
        s.cdp.send('Runtime.evaluate', {
          expression: `(${expressionOf('frameElements', { from, to })}).map(function (f) { return f && f.contentWindow; })`,
          ...(contextId === undefined ? {} : { contextId }),
          objectGroup: group,
          serializationOptions: { serialization: 'deep', maxDepth: 1 },
        }),
        enableContexts(s),
      ]);
      void s.cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => undefined);
      const items = (list.result.deepSerializedValue?.value ?? []) as { type: string; value?: { context?: string } }[];
      return Array.from({ length: to - from }, (_, i): ChildFrame => {
        const k = from + i;
        const frameId = items[i]?.type === 'window' ? items[i]!.value?.context : undefined;
        const context = frameId ? s.contexts.get(frameId) : undefined;
        // Not in this process (an out-of-process frame) or not loaded yet: the caller goes through Playwright.
        if (!context) return { k, url: null };
        return { k, url: context.origin, open: async () => cdpTarget(page, s, context.id, [...chain, k]) };
      });
    },
  };
}

/** The top document of a page. */
export async function topTarget(page: Page): Promise<DocTarget> {
  const s = await sessionOf(page, page);
  return s ? cdpTarget(page, s, undefined, []) : playwrightTarget(page, page.mainFrame(), []);
}

/** A frame CDP could not place in its parent's process: found through Playwright, with its own session if it has one. */
export async function separateTarget(page: Page, chain: readonly number[]): Promise<{ url: string; target: DocTarget } | null> {
  const frame = await frameOf(page, chain);
  if (!frame) return null;
  const s = frame.parentFrame() ? await sessionOf(page, frame) : null;
  return { url: frame.url(), target: s ? cdpTarget(page, s, undefined, chain) : playwrightTarget(page, frame, chain) };
}
