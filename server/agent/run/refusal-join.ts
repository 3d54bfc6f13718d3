import type { EgressBlock } from '../../egress/change-gate';
import type { RunIntegrity } from './integrity';
import { type BlockedRequest, fromProxy, type RunMode } from './network-guard';

/**
 * One refusal, told once, with the most the run can know of it. The egress proxy refuses (it is the fence); the page's
 * own view of the same request (network-guard.ts watchRefusals: its frame, kind, method and body) says whether the run
 * caused it. Both see a page's refused request, in either order (the DevTools event and the proxy's connection race):
 *   - the page's report goes on at once: it has the detail (block-cause.ts judges it as before);
 *   - the proxy's report of the same request (same URL; for a refused tunnel the same host and port; for a write read
 *     mode refused the same method and URL) seen within WAIT_MS before or after it is dropped, not listed twice;
 *   - a proxy report no page saw within WAIT_MS (a worker's request, a preconnect's tunnel) goes on as the proxy's, judged
 *     as it always was, by what a tool was doing when the proxy saw it, not when it is told.
 * Before the run is judged, every proxy report still waiting goes on (`flush`): a judgement never waits on a timer, and
 * a report told too early only ever adds the proxy's stricter verdict to the page's.
 */
export const WAIT_MS = 1000;
/** At most this many proxy reports wait at once; more go on at once (a page that floods the fence is judged strictly). */
const WAITING_MAX = 200;

export interface RefusalJoinOptions {
  emit(b: BlockedRequest): void;
  /** Whether a tool acts now (block-cause.ts): kept on a proxy report held back, for the verdict it is told with. */
  acting(): boolean;
  /** Read mode: the page's view names the writes it refuses, so the proxy's write reports wait for it too. */
  joinWrites: boolean;
  waitMs?: number;
  now?: () => number;
}

/** The keys under which the page's view of a request meets the proxy's. */
function pageKeys(b: BlockedRequest): string[] {
  let url: URL;
  try {
    url = new URL(b.url);
  } catch {
    return [];
  }
  url.hash = '';
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const port = url.port || (secure ? '443' : '80');
  const keys = [`url ${url.href}`, `tunnel ${url.hostname}:${port}`];
  if (b.method) keys.push(`write ${b.method.toUpperCase()} ${url.href}`);
  return keys;
}

/** The key of a proxy report, or null when no page can see what it refused (a message, an upstream failure). */
function proxyKey(b: BlockedRequest, joinWrites: boolean): string | null {
  const normal = (text: string): string | null => {
    try {
      const url = new URL(text);
      url.hash = '';
      return url.href;
    } catch {
      return null;
    }
  };
  if (b.proxyKind === 'request') {
    const url = normal(b.url);
    return url ? `url ${url}` : null;
  }
  if (b.proxyKind === 'tunnel') {
    try {
      const url = new URL(`http://${b.url}`);
      return `tunnel ${url.hostname}:${url.port || '80'}`;
    } catch {
      return null;
    }
  }
  if (b.proxyKind === 'write' && joinWrites && !b.heldMessage) {
    const space = b.url.indexOf(' ');
    const url = space > 0 ? normal(b.url.slice(space + 1)) : null;
    return url ? `write ${b.url.slice(0, space).toUpperCase()} ${url}` : null;
  }
  return null;
}

export class RefusalJoin {
  /** When the page last reported a refusal under each key. */
  private readonly pageSeen = new Map<string, number>();
  private readonly waiting = new Map<BlockedRequest, { key: string; timer: NodeJS.Timeout }>();
  private readonly waitMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: RefusalJoinOptions) {
    this.waitMs = opts.waitMs ?? WAIT_MS;
    this.now = opts.now ?? Date.now;
  }

  /** The page's view of a refused request: told at once; the proxy's report of it, waiting or to come, is dropped. */
  readonly page = (b: BlockedRequest): void => {
    const at = this.now();
    this.forget(at);
    for (const key of pageKeys(b)) {
      this.pageSeen.set(key, at);
      for (const [held, w] of this.waiting) {
        if (w.key !== key) continue;
        clearTimeout(w.timer);
        this.waiting.delete(held);
      }
    }
    this.opts.emit(b);
  };

  /** The proxy's refusal: dropped when the page already told it, else held until the page does or WAIT_MS passes. */
  readonly proxy = (b: BlockedRequest): void => {
    const key = proxyKey(b, this.opts.joinWrites);
    if (!key) return this.opts.emit(b);
    const at = this.now();
    this.forget(at);
    if (this.pageSeen.has(key)) return;
    const held: BlockedRequest = { ...b, inAction: this.opts.acting() };
    if (this.waiting.size >= WAITING_MAX) return this.opts.emit(held);
    const timer = setTimeout(() => this.release(held), this.waitMs);
    timer.unref();
    this.waiting.set(held, { key, timer });
  };

  /** Every proxy report still waiting goes on now (before the run is judged). */
  flush(): void {
    for (const held of [...this.waiting.keys()]) this.release(held);
  }

  private release(held: BlockedRequest): void {
    const w = this.waiting.get(held);
    if (!w) return;
    clearTimeout(w.timer);
    this.waiting.delete(held);
    this.opts.emit(held);
  }

  /** The page's reports older than WAIT_MS explain nothing any more (a later request to the same place is its own). */
  private forget(at: number): void {
    for (const [key, seen] of this.pageSeen) if (at - seen > this.waitMs) this.pageSeen.delete(key);
  }
}

/**
 * Where a run's refusals go (run-session.ts, and the test rigs that stand in for it): the egress proxy's (`proxy`, its
 * `onBlocked`) and the page's view of them (`page`, watchRefusals' `report`), joined, told to `report`; those still
 * waiting told before `integrity` judges the run.
 */
export function refusalReports(
  report: (b: BlockedRequest) => void,
  integrity: RunIntegrity,
  mode: RunMode | undefined,
): { proxy: (b: EgressBlock) => void; page: (b: BlockedRequest) => void } {
  const join = new RefusalJoin({ emit: report, acting: () => integrity.causes.actingNow(), joinWrites: mode === 'read' });
  integrity.beforeJudging(() => join.flush());
  return { proxy: (b) => join.proxy(fromProxy(b)), page: join.page };
}
