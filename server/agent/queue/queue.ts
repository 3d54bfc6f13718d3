import type { AgentRequestRecord } from '../../store';

/**
 * One small queue interface, two engines:
 *   - embedded (default on SQLite): workers claim agent request rows straight from the database;
 *   - pg-boss (default on PostgreSQL): one job per request, so any number of worker processes on any
 *     number of machines share the work.
 * Either way the agent request row is the source of truth: a worker runs a request only after winning
 * the row's conditional claim (status + lease), so no request runs twice at once, and the lease it
 * renews while running lets another worker recover the request when it dies.
 */
export interface ClaimedRequest {
  requestId: string;
  /** The lease owner id this worker claimed the row with; every later write of the run is conditional on it. */
  owner: string;
  /** The row as the claim left it (the claim answers it: no second read); absent, the worker reads it. */
  record?: AgentRequestRecord;
  /** How long the claim statement took, in ms (reported as the run's `claim` stage, run/stages.ts). */
  claimMs?: number;
}

export type ClaimHandler = (claim: ClaimedRequest) => Promise<void>;

export interface QueueStartOptions {
  /** Requests this worker process runs at the same time. */
  concurrency: number;
  /**
   * Runs of this process at work outside the handlers the queue is waiting on: a run that paused for its user returns
   * its handler (it holds no slot while it waits) and takes a slot again when it resumes. The queue claims only while
   * its handlers plus these are under `concurrency`.
   */
  busy?: () => number;
}

export interface AgentQueue {
  readonly engine: 'embedded' | 'pg-boss';
  /** Makes a freshly inserted PENDING request known to the workers. */
  enqueue(requestId: string): Promise<void>;
  /** Starts claiming work for this process and hands each claimed request to `handler`. */
  start(handler: ClaimHandler, opts: QueueStartOptions): Promise<void>;
  /** Stops claiming and waits for running handlers to return. Safe to call when never started. */
  stop(): Promise<void>;
  /** Resolves when the queue can take and hand out work; rejects (QueueUnavailable) when stopped or unreachable. */
  health(): Promise<void>;
}

/** Why a queue is not ready; the message is safe to show on /readyz (no addresses, no credentials). */
export class QueueUnavailable extends Error {}

export interface LeaseSettings {
  leaseMs: number;
  pollMs: number;
  maxAttempts: number;
}
