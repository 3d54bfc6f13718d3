import type { HeldWrite as HeldWriteSummary, UserAction } from '../../../contract/schemas';
import type { TraceStep } from '../run/context';
import type { UserActionReason } from './user-ask';

/** What a run's hand-off (run-handoff.ts) asks of its worker (the hooks), and the shapes of an ask, its events and its ends. */

/** What the person answers to an ask (exit: they left it). */
export type UserDecision = 'done' | 'approve' | 'deny' | 'exit';

/** How an ask ended: the person's decision, its expiry, or (a held write) the page gave up on the write: withdrawn. */
export type AskOutcome = UserDecision | 'expired' | 'withdrawn';

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
