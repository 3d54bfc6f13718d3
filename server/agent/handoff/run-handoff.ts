import type { BrowserContext, Page, Request, Response } from 'playwright-core';

import type { HeldWrite as HeldWriteSummary, UserAction } from '../../../contract/schemas';
import { within } from '../../browser/page-quiet';
import { READY_BUDGET_MS, waitForReady } from '../../browser/page-ready';
import type { EgressPolicy } from '../../egress/egress-policy';
import type { HeldWrite } from '../../egress/egress-proxy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { AgentApprovalMode } from '../../store';
import type { AskOutcome, HandoffEvent, HandoffHooks, UserDecision } from './handoff-hooks';
import { UserActionEnded, type UserActionReason, UserActionUnavailable, type UserAsk, type UserDoor } from './user-ask';

/**
 * One run's door to its end user. A run pauses (NEEDS_USER) when a strategy, the login engine or the network asks for
 * the person; the worker's hooks write the pause, free the worker's slot and stop the run's clock, and the person, in
 * the widget, sees the run's own page and answers: the page is past the step ("done", or the asker's `done()` sees it),
 * a held write is approved or denied, or they leave. Expiry and cancel end the wait too. The run then resumes on the
 * same page (the hooks take a slot again), or ends with a clear code; nothing is retried.
 *
 * One state machine for a paused run (README, "A paused run"): every ask, held writes and steps alike, is asked one at a
 * time, in the order it came (a second ask waits for the first to end). Each ask pauses the run (NEEDS_USER, its slot
 * and clock given back) and ends in exactly one way: it goes on (done, approved, or the page withdrew its held write:
 * RUNNING again, a slot taken, the clock restarted), or the run ends (denied, left, expired: the run's final write
 * says why; canceled, timed out or its lease lost: the worker's). While a write is held, and after it was approved
 * until its answer came and the page it brings is ready, `whileWaiting()` keeps the strategies from the page.
 */
export type { AskOutcome, HandoffEvent, HandoffHooks, PauseAsk, UserDecision } from './handoff-hooks';

export interface HandoffSeat {
  /** Whether another run may pause in this process now (the bound on waiting runs). */
  admit(run: RunHandoff): boolean;
  /** The run stopped waiting (resumed or ended). */
  leave(run: RunHandoff): void;
}

export interface RunHandoffOptions {
  requestId: string;
  organizationId: string;
  environment: 'sandbox' | 'production';
  provider: ProviderDefinition;
  /** Where the run's browser may go (the person's view holds its page to it too). */
  policy: EgressPolicy;
  /** The run's action, in the caller's words (shown to the person). */
  action: string;
  approval: AgentApprovalMode | null;
  ttlMs: number;
  /** The page the person sees by default: the run's current tab. */
  page: () => Page | undefined;
  signal: AbortSignal;
  seat: HandoffSeat;
  hooks: HandoffHooks;
  /** What a held write would send, masked (write-summary.ts with the run's masks). */
  summarize: (write: HeldWrite) => Promise<HeldWriteSummary>;
  /** A still of the run's page, taken as it pauses (approval runs: page-still.ts); the view opens on it. */
  picture?: () => Promise<Buffer | null>;
  /** The most an approved write's answer, then the page it brings, is waited for (each; default READY_BUDGET_MS). */
  settleMs?: number;
}

/** How often an asker's `done()` is checked while the run waits. */
const DONE_POLL_MS = 500;

interface Waiting {
  action: UserAction;
  page: Page | undefined;
  settle: (outcome: AskOutcome) => void;
  /** The run's page as it paused (null until taken, or when none is kept). */
  picture: Buffer | null;
}

export class RunHandoff implements UserDoor {
  private waiting: Waiting | null = null;
  /** Every ask queues here (held writes and steps alike): one ask at a time. */
  private turns: Promise<unknown> = Promise.resolve();
  /** Held writes not yet decided, and approved ones whose answer and page are not settled yet. */
  private heldCount = 0;
  private approvedOnce = false;
  private idle: Promise<void> = Promise.resolve();
  private releaseIdle: () => void = () => undefined;
  private readonly listeners = new Set<(e: HandoffEvent) => void>();
  private ended = false;
  /** Whether the run ever asked its user (a run the person took part in is never run again from the start). */
  asked = false;

  constructor(private readonly opts: RunHandoffOptions) {}

  get requestId(): string {
    return this.opts.requestId;
  }

  get owner(): { organizationId: string; environment: 'sandbox' | 'production' } {
    return { organizationId: this.opts.organizationId, environment: this.opts.environment };
  }

  get action(): string {
    return this.opts.action;
  }

  get provider(): ProviderDefinition {
    return this.opts.provider;
  }

  get policy(): EgressPolicy {
    return this.opts.policy;
  }

  /** What the run waits for now; null while it works. */
  get current(): UserAction | null {
    return this.waiting?.action ?? null;
  }

  /** The page the person sees: the one the ask names, else the run's current tab. */
  page(): Page | undefined {
    return this.waiting?.page ?? this.opts.page();
  }

  context(): BrowserContext | undefined {
    return this.page()?.context();
  }

  /** The picture of the page the person sees as the run paused, if it keeps one. */
  lastFrame(): Buffer | null {
    return this.waiting?.picture ?? null;
  }

  onEvent(fn: (e: HandoffEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The person's answer from the widget; false when the run waits for no such answer now. */
  decide(decision: UserDecision): boolean {
    const w = this.waiting;
    if (!w) return false;
    const approval = w.action.reason === 'APPROVAL';
    if ((decision === 'approve' || decision === 'deny') !== approval && decision !== 'exit') return false;
    w.settle(decision);
    return true;
  }

  async needsUser(ask: UserAsk): Promise<void> {
    const outcome = await this.inTurn(() => this.wait(ask, null));
    if (outcome !== 'done') throw ended(outcome, ask.reason);
  }

  whileWaiting(): Promise<void> {
    return this.heldCount > 0 ? this.idle : Promise.resolve();
  }

  /**
   * The ChangeGate's approve for this run: a write waits, unsent, until the person decides. Denied, abandoned or expired,
   * it is refused and the run ends (DENIED_BY_USER …); the page's request is answered as a refusal either way.
   */
  approveWrite = (write: HeldWrite, signal: AbortSignal): Promise<string | null> => {
    if (this.opts.approval === 'first_write' && this.approvedOnce) return Promise.resolve(null);
    if (this.heldCount++ === 0) this.idle = new Promise((resolve) => (this.releaseIdle = resolve));
    let settled: Promise<void> = Promise.resolve();
    const turn = this.inTurn(async () => {
      const why = await this.askApproval(write, signal);
      // Listened for before the proxy sends it (it does once this resolves): the write's answer cannot be missed.
      if (why === null) settled = this.settleAfter(write);
      return why;
    });
    void turn
      .then(() => settled)
      .catch(() => undefined)
      .finally(() => {
        if (--this.heldCount === 0) this.releaseIdle();
      });
    return turn;
  };

  /** The run ended: the person's view is told, and nothing waits any more. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting?.settle('exit');
    this.emit({ kind: 'ended' });
    this.listeners.clear();
  }

  // ---------- internals ----------

  /** `fn` once every ask before it ended: one ask at a time, in the order they came. */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const turn = this.turns.then(fn);
    this.turns = turn.catch(() => undefined);
    return turn;
  }

  private async askApproval(write: HeldWrite, signal: AbortSignal): Promise<string | null> {
    if (signal.aborted) return 'the page gave up on the request';
    // A write that came while an earlier one was approved, with first_write: it goes without asking.
    if (this.opts.approval === 'first_write' && this.approvedOnce) return null;
    const summary = await this.opts.summarize(write);
    const target = `${summary.method} ${summary.url}`;
    let outcome: AskOutcome;
    try {
      outcome = await this.wait(
        { reason: 'APPROVAL', message: `Approve this change on ${providerName(this.opts.provider)} before it is sent?` },
        summary,
        signal,
      );
    } catch (err) {
      // Could not ask (too many waiting runs, the run was canceled): the write is refused, and the run ends.
      this.opts.hooks.abort(err instanceof Error ? err : new Error(String(err)));
      return 'the write could not be put to the user';
    }
    // The page gave up on it (navigated away, closed, aborted its request): nothing to send; the run went on (wait).
    if (outcome === 'withdrawn' || signal.aborted) return 'the page gave up on the request';
    if (outcome === 'approve') {
      this.approvedOnce = true;
      return null;
    }
    const why = outcome === 'deny' ? 'denied by the user' : outcome === 'expired' ? 'the user did not answer in time' : 'the user left';
    this.opts.hooks.abort(
      outcome === 'deny'
        ? new UserActionEnded('DENIED_BY_USER', `The user denied ${target}; it was not sent.`, { write: summary })
        : ended(outcome, 'APPROVAL'),
    );
    return why;
  }

  /**
   * After an approval: the write's answer, then the page it brings (a navigation, a DOM change) ready under the same
   * rule as a first look (page-ready.ts), each bounded, before the strategies look again; a new ask cuts it short.
   */
  private async settleAfter(write: HeldWrite): Promise<void> {
    const page = this.opts.page();
    if (!page || page.isClosed()) return;
    const budget = this.opts.settleMs ?? READY_BUDGET_MS;
    const context = page.context();
    const url = withoutHash(write.url);
    let heard!: () => void;
    const answered = new Promise<void>((resolve) => (heard = resolve));
    const onDone = (request: Request) => {
      if (request.method() === write.method && withoutHash(request.url()) === url) heard();
    };
    // Its answer's headers (the body, and what the page does with it, are readiness's to wait for) or its failure.
    const onAnswer = (response: Response) => onDone(response.request());
    // A WebSocket message has no answer of its own: only the page it changes is waited for.
    if (write.method === 'WEBSOCKET') heard();
    // Cut short by a new ask (the page sent another write), the run's end or its abort.
    let cutShort!: () => void;
    const cut = new Promise<void>((resolve) => (cutShort = resolve));
    const offEvents = this.onEvent((e) => e.kind !== 'resumed' && cutShort());
    this.opts.signal.addEventListener('abort', cutShort, { once: true });
    context.on('response', onAnswer);
    context.on('requestfailed', onDone);
    try {
      await within(Promise.race([answered, cut]), budget, undefined);
      if (this.ended || this.opts.signal.aborted || this.waiting) return;
      const now = this.opts.page() ?? page;
      if (now.isClosed()) return;
      const ready = waitForReady(now, { readyWhen: this.opts.provider.readyWhen, budgetMs: budget }).catch(() => undefined);
      await Promise.race([ready, cut]);
    } finally {
      offEvents();
      this.opts.signal.removeEventListener('abort', cutShort);
      context.off('response', onAnswer);
      context.off('requestfailed', onDone);
    }
  }

  /**
   * Pauses the run until the ask ends: the person decides, the asker sees the step done, it expires, the page withdraws
   * its held write (`writeSignal`), the run ends or is aborted. Goes on (done, approve, withdrawn): RUNNING again, a slot
   * and the clock taken back, before this returns. Else the run ends from here, NEEDS_USER until its final write.
   */
  private async wait(ask: UserAsk, write: HeldWriteSummary | null, writeSignal?: AbortSignal): Promise<AskOutcome> {
    const { hooks, signal } = this.opts;
    signal.throwIfAborted();
    if (this.ended) throw new UserActionUnavailable('The run ended.');
    if (writeSignal?.aborted) return 'withdrawn';
    if (!this.opts.seat.admit(this)) {
      throw new UserActionUnavailable(
        `The run needs its user (${ask.reason}: ${ask.message}), but this worker holds as many waiting runs as it may.`,
      );
    }
    this.asked = true;
    const since = new Date();
    const expiresAt = new Date(since.getTime() + this.opts.ttlMs);
    const started = performance.now();
    let action: UserAction | null;
    try {
      action = await hooks.pause({ reason: ask.reason, message: ask.message, since, expiresAt, write });
    } catch (err) {
      this.opts.seat.leave(this);
      throw err;
    }
    if (!action) {
      this.opts.seat.leave(this);
      throw new UserActionUnavailable('The run could not be paused: this worker no longer holds it.');
    }
    hooks.paused();
    let settle!: (outcome: AskOutcome) => void;
    const decided = new Promise<AskOutcome>((resolve) => (settle = resolve));
    const waiting: Waiting = { action, page: ask.page, settle, picture: null };
    this.waiting = waiting;
    // Taken beside the pause, not before it (the ask is announced at once); an ask naming its own page keeps none.
    if (!ask.page && this.opts.picture) {
      void this.opts
        .picture()
        .then((picture) => void (waiting.picture = picture))
        .catch(() => undefined);
    }
    this.emit({ kind: 'ask', action });

    const expiry = setTimeout(() => settle('expired'), Math.max(0, expiresAt.getTime() - Date.now()));
    const poll = ask.done ? this.pollDone(ask.done, () => settle('done')) : null;
    const onAbort = () => settle('exit');
    const onWithdrawn = () => settle('withdrawn');
    signal.addEventListener('abort', onAbort, { once: true });
    writeSignal?.addEventListener('abort', onWithdrawn, { once: true });
    // Ended or aborted while it was being paused (close() found no ask to end, the abort event went by): it ends now.
    if (this.ended || signal.aborted) settle('exit');
    if (writeSignal?.aborted) settle('withdrawn');
    let outcome: AskOutcome;
    try {
      outcome = await decided;
    } finally {
      clearTimeout(expiry);
      if (poll) clearInterval(poll);
      signal.removeEventListener('abort', onAbort);
      writeSignal?.removeEventListener('abort', onWithdrawn);
      this.waiting = null;
      this.opts.seat.leave(this);
    }
    signal.throwIfAborted();
    const goesOn = (outcome === 'done' || outcome === 'approve' || outcome === 'withdrawn') && !this.ended;
    hooks.record({
      tool: 'user',
      target: `${ask.reason}: ${ask.message}`.slice(0, 300),
      url: this.page()?.url() ?? '',
      durationMs: Math.round(performance.now() - started),
      outcome: outcome === 'done' || outcome === 'approve' ? 'ok' : 'error',
      ...(outcome === 'done' || outcome === 'approve' ? {} : { error: OUTCOME_WORDS[outcome] }),
    });
    // Denied, left or expired: the run ends from here, still NEEDS_USER until its final write (which says why).
    if (goesOn) {
      if (!(await hooks.resume())) throw new UserActionUnavailable('The run could not resume: this worker no longer holds it.');
      await hooks.resumed();
      this.emit({ kind: 'resumed' });
    }
    return outcome;
  }

  private pollDone(done: () => Promise<boolean>, onDone: () => void): NodeJS.Timeout {
    let checking = false;
    return setInterval(() => {
      if (checking) return;
      checking = true;
      done()
        .then((yes) => yes && onDone())
        .catch(() => undefined) // the page was navigating: not yet
        .finally(() => (checking = false));
    }, DONE_POLL_MS);
  }

  private emit(e: HandoffEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        // a view that fails to hear an event never stops the run
      }
    }
  }
}

/** The provider's name as people say it ("Orbit", not "Orbit (sandbox)"). */
export function providerName(provider: Pick<ProviderDefinition, 'name'>): string {
  return provider.name.replace(/\s*\(.*\)$/, '');
}

const OUTCOME_WORDS: Record<Exclude<AskOutcome, 'done' | 'approve'>, string> = {
  deny: 'denied by the user',
  exit: 'the user left',
  expired: 'expired',
  withdrawn: 'the page gave up on the held write (it was not sent); the run went on',
};

function withoutHash(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

function ended(decision: AskOutcome, reason: UserActionReason): UserActionEnded {
  if (decision === 'withdrawn')
    return new UserActionEnded('USER_ACTION_EXITED', `The run waited for its user (${reason}) and the step went away.`);
  if (decision === 'expired')
    return new UserActionEnded('USER_ACTION_EXPIRED', `The run waited for its user (${reason}) and nobody finished the step in time.`);
  return new UserActionEnded('USER_ACTION_EXITED', `The run waited for its user (${reason}) and they left the step.`);
}
