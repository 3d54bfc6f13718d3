import { createHash } from 'node:crypto';

import { z } from 'zod';

import type { UserAction } from '../../../contract/schemas';
import type { UserDecision } from './run-handoff';

/**
 * A decision on a paused run taken by a process that does not hold the run's page (the app's POST …/user-action or the
 * widget reaching another process of a multi-process deployment). It is stored on the request's row by one conditional
 * update (agent-request.repository.ts `recordUserDecision`: only on the ask the caller read, only the first), and the
 * worker holding the run reads it on its next heartbeat (at most a second later) and applies it through the same
 * `RunHandoff.decide` as a decision taken in its own process: same checks, same trace step, settled once.
 */
export interface StoredDecision {
  decision: UserDecision;
  /** The ask it answers: the hash of that pause's link token (each pause has its own), never the token itself. */
  ask: string;
  /** The held write the decision was taken on (the app's `writeId`), when the caller named one. */
  writeId: string | null;
}

/** Bounded: the column is written by API processes and read by workers; anything else is not a decision. */
const Shape = z
  .object({
    decision: z.enum(['done', 'approve', 'deny', 'exit']),
    ask: z.string().regex(/^[0-9a-f]{64}$/),
    writeId: z.string().max(100).nullable(),
  })
  .strict();

/** The key of an ask: what a stored decision names to say which pause it answers. */
export function askKey(action: Pick<UserAction, 'linkToken'>): string {
  // SHA-256 hex, as link tokens are stored (domain/tokens.ts hashToken; the agent layer does not import the domain).
  return createHash('sha256').update(action.linkToken, 'utf8').digest('hex');
}

export function encodeDecision(d: StoredDecision): string {
  return JSON.stringify({ decision: d.decision, ask: d.ask, writeId: d.writeId });
}

export function parseDecision(raw: string): StoredDecision | null {
  if (raw.length > 1000) return null;
  try {
    const parsed = Shape.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Whether `decision` answers this ask as it asks: approve or deny a held write (the one named, if any), done on a step
 * on the page, exit on either. The same rule `RunHandoff.decide` applies, checked before a decision is stored too.
 */
export function fitsAsk(action: Pick<UserAction, 'reason' | 'write'>, decision: UserDecision, writeId: string | null): boolean {
  if (decision === 'exit') return true;
  const approval = action.reason === 'APPROVAL';
  if ((decision === 'approve' || decision === 'deny') !== approval) return false;
  // Bound to the write the app's user saw: a page that gave it up and holds another gets no decision meant for the first.
  return writeId === null || action.write?.id === writeId;
}

/** What the worker does with a stored decision its heartbeat read: applied when the run waits on that very ask. */
export function applyStoredDecision(run: { current: UserAction | null; decide(decision: UserDecision): boolean }, raw: string): boolean {
  const d = parseDecision(raw);
  const current = run.current;
  if (!d || !current || askKey(current) !== d.ask || !fitsAsk(current, d.decision, d.writeId)) return false;
  return run.decide(d.decision);
}
