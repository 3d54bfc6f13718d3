import type http from 'node:http';

import getRawBody from 'raw-body';

import type { ChangeGate, ChangeSent, HeldWrite } from './change-gate';

/**
 * Holding a write at the network until someone approves it (ChangeGate.approve): the egress proxy reads the whole
 * request into memory, unsent, and sends it only once the gate says so, with exactly the bytes that were approved.
 * Reading it whole is what makes "exactly these bytes" true: a body streamed on while the question is asked could
 * not be taken back.
 */

/** The most a held write may carry, request body or WebSocket message: it waits in memory, whole. */
export const HOLD_LIMIT_BYTES = 1 << 20;

/** Why a write over the bound is refused (never cut: a truncated write would be a different one). */
export const TOO_LARGE_TO_HOLD = `too large to hold for approval (over ${HOLD_LIMIT_BYTES} bytes)`;

export type Approve = NonNullable<ChangeGate['approve']>;

/** What came of a held request: send exactly `body`, refuse it (reported by the caller), or the page gave up on it. */
export type HoldOutcome = { send: Buffer } | { refused: string } | 'gone';

/**
 * An approved write that could not be sent on: a 502, never a dropped connection (unless its answer began). A browser
 * sends a request again when its connection closed unanswered, and that would be a second send of a write approved once.
 */
export function failApproved(res: http.ServerResponse): void {
  if (res.headersSent) res.destroy();
  else res.writeHead(502, { connection: 'close' }).end();
}

/**
 * The gate's answer on one held write. An approver that fails refuses: a write is sent only when it was approved.
 */
export async function askApproval(approve: Approve, write: HeldWrite, signal: AbortSignal): Promise<string | null> {
  try {
    return await approve(write, signal);
  } catch {
    return 'the approval failed';
  }
}

/**
 * Holds one request that may change something until `approve` decides. The signal aborts when the browser's side of
 * the request closes (`res` closes before it was answered); the outcome is then 'gone', whatever the gate answers.
 */
export async function holdRequest(
  approve: Approve,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  change: ChangeSent,
): Promise<HoldOutcome> {
  const gone = new AbortController();
  const giveUp = () => gone.abort();
  res.once('close', giveUp);
  try {
    const body = await readBounded(req);
    if (body === 'unread' || gone.signal.aborted) return 'gone';
    if (body === 'too large') return { refused: TOO_LARGE_TO_HOLD };
    const contentType = req.headers['content-type'] ?? null;
    const why = await askApproval(approve, { ...change, contentType, body }, gone.signal);
    if (gone.signal.aborted) return 'gone';
    return why === null ? { send: body } : { refused: why };
  } finally {
    res.off('close', giveUp);
  }
}

/**
 * The request's whole body, or 'too large' past HOLD_LIMIT_BYTES (a declared length over it is refused before any of
 * it is read), or 'unread' when the browser stopped sending it (its connection closed: nothing to hold any more).
 */
async function readBounded(req: http.IncomingMessage): Promise<Buffer | 'too large' | 'unread'> {
  try {
    return await getRawBody(req, { limit: HOLD_LIMIT_BYTES, length: req.headers['content-length'] ?? null });
  } catch (err) {
    return (err as getRawBody.RawBodyError).type === 'entity.too.large' ? 'too large' : 'unread';
  }
}
