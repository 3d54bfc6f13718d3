import type { HeldWrite, UserAction } from '../../contract/schemas';
import type { Caller } from '../domain/context';
import type { Result } from '../domain/errors';
import type { Services } from '../services';
import type { AgentRequestRecord } from '../store';

/**
 * A held write decided by the MCP client's own user (the protocol's elicitation): while run_action waits, a run paused
 * for APPROVAL is put to the client as the write's summary with accept / decline, and the answer decides the write
 * exactly as the app's POST …/user-action does (userActionLinks.decideHeldWrite: the same checks, the same trace step,
 * bound to that write's id). Only for a client that declared the capability; any other gets NEEDS_USER and the link.
 */
export type Elicit = (
  message: string,
  opts: { timeoutMs: number; signal: AbortSignal; relatedRequestId: string | number },
) => Promise<'accept' | 'decline' | 'cancel'>;

/** The longest a client's user is given to answer one ask (the pause's own expiry still bounds it). */
const ASK_MAX_MS = 5 * 60_000;
/** At most this many asks in one run_action call (a page that holds write after write is not asked about forever). */
const MAX_ASKS = 10;
/** How often the request is read again while the decision taken is being applied. */
const PAST_ASK_POLL_MS = 50;

/** What the client shows its user: the write, as the widget's approval view and the API show it (masked). */
export function approvalMessage(ask: UserAction, write: HeldWrite): string {
  const fields = write.fields.slice(0, 10).map((f) => `  ${f.name}: ${f.value}`);
  const more = write.fields.length > 10 ? [`  … ${write.fields.length - 10} more fields`] : [];
  return [
    ask.message,
    `${write.method} ${write.url}`,
    ...fields,
    ...more,
    'Accept sends it; decline stops the run without sending it.',
  ].join('\n');
}

/**
 * Waits for the request as run_action does, asking the client's user about each held write on the way, until the
 * request ends, waits for something else (a code on the page: the link), the user dismisses an ask, or the time is up.
 */
export async function waitDecidingWrites(
  services: Pick<Services, 'agentRequests' | 'userActions' | 'userActionLinks'>,
  caller: Caller,
  requestId: string,
  waitMs: number,
  call: { signal: AbortSignal; requestId: string | number },
  elicit: Elicit,
): Promise<Result<AgentRequestRecord>> {
  const { signal } = call;
  const until = Date.now() + waitMs;
  let result = await services.agentRequests.wait(caller, requestId, waitMs, signal);
  for (let asked = 0; asked < MAX_ASKS && result.ok && result.value.status === 'NEEDS_USER' && !signal.aborted; asked++) {
    const ask = services.userActions.open(result.value);
    if (ask?.reason !== 'APPROVAL' || !ask.write) break;
    const left = Math.min(ASK_MAX_MS, new Date(ask.expiresAt).getTime() - Date.now());
    if (left <= 0) break;
    let answer: Awaited<ReturnType<Elicit>>;
    try {
      // On the tool call's own stream (related to it): the client's answer comes back to this very call.
      answer = await elicit(approvalMessage(ask, ask.write), { timeoutMs: left, signal, relatedRequestId: call.requestId });
    } catch {
      break; // the client could not ask (closed, timed out): the write stays held, and the link still decides it
    }
    // Dismissed without a choice: nothing is decided; the answer says NEEDS_USER with the link, as without elicitation.
    if (answer === 'cancel') break;
    await services.userActionLinks.decideHeldWrite(caller, requestId, answer === 'accept' ? 'approve' : 'deny', ask.write.id);
    result = await pastAsk(services, caller, requestId, ask.linkToken, until, signal);
  }
  return result;
}

/**
 * The request once it left the pause of `linkToken` (the decision is applied as the run resumes, a moment after it
 * was taken), then waited for as run_action waits: never the same ask twice.
 */
async function pastAsk(
  services: Pick<Services, 'agentRequests' | 'userActions'>,
  caller: Caller,
  requestId: string,
  linkToken: string,
  until: number,
  signal: AbortSignal,
): Promise<Result<AgentRequestRecord>> {
  for (;;) {
    const result = await services.agentRequests.wait(caller, requestId, Math.max(0, until - Date.now()), signal);
    const stillThere =
      result.ok && result.value.status === 'NEEDS_USER' && services.userActions.open(result.value)?.linkToken === linkToken;
    if (!stillThere || Date.now() >= until || signal.aborted) return result;
    await new Promise((resolve) => setTimeout(resolve, PAST_ASK_POLL_MS));
  }
}
