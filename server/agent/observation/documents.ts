import type { CDPSession, Frame, Page } from 'playwright-core';

import { DOM_SCRIPT } from './dom-script';

/**
 * Where DOM_SCRIPT runs: each document of the page (the top one and every iframe) in its own main world.
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

export const expressionOf = (op: string, args: unknown) => `(${DOM_SCRIPT})(${JSON.stringify(op)}, ${JSON.stringify(args)})`;

interface Session {
  cdp: CDPSession;
  /** frameId → its default (main world) execution context and that context's origin, once Runtime.enable ran. */
  contexts: Map<string, { id: number; origin: string }>;
  enabling?: Promise<void>;
}

/** A document to run DOM_SCRIPT in. */
export interface DocTarget {
  /** Evaluates one operation (by value). */
  run<T>(op: string, args: unknown): Promise<T>;
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
    run: async <T>(op: string, args: unknown) => (await frame.evaluate(expressionOf(op, args))) as T,
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
    run: async <T>(op: string, args: unknown) => {
      const r = await s.cdp.send('Runtime.evaluate', {
        expression: expressionOf(op, args),
        ...(contextId === undefined ? {} : { contextId }),
        includeCommandLineAPI: true,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value as T;
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
