import type { BrowserContext, Page } from 'playwright-core';

import type { HeldWrite as HeldWriteSummary, UserAction } from '../../../contract/schemas';
import type { EgressPolicy } from '../../egress/egress-policy';
import type { HeldWrite } from '../../egress/egress-proxy';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { AgentApprovalMode } from '../../store';
import type { TraceStep } from '../run-context';
import { UserActionEnded, type UserActionReason, UserActionUnavailable, type UserAsk, type UserDoor } from './user-ask';

/**
 * One run's door to its end user. A run pauses (NEEDS_USER) when a strategy, the login engine or the network asks for
 * the person; the worker's hooks write the pause, free the worker's slot and stop the run's clock, and the person, in
 * the widget, sees the run's own page and answers: the page is past the step ("done", or the asker's `done()` sees it),
 * a held write is approved or denied, or they leave. Expiry and cancel end the wait too. The run then resumes on the
 * same page (the hooks take a slot again), or ends with a clear code; nothing is retried.
 *
 * Writes held at the network (approval on the request) are asked one at a time, in the order they came; while one is
 * held, `whileWaiting()` keeps the strategies from acting on the page.
 */
export type UserDecision = 'done' | 'approve' | 'deny' | 'exit';

export interface HandoffHooks {
  /** Writes NEEDS_USER with what the run waits for (and makes the link token); null when the worker no longer holds the run. */
  pause(ask: PauseAsk): Promise<UserAction | null>;
  /** Writes RUNNING again; false when the worker no longer holds the run. */
  resume(): Promise<boolean>;
  /** The run stopped working: its clock, its timeout and its worker slot are released. */
  paused(): void;
  /** Takes a worker slot again (waits for one), restarts the clock and the timeout. */
  resumed(): Promise<void>;
  /** Ends the run at once (a denied or abandoned write: the strategy may be waiting on it). */
  abort(reason: Error): void;
  record(step: TraceStep): void;
}

export interface PauseAsk {
  reason: UserActionReason;
  message: string;
  since: Date;
  expiresAt: Date;
  write: HeldWriteSummary | null;
}

/** What the person's view is told: a new ask, the run working again, or the run ended. */
export type HandoffEvent = { kind: 'ask'; action: UserAction } | { kind: 'resumed' } | { kind: 'ended' };

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
  /** The run's latest picture of its page (approval runs keep one: frame-keeper.ts). */
  lastFrame?: () => Buffer | null;
}

/** How often an asker's `done()` is checked while the run waits. */
const DONE_POLL_MS = 500;

interface Waiting {
  action: UserAction;
  page: Page | undefined;
  settle: (decision: UserDecision | 'expired') => void;
  decided: Promise<UserDecision | 'expired'>;
}

export class RunHandoff implements UserDoor {
  private waiting: Waiting | null = null;
  /** Held writes queue here: one ask at a time. */
  private approvals: Promise<unknown> = Promise.resolve();
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

  /** The run's latest picture of the page the person sees, if it keeps one. */
  lastFrame(): Buffer | null {
    return this.waiting?.page ? null : (this.opts.lastFrame?.() ?? null);
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
    const decision = await this.wait(ask, null);
    if (decision !== 'done') throw ended(decision, ask.reason);
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
    const turn = this.approvals.then(() => this.askApproval(write, signal));
    this.approvals = turn.catch(() => undefined);
    return turn.finally(() => {
      if (--this.heldCount === 0) this.releaseIdle();
    });
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

  private async askApproval(write: HeldWrite, signal: AbortSignal): Promise<string | null> {
    if (signal.aborted) return 'the page gave up on the request';
    // A write that came while an earlier one was approved, with first_write: it goes without asking.
    if (this.opts.approval === 'first_write' && this.approvedOnce) return null;
    const summary = await this.opts.summarize(write);
    const target = `${summary.method} ${summary.url}`;
    let decision: UserDecision | 'expired';
    try {
      decision = await this.wait(
        { reason: 'APPROVAL', message: `Approve this change on ${providerName(this.opts.provider)} before it is sent?` },
        summary,
        signal,
      );
    } catch (err) {
      // Could not ask (too many waiting runs, the run was canceled): the write is refused, and the run ends.
      this.opts.hooks.abort(err instanceof Error ? err : new Error(String(err)));
      return 'the write could not be put to the user';
    }
    if (decision === 'approve') {
      this.approvedOnce = true;
      return null;
    }
    if (signal.aborted) return 'the page gave up on the request';
    const why = decision === 'deny' ? 'denied by the user' : decision === 'expired' ? 'the user did not answer in time' : 'the user left';
    this.opts.hooks.abort(
      decision === 'deny'
        ? new UserActionEnded('DENIED_BY_USER', `The user denied ${target}; it was not sent.`, { write: summary })
        : ended(decision, 'APPROVAL'),
    );
    return why;
  }

  /** Pauses the run until the person decides, the asker sees the step done, it expires or the run is aborted. */
  private async wait(ask: UserAsk, write: HeldWriteSummary | null, writeSignal?: AbortSignal) {
    const { hooks, signal } = this.opts;
    signal.throwIfAborted();
    if (this.ended) throw new UserActionUnavailable('The run ended.');
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
    let settle!: (d: UserDecision | 'expired') => void;
    const decided = new Promise<UserDecision | 'expired'>((resolve) => (settle = resolve));
    const waiting: Waiting = { action, page: ask.page, settle, decided };
    this.waiting = waiting;
    this.emit({ kind: 'ask', action });

    const expiry = setTimeout(() => settle('expired'), Math.max(0, expiresAt.getTime() - Date.now()));
    const poll = ask.done ? this.pollDone(ask.done, () => settle('done')) : null;
    const onAbort = () => settle('exit');
    signal.addEventListener('abort', onAbort, { once: true });
    writeSignal?.addEventListener('abort', onAbort, { once: true });
    let decision: UserDecision | 'expired';
    try {
      decision = await decided;
    } finally {
      clearTimeout(expiry);
      if (poll) clearInterval(poll);
      signal.removeEventListener('abort', onAbort);
      writeSignal?.removeEventListener('abort', onAbort);
      this.waiting = null;
      this.opts.seat.leave(this);
    }
    signal.throwIfAborted();
    const goesOn = decision === 'done' || decision === 'approve';
    hooks.record({
      tool: 'user',
      target: `${ask.reason}: ${ask.message}`.slice(0, 300),
      url: this.page()?.url() ?? '',
      durationMs: Math.round(performance.now() - started),
      outcome: goesOn ? 'ok' : 'error',
      ...(goesOn ? {} : { error: decision === 'deny' ? 'denied by the user' : decision === 'expired' ? 'expired' : 'the user left' }),
    });
    // Denied, left or expired: the run ends from here, still NEEDS_USER until its final write (which says why).
    if (goesOn) {
      if (!(await hooks.resume())) throw new UserActionUnavailable('The run could not resume: this worker no longer holds it.');
      await hooks.resumed();
      this.emit({ kind: 'resumed' });
    }
    return decision;
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

function ended(decision: UserDecision | 'expired', reason: UserActionReason): UserActionEnded {
  if (decision === 'expired')
    return new UserActionEnded('USER_ACTION_EXPIRED', `The run waited for its user (${reason}) and nobody finished the step in time.`);
  return new UserActionEnded('USER_ACTION_EXITED', `The run waited for its user (${reason}) and they left the step.`);
}
