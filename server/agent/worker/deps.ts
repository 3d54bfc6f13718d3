import type { Logger } from 'pino';

import type { UserAction } from '../../../contract/schemas';
import type { Environment } from '../../config';
import type { ContextSource } from '../../egress/fenced-context';
import type { ProviderDefinition } from '../../providers/catalogue';
import type { AgentAttempt, AgentRequestRecord, Owner } from '../../store';
import type { HandoffRegistry } from '../handoff/handoff-registry';
import type { Clock, RunConnections } from '../ports';
import type { AgentQueue } from '../queue/queue';
import type { ExecutionStrategy } from '../run/context';
import type { WorkerTelemetry } from '../run/telemetry';
import type { RunSigning } from './run-signing';
import type { SilentRelogin } from './silent-relogin';
import type { WarmContexts } from './warm-contexts';

export type { RunSigning } from './run-signing';

/**
 * Everything the worker touches, and nothing more: it never sees the store, the vault or the other
 * services. Built from the composition root by createAgentWorker (server/agent/worker/runtime.ts).
 */
export interface WorkerDeps {
  /** Where claims come from, and where a request released on shutdown goes back to. */
  queue: Pick<AgentQueue, 'start' | 'stop' | 'enqueue'>;
  /** The agent request rows, changed only under the worker's lease. */
  requests: AgentRequestLedger;
  /** The connection a run works on: its status, its sealed session and credentials, LOGIN_REQUIRED. */
  connections: RunConnections;
  /** The provider declaration of a request (allowed domains, sign-in page). */
  providers: {
    find(providerId: string, scope: { organizationId: string; environment: Environment }): Promise<ProviderDefinition | undefined>;
  };
  browsers: ContextSource;
  clock: Clock;
  /** In-process run signals: cancel requested here, a request finished or paused NEEDS_USER (wakes waiting readers, webhooks). */
  events: {
    onCancelRequested(requestId: string, fn: () => void): () => void;
    finished(requestId: string, owner?: Owner): void;
    needsUser(requestId: string): void;
  };
  settings: WorkerSettings;
  logger: Logger;
  /** Tried in order; the first that does not answer not_applicable decides. */
  strategies: ExecutionStrategy[];
  /** Contexts kept warm between runs of the same connection (absent: each run opens and closes its own). */
  warm?: WarmContexts;
  /** Renews a dead provider session from the sealed credentials; absent: the connection becomes LOGIN_REQUIRED. */
  relogin?: SilentRelogin;
  /** Web Bot Auth: the signer of a run's requests, where its organization and provider opted in (absent: never signed). */
  signing?: RunSigning;
  /** Metrics and traces of runs (absent: none). */
  telemetry?: WorkerTelemetry;
  /** Runs that need their user pause here (absent: a step only the user can do fails with USER_ACTION_UNAVAILABLE). */
  handoffs?: { registry: HandoffRegistry; desk: UserActionDesk };
}

/** What pausing a run for its user needs from the rest of the service (built at the composition root). */
export interface UserActionDesk {
  /** How long a run waits for its user. */
  ttlMs: number;
  /** A link token that brings the user into this run, valid until `expiresAt`, and the hosted page that opens it. */
  linkFor(record: AgentRequestRecord, expiresAt: Date): Promise<{ linkToken: string; url: string }>;
  /** Seals the user action for the request's row (it holds the link token). */
  seal(requestId: string, action: UserAction): string;
  /** AGENT_REQUEST.NEEDS_USER, off the run's path; never throws. */
  announce(record: AgentRequestRecord, action: UserAction): void;
}

export interface WorkerSettings {
  leaseSeconds: number;
  /** Requests run at once by this worker. */
  concurrency: number;
  /** Claims a request may have (AGENTLINK_WORKER_MAX_ATTEMPTS): a run whose browser died is retried while attempts are left. */
  maxAttempts: number;
  /** Whether the planner has a model (decides between MODEL_NOT_CONFIGURED and NO_STRATEGY). */
  modelConfigured: boolean;
  /** Lease renewal and cancel polling period (default: a third of the lease, at most 1 s). */
  heartbeatMs?: number;
}

/** What a worker writes when a run ends. */
export type AgentRequestOutcome = Pick<
  AgentRequestRecord,
  'status' | 'result' | 'error' | 'warnings' | 'completedAt' | 'executionTimeMs' | 'trace' | 'method' | 'modelUsage'
>;

/** The lease-guarded operations on agent request rows (AgentRequestRepository in server/store). */
export interface AgentRequestLedger {
  findById(id: string): Promise<AgentRequestRecord | null>;
  /**
   * Extends the lease and says whether a cancel was asked and what decision another process stored on the open ask (one
   * statement); null when the worker lost the lease.
   */
  heartbeat(id: string, owner: string, leaseUntil: Date): Promise<{ cancelRequested: boolean; userDecision: string | null } | null>;
  /** Records the attempts so far (which worker ran each; the claim noted this one); false when the worker no longer holds it. */
  noteAttempts(id: string, owner: string, attemptLog: AgentAttempt[]): Promise<boolean>;
  /** Runs the request again as its next attempt (PENDING, this attempt counted); false when the worker no longer holds it. */
  retry(id: string, owner: string): Promise<boolean>;
  /** Gives the request back (PENDING, attempt not counted); false when the worker no longer holds it. */
  release(id: string, owner: string): Promise<boolean>;
  /** The final write; false when the worker no longer holds the lease. */
  finish(id: string, owner: string, outcome: AgentRequestOutcome): Promise<boolean>;
  /** RUNNING → NEEDS_USER with the sealed user action; false when the worker no longer holds it. */
  pauseForUser(id: string, owner: string, sealedUserAction: string): Promise<boolean>;
  /** NEEDS_USER → RUNNING; false when the worker no longer holds it. */
  resumeFromUser(id: string, owner: string): Promise<boolean>;
  /** Says on the row whether a decision the heartbeat carried was applied (its deciding process answers by it). */
  settleUserDecision(id: string, owner: string, decision: string, applied: boolean): Promise<boolean>;
}
