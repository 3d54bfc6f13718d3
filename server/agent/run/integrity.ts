import { BlockCauses, type BlockedDetail, parameterValues } from './block-cause';

/**
 * Whether a run stayed clean, and the per-run rules on where parameters may go. A run is tainted by a blocked
 * request the run caused (block-cause.ts: a navigation, a form submission, a tool's action, a parameter value or page
 * content the model saw carried away; the page's own background requests to other hosts are blocked and listed, not
 * tainting), a policy refusal (a tool refused navigation off the provider
 * or a parameter where it does not belong) or an injection marker (page content carrying our placeholder
 * syntax, our boundary, or text shaped like our element or feedback lines). A tainted run may still finish,
 * but it is never recorded for replay: a trajectory is repeated later without any model to notice the attack.
 */
export type TaintKind = 'BLOCKED_REQUEST' | 'POLICY_REFUSAL' | 'INJECTION_MARKER';

export interface Taint {
  kind: TaintKind;
  detail: string;
}

const MAX_TAINTS = 20;
const LABEL: Record<TaintKind, string> = {
  BLOCKED_REQUEST: 'a request was blocked',
  POLICY_REFUSAL: 'a policy refused an action',
  INJECTION_MARKER: 'the page content carried an injection marker',
};

export class RunIntegrity {
  private readonly list: Taint[] = [];
  /** Parameters whose placeholder appeared in page content: a page asked for them, so they are never filled in. */
  private readonly injected = new Set<string>();
  /** The one field each parameter went into (by element description). */
  private readonly fields = new Map<string, string>();
  /** What the run did and showed, to tell its blocked requests from the page's background ones. */
  readonly causes: BlockCauses;
  /** What the run's fences still hold undecided, reported before each judgement (beforeJudging). */
  private readonly undecided = new Set<() => void>();

  /** `parameters`: the request's parameters (their values, wherever a blocked request carries them, taint it). */
  constructor(parameters?: unknown) {
    this.causes = new BlockCauses(parameterValues(parameters));
  }

  /** A request the fence blocked: taints the run when the run caused it. Returns why, or null (background noise). */
  blockedRequest(b: BlockedDetail & { reason: string }): string | null {
    const cause = this.causes.causeOf(b);
    if (cause) this.taint('BLOCKED_REQUEST', `${b.resourceType} ${b.url.slice(0, 200)}: ${b.reason} (${cause})`);
    return cause;
  }

  taint(kind: TaintKind, detail: string): void {
    const d = detail.slice(0, 300);
    if (this.list.length < MAX_TAINTS && !this.list.some((t) => t.kind === kind && t.detail === d)) this.list.push({ kind, detail: d });
  }

  /**
   * `report` runs each time the run is judged (clean, taints, summary), before the answer: there the run's fence reports
   * what it still holds undecided (a WebSocket message the page began and has not finished, its socket still open:
   * fenced-context.ts reportUnfinishedMessages), so that it counts against the run however long the socket stays open.
   * The run is judged only at its end (before it is recorded for replay, before its context is kept): mid-run, a message
   * still streaming in would be reported unreadable.
   */
  beforeJudging(report: () => void): void {
    this.undecided.add(report);
  }

  get clean(): boolean {
    this.settle();
    return this.list.length === 0;
  }

  get taints(): readonly Taint[] {
    this.settle();
    return this.list;
  }

  /** One line for the trace: why this run is not recorded for replay. */
  summary(): string {
    this.settle();
    return this.list.map((t) => `${LABEL[t.kind]} (${t.detail})`).join('; ');
  }

  /**
   * What the fences still hold is told now (refusals waiting to be joined, unfinished messages), judged and traced: at
   * a run's end, before its trace is written, whether or not anything asks if it is clean.
   */
  settleReports(): void {
    this.settle();
  }

  private settle(): void {
    for (const report of this.undecided) {
      try {
        report();
      } catch {
        // What the fence held could not be told: the run cannot be judged clean (never recorded, its context not kept).
        this.taint('BLOCKED_REQUEST', 'what the fence still held undecided could not be reported');
      }
    }
  }

  markInjected(parameter: string): void {
    this.injected.add(parameter);
  }

  isInjected(parameter: string): boolean {
    return this.injected.has(parameter);
  }

  /** Claims `field` for a parameter: true the first time and again for the same field, false for any other field. */
  claimField(parameter: string, field: string): { ok: true } | { ok: false; already: string } {
    const had = this.fields.get(parameter);
    if (had === undefined) {
      this.fields.set(parameter, field);
      return { ok: true };
    }
    return had === field ? { ok: true } : { ok: false, already: had };
  }
}
