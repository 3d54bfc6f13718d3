import type { EgressBlock } from '../../egress/change-gate';
import type { RunIntegrity } from './integrity';
import { type BlockedRequest, fromProxy, type RunMode } from './network-guard';

/**
 * One refusal, told once, with the most the run can know of it. The egress proxy refuses (it is the fence); the page's
 * own view of the same request (network-guard.ts watchRefusals: its frame, kind, method and body) says whether the run
 * caused it. Both see a page's refused request, in either order (the DevTools event and the proxy's connection race):
 *   - the page's report goes on at once: it has the detail (block-cause.ts judges it as before);
 *   - it explains the proxy's refusals of that request within WAIT_MS before or after it: the same method and URL (the
 *     request and Chromium's retries of it, EXPLAINS), or for a refused tunnel the same host and port (one, and a
 *     preconnect's), or for a write read mode refused the same method and URL: those are not listed twice. Counted, so a
 *     page's own image never explains away a run of other realms' requests (a shared worker's) to the same host;
 *   - when the proxy saw the request while a tool acted and the page's report was judged otherwise, it is judged again
 *     as sent while a tool acted (the stricter of the two moments);
 *   - a proxy report no page explained within WAIT_MS (a worker's request, a preconnect's tunnel) goes on as the proxy's,
 *     judged as it always was, by what a tool was doing when the proxy saw it, not when it is told.
 * A redirect hop the page saw explains nothing: the proxy's report of it is judged on its own, as before.
 * Before the run is judged, every proxy report still waiting goes on (`flush`): a judgement never waits on a timer, and
 * a report told too early only ever adds the proxy's stricter verdict to the page's.
 */
export const WAIT_MS = 1000;
/** At most this many proxy reports wait at once, and page reports stand to explain them; more go on unjoined. */
const WAITING_MAX = 200;
const EXPLAINING_MAX = 1000;
/**
 * How many proxy refusals of each kind one page report explains. A refused request is closed on (a network error), and
 * Chromium sends it again while it has reused connections to try (up to its pool of proxy connections): the same
 * method and URL, again. A refused tunnel is not retried: one, and a preconnect's before it.
 */
const EXPLAINS = { url: 8, write: 8, tunnel: 2 } as const;
type KeyKind = keyof typeof EXPLAINS;
const kindOf = (key: string) => key.slice(0, key.indexOf(' ')) as KeyKind;
/** Reports carry URLs cut to this length (egress-proxy.ts): keys are compared on the same cut. */
const URL_KEPT = 300;

export interface RefusalJoinOptions {
  emit(b: BlockedRequest): void;
  /** Whether a tool acts now (block-cause.ts): kept on a proxy report held back, for the verdict it is told with. */
  acting(): boolean;
  /** Read mode: the page's view names the writes it refuses, so the proxy's write reports wait for it too. */
  joinWrites: boolean;
  waitMs?: number;
  now?: () => number;
}

/** A page report standing to explain the proxy's refusals of the same request. */
interface Explanation {
  report: BlockedRequest;
  keys: string[];
  at: number;
  left: Record<KeyKind, number>;
  inAction: boolean;
}

interface Held {
  report: BlockedRequest;
  key: string;
  timer: NodeJS.Timeout;
}

const normalUrl = (text: string): string | null => {
  try {
    const url = new URL(text);
    url.hash = '';
    url.username = '';
    url.password = '';
    return url.href.slice(0, URL_KEPT);
  } catch {
    return null;
  }
};

/** The keys under which the page's view of a request meets the proxy's. */
function pageKeys(b: BlockedRequest): string[] {
  const href = normalUrl(b.url);
  if (!href) return [];
  const url = new URL(b.url);
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const method = (b.method ?? 'GET').toUpperCase();
  return [`url ${method} ${href}`, `tunnel ${url.hostname}:${url.port || (secure ? '443' : '80')}`, `write ${method} ${href}`];
}

/** The key of a proxy report, or null when no page can see what it refused (a message, an upstream failure). */
function proxyKey(b: BlockedRequest, joinWrites: boolean): string | null {
  if (b.proxyKind === 'request') {
    const href = b.method ? normalUrl(b.url) : null;
    return href ? `url ${b.method!.toUpperCase()} ${href}` : null;
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
    const href = space > 0 ? normalUrl(b.url.slice(space + 1)) : null;
    return href ? `write ${b.url.slice(0, space).toUpperCase()} ${href}` : null;
  }
  return null;
}

export class RefusalJoin {
  /** The page's reports that may still explain a refusal of the proxy, oldest first. */
  private readonly explanations: Explanation[] = [];
  private readonly waiting: Held[] = [];
  private readonly waitMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: RefusalJoinOptions) {
    this.waitMs = opts.waitMs ?? WAIT_MS;
    // Monotonic: a wall clock stepped back would keep old explanations alive.
    this.now = opts.now ?? (() => performance.now());
  }

  /** The page's view of a refused request: told at once; it explains the proxy's report of it, waiting or to come. */
  readonly page = (b: BlockedRequest): void => {
    const at = this.now();
    this.forget(at);
    this.opts.emit(b);
    // A redirect hop's report explains nothing (the proxy's report of the hop is judged on its own).
    if (b.reason.startsWith('redirect: ')) return;
    const explanation: Explanation = { report: b, keys: pageKeys(b), at, left: { ...EXPLAINS }, inAction: this.opts.acting() };
    for (const held of [...this.waiting]) {
      if (!explanation.keys.includes(held.key) || explanation.left[kindOf(held.key)] === 0) continue;
      clearTimeout(held.timer);
      this.waiting.splice(this.waiting.indexOf(held), 1);
      this.explained(explanation, held.key, held.report);
    }
    if (this.explanations.length < EXPLAINING_MAX) this.explanations.push(explanation);
  };

  /** The proxy's refusal: explained by a page report of it, or held until one comes or WAIT_MS passes. */
  readonly proxy = (b: BlockedRequest): void => {
    const key = proxyKey(b, this.opts.joinWrites);
    if (!key) return this.opts.emit(b);
    const at = this.now();
    this.forget(at);
    const report: BlockedRequest = { ...b, inAction: this.opts.acting() };
    const explanation = this.explanations.find((e) => e.left[kindOf(key)] > 0 && e.keys.includes(key));
    if (explanation) return this.explained(explanation, key, report);
    if (this.waiting.length >= WAITING_MAX) return this.opts.emit(report);
    const held: Held = { report, key, timer: setTimeout(() => this.release(held), this.waitMs) };
    held.timer.unref();
    this.waiting.push(held);
  };

  /** Every proxy report still waiting goes on now (before the run is judged). */
  flush(): void {
    for (const held of [...this.waiting]) this.release(held);
  }

  /** `proxy` is the page's `explanation`'s request: not listed again, but judged at the stricter of the two moments. */
  private explained(explanation: Explanation, key: string, proxy: BlockedRequest): void {
    explanation.left[kindOf(key)] -= 1;
    if (proxy.inAction && !explanation.inAction) {
      explanation.inAction = true;
      this.opts.emit({ ...explanation.report, inAction: true });
    }
  }

  private release(held: Held): void {
    const i = this.waiting.indexOf(held);
    if (i < 0) return;
    clearTimeout(held.timer);
    this.waiting.splice(i, 1);
    this.opts.emit(held.report);
  }

  /** Page reports older than WAIT_MS explain nothing any more (a later request to the same place is its own). */
  private forget(at: number): void {
    let stale = 0;
    while (stale < this.explanations.length && at - this.explanations[stale]!.at > this.waitMs) stale += 1;
    if (stale) this.explanations.splice(0, stale);
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
