import type { RunHandoff } from '../agent/handoff/run-handoff';
import { ok, type Result } from '../domain/errors';
import { hashToken, parseToken } from '../domain/tokens';
import type { LinkTokenRecord } from '../store';
import type { LinkSessionFlow } from './link-session-flow';
import type { LinkStepResult } from './link-session-view';
import type { UserActionAnswer } from './user-action-link';

/**
 * A paused agent run's side of the connect flow (mode user_action): the widget opened with a link token made for a run
 * waiting NEEDS_USER watches that run's page, and the person's answer (done, approve, deny) goes to the run.
 */
export class UserActionSteps {
  constructor(private readonly flow: LinkSessionFlow) {}

  /**
   * The person answered the paused run's ask: the page is past the step (done), or the held write is approved or
   * denied. The run goes on (or ends, denied) by itself; this link session is over (SUCCEEDED: the person did their part).
   */
  async answerUserAction(linkToken: string, sessionId: string, decision: UserActionAnswer): Promise<Result<LinkStepResult>> {
    const auth = await this.flow.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'USER_ACTION') return this.flow.stepNotAllowed(session);
    // An answer the open ask does not take (approve a code step, "done" on a held write) changes nothing, and the ask
    // is not over for it: the same step can still be answered as it asks.
    const ask = (await this.flow.userActions?.openAskOf(token)) ?? null;
    if (ask && (ask.reason === 'APPROVAL') !== (decision === 'approve' || decision === 'deny')) {
      return this.flow.fail(
        'LINK_STEP_NOT_ALLOWED',
        ask.reason === 'APPROVAL'
          ? 'This step is a write to approve or deny.'
          : 'This step has no write to approve or deny: it is done on the page.',
        this.flow.details(session, true),
      );
    }
    if (!(await this.flow.userActions?.answer(token, decision))) {
      return this.flow.fail(
        'USER_ACTION_OVER',
        'This step is over: the task is not waiting for this any more.',
        this.flow.details(session, false),
      );
    }
    const now = this.flow.deps.clock.now();
    if (await this.flow.move(session, ['USER_ACTION'], { status: 'SUCCEEDED', completedAt: now })) {
      await this.flow.finished({ session: await this.flow.reload(session), publicToken: null });
    }
    return ok({ view: await this.flow.view(await this.flow.reload(session), token) });
  }

  /** May this link token's widget watch (and, while its ask is open, use) the paused run's page? */
  async authorizeRunView(linkToken: string, sessionId: string): Promise<Result<{ run: RunHandoff; token: LinkTokenRecord }>> {
    const auth = await this.flow.authorize(linkToken, sessionId);
    if (!auth.ok) return auth;
    const { token, session } = auth.value;
    if (session.status !== 'USER_ACTION') return this.flow.stepNotAllowed(session);
    const run = this.flow.userActions?.runOf(token);
    if (!run) return this.flow.fail('USER_ACTION_OVER', 'The task is not waiting for you any more.', this.flow.details(session, false));
    return ok({ run, token });
  }

  /** Whether a link token was made for a paused agent run (its widget watches that run instead of a sign-in). */
  async isRunToken(linkToken: string): Promise<boolean> {
    const parsed = parseToken(linkToken);
    if (!parsed || parsed.kind !== 'link') return false;
    return !!(await this.flow.deps.store.repos.linkTokens.findByHash(hashToken(linkToken)))?.agentRequestId;
  }
}
