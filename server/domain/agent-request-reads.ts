import { AGENT_REQUEST_WAIT_MS_MAX } from '../../contract/schemas';
import type { AgentRequestRecord, AgentRequestStatus, Store } from '../store';
import type { AgentRequestEvents } from './agent-request-events';
import type { Caller } from './context';
import { fail, ok, type Result } from './errors';
import { StatusWatch } from './status-watch';

/**
 * Reading an agent request as it changes: a caller's long poll (GET …?waitMs) and the read that answers a decision on a
 * paused run. Both wake at once on this process's events and read the row for runs another process holds.
 */
export class AgentRequestReads {
  constructor(
    private readonly store: Store,
    private readonly events?: AgentRequestEvents,
  ) {}

  /** The readers that waited past their own first polls, watched together (status-watch.ts). */
  private readonly watch = new StatusWatch(
    (ids) => this.store.repos.agentRequests.statusesOf(ids),
    (status) => ENDS_WAIT.has(status),
    WAIT_POLL_MAX_MS,
  );

  /**
   * Reads a request; with waitMs, holds the answer until it reaches a final status or NEEDS_USER, or the wait runs out.
   * Wakes at once for requests run in this process, and polls the row for those run elsewhere.
   */
  async wait(caller: Caller, requestId: string, waitMs: number, signal?: AbortSignal): Promise<Result<AgentRequestRecord>> {
    const until = Date.now() + Math.min(Math.max(0, waitMs), AGENT_REQUEST_WAIT_MS_MAX);
    const found = await this.get(caller, requestId);
    if (!found.ok || ENDS_WAIT.has(found.value.status)) return found;
    // Between the two full reads only the status is polled: this reader's own row at first (200, 400, 800 ms), then
    // together with every other reader still waiting, once a second (status-watch.ts): a hundred callers waiting on
    // a busy queue would otherwise read a hundred rows a second. An event of this process ends the wait at once.
    for (let polls = 0; ; polls++) {
      if (Date.now() >= until || signal?.aborted) return this.get(caller, requestId);
      const shared = polls >= OWN_POLLS;
      const pollMs = shared ? until - Date.now() : WAIT_POLL_MS * 2 ** polls;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          off?.();
          unwatch?.();
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, Math.min(pollMs, until - Date.now())));
        const off = this.events?.onFinished(requestId, done);
        const unwatch = shared ? this.watch.watch(requestId, done) : undefined;
        signal?.addEventListener('abort', done, { once: true });
      });
      // Woken by an event, the shared watch, the deadline or the caller leaving: each ends the wait.
      if (shared) return this.get(caller, requestId);
      const status = await this.store.repos.agentRequests.statusOf(requestId);
      if (!status || ENDS_WAIT.has(status)) return this.get(caller, requestId);
    }
  }

  /**
   * A request after a decision on its pause was applied, as its caller expects to read it: once `stillPaused` (the
   * decided pause is still the open one) no longer holds. The worker applies a decision before it writes what follows
   * (NEEDS_USER → RUNNING at once; a denied run's final write once its page was answered), so the row is read again
   * (10 ms, then twice as long each time, at most 250 ms; at once on this process's finish event) within `waitMs`; at
   * the bound it is answered as it then is.
   */
  async pastPause(
    caller: Caller,
    requestId: string,
    stillPaused: (record: AgentRequestRecord) => boolean,
    waitMs: number,
  ): Promise<Result<AgentRequestRecord>> {
    const until = Date.now() + waitMs;
    for (let pollMs = PAST_PAUSE_FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, PAST_PAUSE_MAX_POLL_MS)) {
      const found = await this.get(caller, requestId);
      if (!found.ok || found.value.status !== 'NEEDS_USER' || !stillPaused(found.value) || Date.now() >= until) return found;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          off?.();
          resolve();
        };
        const timer = setTimeout(done, Math.min(pollMs, Math.max(0, until - Date.now())));
        const off = this.events?.onFinished(requestId, done);
      });
    }
  }

  async get(caller: Caller, requestId: string): Promise<Result<AgentRequestRecord>> {
    const record = await this.store.repos.agentRequests.findOwned(requestId, caller);
    return record ? ok(record) : fail('AGENT_REQUEST_NOT_FOUND', `No agent request ${requestId}.`);
  }
}

export const FINAL_STATUSES = new Set<AgentRequestStatus>(['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT']);
/** A waiting reader answers at a final status, and at NEEDS_USER: only the caller can bring the user in. */
const ENDS_WAIT = new Set<AgentRequestStatus>([...FINAL_STATUSES, 'NEEDS_USER']);
/**
 * A waiting reader checks the status after 200 ms, then 400 and 800 ms (its own row), then every 1 s in the shared
 * watch (requests run by another process).
 */
const WAIT_POLL_MS = 200;
/** How often the row is read again after a decision, until it shows the run past its pause (pastPause). */
const PAST_PAUSE_FIRST_POLL_MS = 10;
const PAST_PAUSE_MAX_POLL_MS = 250;
const OWN_POLLS = 3;
const WAIT_POLL_MAX_MS = 1_000;
