import type { DeviceProfile } from '../browser/device-profile';
import type { ProviderSession } from '../browser/session-format';
import type { VirtualCredential } from '../browser/webauthn-environment';
import type { UpstreamProxy } from '../egress/upstream-proxy';
import type { ConnectionRecord, Owner } from '../store';

/**
 * What the agent needs from the services of domain/, declared here, by the agent, as small interfaces: the agent
 * imports nothing of domain/ (and domain/ nothing of the agent: .dependency-cruiser.cjs, rule agent-and-domain-apart).
 * The composition root (server/services.ts, server/agent/worker/runtime.ts, server/agent/health/index.ts) hands the domain's
 * services in, and the compiler checks there that they fit.
 */

/** The time source (domain's systemClock, or a test's ManualClock). */
export interface Clock {
  now(): Date;
}

/**
 * A connection's own passkey (link token enrollPasskey), as silent re-login uses it (ConnectionPasskeys): it opens for
 * that connection's row only (the vault binds it to the id), and after a sign-in its new sign count is sealed back.
 */
export interface RunPasskeys {
  /** The credential, or null when the connection holds none. Throws when it cannot be opened. */
  open(connection: Pick<ConnectionRecord, 'id' | 'sealedPasskey'>): VirtualCredential | null;
  used(connection: Pick<ConnectionRecord, 'id' | 'sealedPasskey' | 'passkey'>, after: VirtualCredential): Promise<void>;
}

/** A connection's sign-in, sealed on its row when the organization opted in (silent re-login). */
export interface LoginCredentials {
  username: string;
  password: string;
}

/**
 * The connection a run (or a health check) works on: its row, its sealed session, device, exit and credentials, and
 * the writes that follow a run (ConnectionService). Session writes happen only while the connection is ACTIVE.
 */
export interface RunConnections {
  findForRun(connectionId: string): Promise<ConnectionRecord | null>;
  /** The unsealed provider session; null when none is stored. Throws when it cannot be opened. */
  openSession(connection: Pick<ConnectionRecord, 'id' | 'sealedSession'>): ProviderSession | null;
  /** Seals the session back after a run; false when the connection is no longer ACTIVE (nothing written). */
  saveSession(connectionId: string, session: ProviderSession, opts?: { used?: boolean }): Promise<boolean>;
  /** The run's session came back unchanged: only marks the connection used; false when it is no longer ACTIVE. */
  markUsed?(connectionId: string): Promise<boolean>;
  /** A silent re-login renewed the session (and tells the organization); null when nothing was written. */
  sessionRenewed(connectionId: string, session: ProviderSession): Promise<'renewed' | 'recovered' | null>;
  openCredentials(connection: ConnectionRecord): LoginCredentials | null;
  /** The session ended and could not be renewed: LOGIN_REQUIRED (and the organization is told). */
  markLoginRequired(connectionId: string): Promise<void>;
  deviceOf(connection: Pick<ConnectionRecord, 'device'>): DeviceProfile | null;
  keepDevice(connectionId: string, device: DeviceProfile): Promise<void>;
  /** The upstream proxy the connection's traffic leaves through; null: direct. Throws when it cannot be opened. */
  openExitProxy(connection: Pick<ConnectionRecord, 'id' | 'sealedExitProxy'>): UpstreamProxy | null;
}

/** The in-process signals the queues give and take (AgentRequestEvents): they only shorten waits. */
export interface QueueSignals {
  /** A request was queued (wakes this process's claim loop at once). */
  enqueued(requestId: string): void;
  onEnqueued(fn: (requestId: string) => void): () => void;
  /** A request reached a final status (the lease sweeper ended one whose worker died). */
  finished(requestId: string, owner?: Owner): void;
}

/**
 * The connections' scheduled health checks, as the worker's scheduler (health/health-scheduler.ts) drives them
 * (ConnectionHealthService): the rules of a check, and of when the next one is due, are the domain's.
 */
export interface ScheduledChecks {
  /** How long a claimed check holds the connection's row. */
  readonly leaseMs: number;
  /** Plans the first check of up to `limit` connections that have none planned; how many it planned. */
  planFirstChecks(limit: number): Promise<number>;
  /** Runs a check this process claimed (owner: its lease owner id); what it found, for the log (null: nothing ran). */
  runScheduled(connectionId: string, owner: string): Promise<{ outcome: string; durationMs: number; reason?: string } | null>;
}
