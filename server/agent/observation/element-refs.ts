import { randomBytes } from 'node:crypto';

import type { CDPSession, ElementHandle, Frame, FrameLocator, JSHandle, Locator, Page } from 'playwright-core';

import { REF_ENGINE, REF_STORE, refSelector, REGISTER_FN, registerRefEngine } from '../../browser/element-ref-engine';
import type { RefKind } from './dom/tree.page';

/**
 * Where the elements an observation listed are kept: outside the page (issue 36). The DOM script keeps what it lists
 * in a references object (dom/tree.page.ts `Refs`) that only a closure of its own holds; the node side holds that
 * closure as a DevTools remote object (or a Playwright handle where CDP is not there), which no script of the page
 * can reach. Later operations get the references back as an argument (`call`); a tool that acts through Playwright
 * gets a locator of the `agentlink-ref` engine, which finds the element in Playwright's isolated world
 * (browser/element-ref-engine.ts), where it is put only when a tool asks (`locate`). Valid until the next
 * observation, as the indexes are.
 */

/** One document's references, as the node side holds them. */
export interface DocRefs {
  /** Runs `fn(refs, args)` (a function's source) in the document's main world; its result by value. */
  call<T>(fn: string, args: unknown): Promise<T>;
  /** Puts refs[kind][n] into Playwright's utility world under `token`; false when it is no longer on the page. */
  register(kind: RefKind, n: number, token: string, gen: number): Promise<boolean>;
  /** Lets go of the references (the next observation replaces them). */
  release(): void;
  /**
   * Runs `fn(element, arg)` (a function's source) on the element registered under `token`, in Playwright's utility
   * world, where the page's scripts see none of it; its result by value. Absent where only Playwright reaches the
   * document (the caller evaluates through the locator, in the page's world, as before).
   */
  evaluate?<T>(token: string, fn: string, arg: unknown): Promise<T>;
  /** As `evaluate`, its result kept in that world by reference (null when it is not an object). */
  evaluateHandle?(token: string, fn: string, arg: unknown): Promise<HeldValue | null>;
  /** Puts a held element (evaluateHandle's) into the utility worlds under `token`, as `register` does a listed one. */
  registerHeld?(held: HeldValue, token: string, gen: number): Promise<boolean>;
}

/** A value kept in the world it was made in (a DevTools remote object), never on the page's window. */
export interface HeldValue {
  /** `fn(value)` (a function's source) where the value is, its result by value. */
  evaluate<T>(fn: string): Promise<T>;
  dispose(): Promise<void>;
  /** Its DevTools remote object, when a DevTools session holds it. */
  readonly objectId?: string;
}

/**
 * Calls the function (source `fn`) on the element registered under a token, in the world it was registered in: the
 * strings 'missing' (not in this world) or 'gone' (left its document), else its result (`held`), or `{ value }`.
 */
const onRegistered = (fn: string, held: boolean) => `async function (token, arg) {
  var s = globalThis.${REF_STORE};
  var el = s && s.m.get(token);
  if (!el) return 'missing';
  if (!el.isConnected) return 'gone';
  var value = await (${fn})(el, arg);
  return ${held ? 'value' : '{ value: value }'};
}`;

/** The function source that returns a referenced element, or null when it left its document. */
const PICK = 'function (r, a) { var e = r[a.k][a.n]; return e && e.isConnected ? e : null; }';

/** References a CDP session holds; `windows` runs `fn(refs, args)` and deep-serializes its result (frames' windows name their frames). */
export interface CdpRefs extends DocRefs {
  windows(fn: string, args: unknown): Promise<{ type: string; value?: { context?: string } }[]>;
  /** The listed elements' browser node ids → their indexes (for audits that compare with the browser's own view). */
  nodes(): Promise<Map<number, number>>;
}

/** References held by a CDP session: `holder` is the remote object `[doc, () => refs]` the capture returned. */
export function cdpRefs(cdp: CDPSession, holder: string, group: string, utilityContexts: () => Promise<number[]>): CdpRefs {
  const onRefs = (fn: string) => `function (a) { return (${fn})(this[1](), a); }`;
  /**
   * `fn(element, arg)` in the first of the document's utility worlds that holds the element (register put it in each):
   * its result by value, or held in that world (`held`).
   */
  const callOnRegistered = async (token: string, fn: string, arg: unknown, held: boolean) => {
    for (const executionContextId of await utilityContexts()) {
      const r = await cdp.send('Runtime.callFunctionOn', {
        executionContextId,
        functionDeclaration: onRegistered(fn, held),
        arguments: [{ value: token }, { value: arg }],
        awaitPromise: true,
        ...(held ? { objectGroup: group } : { returnByValue: true }),
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      if (r.result.type === 'string' && r.result.value === 'missing') continue;
      if (r.result.type === 'string' && r.result.value === 'gone') break;
      return r.result;
    }
    throw new Error('the element is no longer on the page');
  };
  /** The node of a remote object, in each of Playwright's utility worlds of its document, under `token`. */
  const putInUtilityWorlds = async (objectId: string, token: string, gen: number): Promise<boolean> => {
    // The same node in Playwright's isolated world: resolved by the browser's own node id, nothing through the page.
    const [{ node }, contexts] = await Promise.all([cdp.send('DOM.describeNode', { objectId }), utilityContexts()]);
    let put = 0;
    await Promise.all(
      contexts.map(async (executionContextId) => {
        const there = await cdp.send('DOM.resolveNode', { backendNodeId: node.backendNodeId, executionContextId, objectGroup: group });
        if (!there.object.objectId) return;
        await cdp.send('Runtime.callFunctionOn', {
          objectId: there.object.objectId,
          functionDeclaration: REGISTER_FN,
          arguments: [{ value: token }, { value: gen }],
        });
        put++;
      }),
    ).catch(() => undefined);
    return put > 0;
  };
  return {
    nodes: async () => {
      const out = new Map<number, number>();
      const list = await cdp.send('Runtime.callFunctionOn', {
        objectId: holder,
        functionDeclaration: 'function () { var o = {}; this[1]().el.forEach(function (e, i) { o[i] = e; }); return o; }',
        objectGroup: group,
      });
      const props = await cdp.send('Runtime.getProperties', { objectId: list.result.objectId!, ownProperties: true });
      for (const p of props.result) {
        if (p.value?.subtype !== 'node' || !p.value.objectId) continue;
        const { node } = await cdp.send('DOM.describeNode', { objectId: p.value.objectId });
        out.set(node.backendNodeId, Number(p.name));
      }
      return out;
    },
    windows: async (fn, args) => {
      const r = await cdp.send('Runtime.callFunctionOn', {
        objectId: holder,
        functionDeclaration: onRefs(fn),
        arguments: [{ value: args }],
        objectGroup: group,
        serializationOptions: { serialization: 'deep', maxDepth: 1 },
      });
      return (r.result.deepSerializedValue?.value ?? []) as { type: string; value?: { context?: string } }[];
    },
    call: async <T>(fn: string, args: unknown) => {
      const r = await cdp.send('Runtime.callFunctionOn', {
        objectId: holder,
        functionDeclaration: onRefs(fn),
        arguments: [{ value: args }],
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value as T;
    },
    register: async (k, n, token, gen) => {
      const picked = await cdp.send('Runtime.callFunctionOn', {
        objectId: holder,
        functionDeclaration: onRefs(PICK),
        arguments: [{ value: { k, n } }],
        objectGroup: group,
      });
      const objectId = picked.result.subtype === 'node' ? picked.result.objectId : undefined;
      return objectId ? putInUtilityWorlds(objectId, token, gen) : false;
    },
    registerHeld: async (held, token, gen) => (held.objectId ? putInUtilityWorlds(held.objectId, token, gen) : false),
    release: () => void cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => undefined),
    evaluate: async <T>(token: string, fn: string, arg: unknown) =>
      ((await callOnRegistered(token, fn, arg, false)).value as { value: T }).value,
    evaluateHandle: async (token: string, fn: string, arg: unknown) => {
      const { objectId } = await callOnRegistered(token, fn, arg, true);
      return objectId ? heldBy(cdp, objectId) : null;
    },
  };
}

/** A remote object of a CDP session, as a HeldValue. */
function heldBy(cdp: CDPSession, objectId: string): HeldValue {
  return {
    objectId,
    evaluate: async <T>(fn: string) => {
      const r = await cdp.send('Runtime.callFunctionOn', {
        objectId,
        functionDeclaration: `function () { return (${fn})(this); }`,
        awaitPromise: true,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value as T;
    },
    dispose: () => cdp.send('Runtime.releaseObject', { objectId }).then(() => undefined),
  };
}

/** A stand-in page function whose text is `source` (Playwright sends a function's text and calls it with the handle). */
function handleFunction(source: string): (h: unknown, a: unknown) => unknown {
  const fn = () => undefined;
  Object.defineProperty(fn, 'toString', { value: () => `function (h, a) { return (${source})(h[1](), a); }` });
  return fn;
}

/** References held by a Playwright handle (a document CDP could not reach). */
export function handleRefs(holder: JSHandle): DocRefs {
  return {
    call: async <T>(fn: string, args: unknown) => (await holder.evaluate(handleFunction(fn), args)) as T,
    register: async (k, n, token, gen) => {
      const picked = (
        (await holder.evaluateHandle(handleFunction(PICK), { k, n })) as JSHandle<unknown>
      ).asElement() as ElementHandle | null;
      if (!picked) return false;
      // The engine's query registers the element it is asked from (element-ref-engine.ts), in the utility world.
      const found = await picked.$(`${REF_ENGINE}=+${gen}:${token}`).catch(() => null);
      void picked.dispose().catch(() => undefined);
      return !!found;
    },
    release: () => void holder.dispose().catch(() => undefined),
  };
}

let generations = 0;

/** Which reference a locator of `Observed.locate` stands for (element-calls.ts runs functions on it). */
const located = new WeakMap<Locator, { observed: Observed; chain: readonly number[]; kind: RefKind; n: number }>();

/** The observation's reference a locator stands for, or undefined for any other locator. */
export const referenceOf = (loc: Locator) => located.get(loc);

/** The references of one observation of a page, per document (keyed by the chain of frame numbers). */
export class Observed {
  readonly gen = ++generations;
  readonly docs = new Map<string, DocRefs>();
  private readonly tokens = new Map<string, Promise<string | null>>();

  static key(chain: readonly number[]): string {
    return chain.join('.');
  }

  /** A token for refs[kind][n] of the document at `chain`, put into the utility world once (null: gone). */
  token(chain: readonly number[], kind: RefKind, n: number): Promise<string | null> {
    const key = `${Observed.key(chain)}/${kind}${n}`;
    let t = this.tokens.get(key);
    if (!t) {
      const doc = this.docs.get(Observed.key(chain));
      const token = `${this.gen}.${randomBytes(6).toString('hex')}`;
      t = doc
        ? doc.register(kind, n, token, this.gen).then(
            (ok) => (ok ? token : null),
            () => null,
          )
        : Promise.resolve(null);
      this.tokens.set(key, t);
    }
    return t;
  }

  /**
   * Makes the element registered under `token` in one of the document's utility worlds (by an operation run there,
   * dom-apart.ts) refs[kind][n] of this observation, registered in each of those worlds; false where it cannot.
   */
  async adopt(chain: readonly number[], kind: RefKind, n: number, token: string): Promise<boolean> {
    const doc = this.docs.get(Observed.key(chain));
    if (!doc?.evaluateHandle || !doc.registerHeld) return false;
    const held = await doc.evaluateHandle(token, 'function (el) { return el; }', null).catch(() => null);
    if (!held) return false;
    try {
      if (!(await doc.registerHeld(held, token, this.gen).catch(() => false))) return false;
    } finally {
      void held.dispose().catch(() => undefined);
    }
    this.tokens.set(`${Observed.key(chain)}/${kind}${n}`, Promise.resolve(token));
    return true;
  }

  /** Drops the token of refs[kind][n] (its element changed in the document's own references): found again on use. */
  forget(chain: readonly number[], kind: RefKind, n: number): void {
    this.tokens.delete(`${Observed.key(chain)}/${kind}${n}`);
  }

  /** A locator of refs[kind][n] in the document at `chain`, through the iframes of the chain. */
  async locate(page: Page, chain: readonly number[], kind: RefKind, n: number): Promise<Locator> {
    await registerRefEngine();
    let scope: Page | FrameLocator = page;
    for (let i = 0; i < chain.length; i++) scope = scope.frameLocator(refSelector(await this.token(chain.slice(0, i), 'frame', chain[i]!)));
    const loc = scope.locator(refSelector(await this.token(chain, kind, n)));
    located.set(loc, { observed: this, chain, kind, n });
    return loc;
  }

  /**
   * `fn(element, arg)` on refs[kind][n] of the document at `chain`, in Playwright's utility world (DocRefs.evaluate);
   * null where that document's references cannot run it (the caller goes through the locator instead).
   */
  async evaluate<T>(chain: readonly number[], kind: RefKind, n: number, fn: string, arg: unknown): Promise<{ value: T } | null> {
    const doc = this.docs.get(Observed.key(chain));
    if (!doc?.evaluate) return null;
    const token = await this.token(chain, kind, n);
    if (!token) throw new Error('the element is no longer on the page');
    return { value: await doc.evaluate<T>(token, fn, arg) };
  }

  /** As `evaluate`, its result held by reference (`{ held: null }` when it is not an object). */
  async evaluateHandle(
    chain: readonly number[],
    kind: RefKind,
    n: number,
    fn: string,
    arg: unknown,
  ): Promise<{ held: HeldValue | null } | null> {
    const doc = this.docs.get(Observed.key(chain));
    if (!doc?.evaluateHandle) return null;
    const token = await this.token(chain, kind, n);
    if (!token) throw new Error('the element is no longer on the page');
    return { held: await doc.evaluateHandle(token, fn, arg) };
  }

  /**
   * A locator of the element `fn(refs[kind][n], arg)` finds (a control's label, the control a wrapper holds), in the
   * same document, found and registered in Playwright's utility world: null when it finds none; undefined where that
   * document's references cannot do it (the caller goes through an element handle instead).
   */
  async locateFound(
    page: Page,
    at: { chain: readonly number[]; kind: RefKind; n: number },
    fn: string,
    arg: unknown,
  ): Promise<Locator | null | undefined> {
    const doc = this.docs.get(Observed.key(at.chain));
    if (!doc?.evaluateHandle || !doc.registerHeld) return undefined;
    const held = await this.evaluateHandle(at.chain, at.kind, at.n, fn, arg);
    if (!held?.held) return null;
    const token = `${this.gen}.${randomBytes(6).toString('hex')}`;
    try {
      if (!(await doc.registerHeld(held.held, token, this.gen))) return null;
    } finally {
      void held.held.dispose().catch(() => undefined);
    }
    let scope: Page | FrameLocator = page;
    for (let i = 0; i < at.chain.length; i++) {
      scope = scope.frameLocator(refSelector(await this.token(at.chain.slice(0, i), 'frame', at.chain[i]!)));
    }
    return scope.locator(refSelector(token));
  }

  /** The Playwright frame of the chain of iframes (outermost first), or null when one is gone. */
  async frame(page: Page, chain: readonly number[]): Promise<Frame | null> {
    if (!chain.length) return page.mainFrame();
    const loc = await this.locate(page, chain.slice(0, -1), 'frame', chain[chain.length - 1]!);
    if ((await loc.count().catch(() => 0)) === 0) return null;
    const handle = await loc.elementHandle({ timeout: 1_000 }).catch(() => null);
    const frame = handle ? await handle.contentFrame().catch(() => null) : null;
    void handle?.dispose().catch(() => undefined);
    return frame;
  }

  release(): void {
    for (const d of this.docs.values()) d.release();
  }
}

const latest = new WeakMap<Page, Observed>();

/** The page's latest observation (a snapshot, or a replay's narrow search), if any. */
export const observedOf = (page: Page): Observed | undefined => latest.get(page);

/** Makes `o` the page's latest observation; the previous one's references are let go of. */
export function commitObserved(page: Page, o: Observed): void {
  const before = latest.get(page);
  latest.set(page, o);
  if (before && before !== o) before.release();
}

/** The latest observation's elements by browser node id → index (documents read through CDP), for audits. */
export async function listedNodes(page: Page): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const d of observedOf(page)?.docs.values() ?? []) {
    const nodes = 'nodes' in d ? await (d as CdpRefs).nodes().catch(() => null) : null;
    for (const [b, i] of nodes ?? []) out.set(b, i);
  }
  return out;
}
