import type { HeldWrite, UserAction } from '../../contract/schemas';
import type { HandoffRegistry } from '../agent/handoff/handoff-registry';
import type { RunHandoff, UserDecision } from '../agent/handoff/run-handoff';
import { askKey, encodeDecision, fitsAsk } from '../agent/handoff/stored-decision';
import { hashToken } from '../domain/tokens';
import type { LinkTokenRecord } from '../store';

/**
 * The widget's side of a paused agent run (a link token made by the worker when the run paused: userAction.linkToken).
 * The person sees the run's own page (live/run-live-views.ts) and answers the ask the token was made for: done,
 * approve or deny a held write, or leave. Each pause has its own token: a token whose pause is over can watch the run
 * no more and answer nothing.
 */
export interface UserActionView {
  agentRequestId: string;
  /** The run's action, in the caller's words. */
  task: string;
  /** waiting: this token's ask is open; over: it was answered (or the run went on, or ended). */
  state: 'waiting' | 'over';
  reason: UserAction['reason'] | null;
  message: string | null;
  expiresAt: string | null;
  write: HeldWrite | null;
}

export type UserActionAnswer = Exclude<UserDecision, 'exit'>;

/** What the database says of a paused run (the run may be held by another process's worker). */
export interface PausedRunRow {
  organizationId: string;
  environment: string;
  action: string;
  userAction: UserAction | null;
  /** The sealed user action as stored: a decision stored for the worker is bound to exactly this pause. */
  sealedUserAction: string | null;
}

/** The rows of paused runs, for runs this process does not hold (the store, in services.ts). */
export interface PausedRuns {
  find(agentRequestId: string): Promise<PausedRunRow | null>;
  /** Stores a decision for the run's worker; false when the run no longer waits on that pause or one is stored already. */
  recordDecision(agentRequestId: string, sealedUserAction: string, decision: string): Promise<boolean>;
  /** What the worker did with the stored decision: not yet read, applied to the open ask, or not (its pause had ended). */
  decisionOutcome(agentRequestId: string, decision: string): Promise<'pending' | 'applied' | 'not_applied'>;
  /** Takes back a decision no worker read yet; true when it was still waiting and is now gone. */
  withdrawDecision(agentRequestId: string, decision: string): Promise<boolean>;
}

/**
 * A stored decision is read by the holding worker on its next heartbeat (about a second) and settled on the row, applied
 * or not: the caller's answer waits that long for the worker's word. Beyond this the decision is withdrawn (one
 * conditional update, so it can never apply after the caller was told no) and the answer is false.
 */
const PICKUP_WAIT_MS = 5_000;
const PICKUP_POLL_MS = 100;

export class UserActionLinks {
  constructor(
    private readonly registry: HandoffRegistry,
    private readonly rows: PausedRuns,
    private readonly pickupWaitMs = PICKUP_WAIT_MS,
  ) {}

  /** The run this link token brings its user into, when it runs in this process and belongs to the token's owner. */
  runOf(token: LinkTokenRecord): RunHandoff | null {
    if (!token.agentRequestId) return null;
    const run = this.registry.find(token.agentRequestId);
    if (!run || run.owner.organizationId !== token.organizationId || run.owner.environment !== token.environment) return null;
    return run;
  }

  /** The ask this token was made for, while it is open, when this process holds the run. */
  askOf(token: LinkTokenRecord): UserAction | null {
    const current = this.runOf(token)?.current ?? null;
    return current && hashToken(current.linkToken) === token.tokenHash ? current : null;
  }

  /** The ask this token was made for, while it is open: from the run itself when this process holds it, else from its row. */
  async openAskOf(token: LinkTokenRecord): Promise<UserAction | null> {
    if (this.runOf(token) || !token.agentRequestId) return this.askOf(token);
    const row = await this.rowOf(token.agentRequestId, token);
    const waiting = row?.userAction ?? null;
    return waiting && hashToken(waiting.linkToken) === token.tokenHash ? waiting : null;
  }

  /** From the run itself when this process holds it, else from its row (its widget calls are then relayed to its holder). */
  async viewOf(token: LinkTokenRecord): Promise<UserActionView> {
    const run = this.runOf(token);
    let task = run?.action ?? '';
    const ask = await this.openAskOf(token);
    if (!run && token.agentRequestId) task = (await this.rowOf(token.agentRequestId, token))?.action ?? '';
    return {
      agentRequestId: token.agentRequestId ?? '',
      task,
      state: ask ? 'waiting' : 'over',
      reason: ask?.reason ?? null,
      message: ask?.message ?? null,
      expiresAt: ask?.expiresAt ?? null,
      write: ask?.write ?? null,
    };
  }

  /**
   * The person's answer from the widget (done, approve, deny; exit when they leave); false when this token's ask is not
   * open (answered, expired, or the run ended). A run another process holds gets it through the store.
   */
  async answer(token: LinkTokenRecord, decision: UserDecision): Promise<boolean> {
    if (!token.agentRequestId) return false;
    if (this.runOf(token)) {
      const ask = this.askOf(token);
      return !!ask && fitsAsk(ask, decision, null) && (this.runOf(token)?.decide(decision) ?? false);
    }
    return !!(await this.storeDecision(token.agentRequestId, token, (ask) => hashToken(ask.linkToken) === token.tokenHash, decision, null));
  }

  /**
   * The app decides a held write of its organization's run (POST …/user-action): the ask it decided, null when no write
   * waits for a decision now. In this process, or through the store when another process holds the run; the hand-off
   * records it in the trace as it records the widget's Approve or Deny.
   */
  async decideHeldWrite(
    owner: { organizationId: string; environment: string },
    requestId: string,
    decision: 'approve' | 'deny',
    writeId?: string,
  ): Promise<UserAction | null> {
    const run = this.registry.find(requestId);
    if (run) {
      if (run.owner.organizationId !== owner.organizationId || run.owner.environment !== owner.environment) return null;
      const ask = run.current;
      return ask && fitsAsk(ask, decision, writeId ?? null) && run.decide(decision) ? ask : null;
    }
    return this.storeDecision(requestId, owner, () => true, decision, writeId ?? null);
  }

  /**
   * The person left the widget. While this token's ask is open, the run ends (USER_ACTION_EXITED): true. After it was
   * answered, leaving changes nothing: false.
   */
  leave(token: LinkTokenRecord): Promise<boolean> {
    return this.answer(token, 'exit');
  }

  /** The row of a run, when it belongs to `owner` (another organization's run is nothing to it). */
  private async rowOf(requestId: string, owner: { organizationId: string; environment: string }): Promise<PausedRunRow | null> {
    const row = await this.rows.find(requestId);
    return row && row.organizationId === owner.organizationId && row.environment === owner.environment ? row : null;
  }

  /**
   * A decision on a run another process holds: stored on its row, bound to the pause read here (one conditional update,
   * the first decision only), then waited for (bounded) until the holding worker says it applied it.
   */
  private async storeDecision(
    requestId: string,
    owner: { organizationId: string; environment: string },
    meant: (ask: UserAction) => boolean,
    decision: UserDecision,
    writeId: string | null,
  ): Promise<UserAction | null> {
    const row = await this.rowOf(requestId, owner);
    const ask = row?.userAction ?? null;
    if (!row?.sealedUserAction || !ask || !meant(ask) || !fitsAsk(ask, decision, writeId)) return null;
    const stored = encodeDecision({ decision, ask: askKey(ask), writeId });
    if (!(await this.rows.recordDecision(requestId, row.sealedUserAction, stored))) return null;
    // True only on the worker's word that it applied this decision: a value that went (the pause ended another way, a
    // decision in the worker's own process came first) is no success.
    for (const until = Date.now() + this.pickupWaitMs; Date.now() < until;) {
      const outcome = await this.rows.decisionOutcome(requestId, stored);
      if (outcome !== 'pending') return outcome === 'applied' ? ask : null;
      await new Promise((resolve) => setTimeout(resolve, PICKUP_POLL_MS));
    }
    if (await this.rows.withdrawDecision(requestId, stored)) return null;
    // The worker settled it between the last look and the withdrawal.
    return (await this.rows.decisionOutcome(requestId, stored)) === 'applied' ? ask : null;
  }
}
