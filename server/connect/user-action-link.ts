import type { HeldWrite, UserAction } from '../../contract/schemas';
import type { HandoffRegistry } from '../agent/handoff/handoff-registry';
import type { RunHandoff, UserDecision } from '../agent/handoff/run-handoff';
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
export type PausedRunLookup = (
  agentRequestId: string,
) => Promise<{ organizationId: string; environment: string; action: string; userAction: UserAction | null } | null>;

export class UserActionLinks {
  constructor(
    private readonly registry: HandoffRegistry,
    private readonly lookup: PausedRunLookup,
  ) {}

  /** The run this link token brings its user into, when it runs in this process and belongs to the token's owner. */
  runOf(token: LinkTokenRecord): RunHandoff | null {
    if (!token.agentRequestId) return null;
    const run = this.registry.find(token.agentRequestId);
    if (!run || run.owner.organizationId !== token.organizationId || run.owner.environment !== token.environment) return null;
    return run;
  }

  /** The ask this token was made for, while it is open. */
  askOf(token: LinkTokenRecord): UserAction | null {
    const current = this.runOf(token)?.current ?? null;
    return current && hashToken(current.linkToken) === token.tokenHash ? current : null;
  }

  /** From the run itself when this process holds it, else from its row (its widget calls are then relayed to its holder). */
  async viewOf(token: LinkTokenRecord): Promise<UserActionView> {
    const run = this.runOf(token);
    let task = run?.action ?? '';
    let ask = this.askOf(token);
    if (!run && token.agentRequestId) {
      const found = await this.lookup(token.agentRequestId);
      // The run's owner is checked, not the token's word: another organization's run shows nothing.
      const row = found && found.organizationId === token.organizationId && found.environment === token.environment ? found : null;
      task = row?.action ?? '';
      const waiting = row?.userAction ?? null;
      ask = waiting && hashToken(waiting.linkToken) === token.tokenHash ? waiting : null;
    }
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

  /** The person's answer; false when this token's ask is not open (answered, expired, or the run ended). */
  answer(token: LinkTokenRecord, decision: UserActionAnswer): boolean {
    if (!this.askOf(token)) return false;
    return this.runOf(token)?.decide(decision) ?? false;
  }

  /**
   * The app decides a held write of a run this process holds, for its organization (POST …/user-action): false when no
   * write waits for a decision now. The hand-off records it in the trace as it records the widget's Approve or Deny.
   */
  decideHeldWrite(
    owner: { organizationId: string; environment: string },
    requestId: string,
    decision: 'approve' | 'deny',
    writeId?: string,
  ): boolean {
    const run = this.registry.find(requestId);
    if (!run || run.owner.organizationId !== owner.organizationId || run.owner.environment !== owner.environment) return false;
    if (run.current?.reason !== 'APPROVAL') return false;
    // Bound to the write the app's user saw: a page that gave it up and holds another gets no decision meant for the first.
    if (writeId !== undefined && run.current.write?.id !== writeId) return false;
    return run.decide(decision);
  }

  /**
   * The person left the widget. While this token's ask is open, the run ends (USER_ACTION_EXITED): true. After it was
   * answered, leaving changes nothing: false.
   */
  leave(token: LinkTokenRecord): boolean {
    if (!this.askOf(token)) return false;
    return this.runOf(token)?.decide('exit') ?? false;
  }
}
