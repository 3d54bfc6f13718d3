import { AgentLinkAbortError, AgentLinkWaitTimeoutError } from './errors';
import type { AgentRequest } from './generated/api';
import type { LegacyClient } from './operations';
import { abortableSleep, type RequestOptions } from './transport';

/** The statuses an agent request ends in; it never changes again after one. */
export const FINAL_AGENT_REQUEST_STATUSES = [
  'COMPLETED',
  'FAILED',
  'CANCELED',
  'TIMED_OUT',
] as const satisfies readonly AgentRequest['status'][];
export type FinalAgentRequestStatus = (typeof FINAL_AGENT_REQUEST_STATUSES)[number];

export const isFinalAgentRequestStatus = (status: AgentRequest['status']): status is FinalAgentRequestStatus =>
  (FINAL_AGENT_REQUEST_STATUSES as readonly string[]).includes(status);

/** The longest `waitMs` the API holds a read for. */
export const AGENT_REQUEST_WAIT_MS_MAX = 30_000;
/** The default least time between two reads that did not settle (a NEEDS_USER request answers at once). */
export const DEFAULT_POLL_INTERVAL_MS = 2_000;

export interface WaitForAgentRequestOptions {
  /**
   * `needsUser` (default): resolve at a final status or at NEEDS_USER, when only the end user can take the run further:
   * send them `userAction.url` (or open the widget with `userAction.linkToken`), then wait again.
   * `final`: resolve only at a final status, reading a NEEDS_USER request again every `pollIntervalMs` (for when the
   * user already has the link, e.g. from your AGENT_REQUEST.NEEDS_USER webhook handler).
   */
  until?: 'needsUser' | 'final';
  /** The longest time to wait in all, in ms (default: until the request settles); then AgentLinkWaitTimeoutError. */
  timeoutMs?: number;
  /** Least time between two reads that did not settle, in ms (default 2000). */
  pollIntervalMs?: number;
  /** Stops waiting (AgentLinkAbortError). */
  signal?: AbortSignal;
  /** Options of each read: headers, maxRetries, the time limit of each attempt. */
  requestOptions?: Omit<RequestOptions, 'signal' | 'idempotencyKey'>;
}

/**
 * Waits for an agent request to settle, with GET /api/agent-requests/{requestId}?waitMs= (the server holds each read
 * up to 30 s, so this is not a busy poll), and resolves to the request:
 *
 *   const { requestId } = await agentlink.agentRequests.create(body); // or agentRequests.createAndWait(body)
 *   let request = await waitForAgentRequest(agentlink, requestId);
 *   if (request.status === 'NEEDS_USER') {
 *     await notifyUser(request.userAction!.url); // or open the widget with request.userAction!.linkToken
 *     request = await waitForAgentRequest(agentlink, requestId, { until: 'final' });
 *   }
 *
 * A final status (COMPLETED, FAILED, CANCELED, TIMED_OUT) always resolves; so does NEEDS_USER unless `until` is
 * `final`. Errors of the reads are thrown as the client throws them (after its retries).
 */
export async function waitForAgentRequest(
  client: { agentRequests: Pick<LegacyClient['agentRequests'], 'getAgentRequest'> },
  requestId: string,
  options: WaitForAgentRequestOptions = {},
): Promise<AgentRequest> {
  const until = options.until ?? 'needsUser';
  const interval = Math.max(0, options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  const started = Date.now();
  const deadline = options.timeoutMs === undefined ? Infinity : started + Math.max(0, options.timeoutMs);
  const callOptions = { ...options.requestOptions, ...(options.signal ? { signal: options.signal } : {}) };
  for (;;) {
    const readAt = Date.now();
    const waitMs = Math.max(0, Math.min(AGENT_REQUEST_WAIT_MS_MAX, deadline - readAt));
    const request = await client.agentRequests.getAgentRequest({ params: { requestId }, query: { waitMs } }, callOptions);
    if (isFinalAgentRequestStatus(request.status) || (request.status === 'NEEDS_USER' && until === 'needsUser')) return request;
    const now = Date.now();
    if (now >= deadline) {
      throw new AgentLinkWaitTimeoutError(
        `Agent request ${requestId} was still ${request.status} after ${now - started} ms (timeoutMs ${options.timeoutMs}).`,
        request,
      );
    }
    // A read that came back at once (NEEDS_USER, or a server that does not hold reads) is not repeated at once.
    const pause = Math.min(interval - (now - readAt), deadline - now);
    if (pause > 0) {
      try {
        await abortableSleep(pause, options.signal);
      } catch {
        throw new AgentLinkAbortError('The wait was aborted.', { cause: options.signal?.reason });
      }
    }
  }
}
