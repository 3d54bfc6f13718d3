import type { Environment } from '../config';

/** Plain shapes of the stored rows. Services see these, never TypeORM entities or SQL. */

export interface OrganizationRecord {
  id: string;
  name: string;
  clientId: string;
  sandboxSecretHash: string;
  productionSecretHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set when an operator disabled it: its credentials are refused, its dashboard closed (null or absent: active). */
  disabledAt?: Date | null;
}

export interface LinkTokenRecord {
  id: string;
  tokenHash: string;
  organizationId: string;
  environment: Environment;
  clientUserId: string;
  providerId: string | null;
  /** Set when the link token was made to re-authenticate an existing connection ("update mode"). */
  connectionId: string | null;
  /**
   * Set when the link token brings the end user into a paused agent request (NEEDS_USER): the widget shows that run's
   * own browser instead of a sign-in. Made by the worker when the run pauses; the connection's provider and user.
   */
  agentRequestId?: string | null;
  /** With agentRequestId: the internal URL of the worker process that holds the run's browser (relay/session-relay.ts). */
  hostUrl?: string | null;
  /** The organization opted in to storing the sealed credentials for silent re-login (default false). */
  rememberCredentials: boolean;
  /** The organization opted in to the sign-in keeping a passkey of the connection's own, with the person's consent. */
  enrollPasskey?: boolean;
  /** 'live': the caller asked for the live sign-in view; 'auto': the recipe where there is one. */
  signIn: 'auto' | 'live';
  /**
   * Where the hosted link sends the browser when the flow ends (one of the organization's registered redirect URIs,
   * exactly as registered); null: the widget ends on its own page.
   */
  completionRedirectUri: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** The public face of a connection's passkey. */
export interface ConnectionPasskey {
  /** base64url of the credential's raw id. */
  credentialId: string;
  rpId: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export type ConnectionStatus = 'ACTIVE' | 'LOGIN_REQUIRED' | 'REVOKED';

export interface ConnectionRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  providerId: string;
  clientUserId: string;
  status: ConnectionStatus;
  /** Vault-sealed Playwright storage state; null until a login captured one, and after revocation. */
  sealedSession: string | null;
  /** Vault-sealed credentials for silent re-login, only when the organization opted in. */
  sealedCredentials: string | null;
  /** Vault-sealed passkey of the connection's own (the credential with its private key); null: none. */
  sealedPasskey?: string | null;
  /** What the API shows of that passkey (never a secret); null: none. */
  passkey?: ConnectionPasskey | null;
  /**
   * The device every run, check and re-login presents (server/browser/device-profile.ts; checked when read). Not a
   * secret. null until the connection's first sign-in or run chose one.
   */
  device: Record<string, unknown> | null;
  /** Vault-sealed upstream proxy (address and credentials) the connection's browser traffic leaves through; null: direct. */
  sealedExitProxy: string | null;
  /** What the API shows of that proxy (never its credentials); null with no proxy. */
  exitProxyLabel: string | null;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /**
   * Health checks of the session (server/agent/health/): when the last one ended and what it found, when the next
   * scheduled one is due (null: not planned yet, the scheduler plans it), and the check lease: a process checks the
   * connection only while `checkOwner` is its id and `checkLeaseUntil` is in the future. Optional: rows written before
   * the checks existed, and records built without them, read as never checked.
   */
  lastCheckedAt?: Date | null;
  lastCheckOutcome?: ConnectionCheckOutcome | null;
  nextCheckAt?: Date | null;
  checkOwner?: string | null;
  checkLeaseUntil?: Date | null;
}

/** What a health check of a connection's session found (contract/connection-health.ts describes each). */
export type ConnectionCheckOutcome = 'SIGNED_IN' | 'RENEWED' | 'LOGIN_REQUIRED' | 'TIMED_OUT' | 'UNREACHABLE' | 'SESSION_UNREADABLE';

/** An organization's connection settings in one environment: the health-check schedule of its connections. */
export interface ConnectionSettingsRecord {
  organizationId: string;
  environment: Environment;
  /** Seconds between scheduled checks; null: the service's default; 0: off. */
  healthCheckIntervalSeconds: number | null;
  /** providerId → seconds (0: off), replacing healthCheckIntervalSeconds for that provider's connections. */
  healthCheckProviders: Record<string, number>;
  /** Web Bot Auth: the agent signs its requests to the providers that opt in too (absent on rows from before: off). */
  signedAgent?: boolean;
  updatedAt: Date;
}

/** A key of the deployment itself, per purpose (e.g. Web Bot Auth signing), sealed by the vault. */
export interface DeploymentKeyRecord {
  purpose: string;
  sealedKey: string;
  createdAt: Date;
}

export interface PublicTokenRecord {
  id: string;
  tokenHash: string;
  organizationId: string;
  environment: Environment;
  connectionId: string;
  expiresAt: Date;
  exchangedAt: Date | null;
  createdAt: Date;
}

export interface AccessTokenRecord {
  id: string;
  tokenHash: string;
  organizationId: string;
  environment: Environment;
  connectionId: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export type AgentRequestStatus = 'PENDING' | 'RUNNING' | 'NEEDS_USER' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'TIMED_OUT';
/** When writes wait for the end user's approval (null: they do not). */
export type AgentApprovalMode = 'writes' | 'first_write';

export interface AgentRequestError {
  code: string;
  message: string;
  details?: unknown;
}

/** Something a COMPLETED request could not do fully (a result field it could not fill after its write took effect …). */
export interface AgentRequestWarning {
  code: string;
  message: string;
  /** Where, e.g. "result.sentAt". */
  path?: string;
}

/** One step of a run's trace (the agent calls it TraceStep). */
export interface AgentTraceStep {
  tool: string;
  target?: string;
  url: string;
  durationMs: number;
  outcome: 'ok' | 'error' | 'blocked';
  error?: string;
  screenshot?: string;
}

export type AgentRunMethod = 'PLAYBOOK' | 'REPLAY' | 'PLANNER';

/** One claim of an agent request by a worker: which worker, when, and how that attempt ended if it did not finish. */
export interface AgentAttempt {
  attempt: number;
  /** The worker's lease owner id (host:pid:random, as in its logs). */
  worker: string;
  startedAt: string;
  /** Set when the attempt gave the request back (it ran again); absent on the attempt that wrote the outcome, or on one whose worker died. */
  ended?: 'released' | 'retried';
}

/** read: the browser may send no state-changing request (enforced at the network); read_write: the default. */
export type AgentRunMode = 'read' | 'read_write';

export interface AgentModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface AgentRequestRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  connectionId: string;
  providerId: string;
  action: string;
  startingUrl: string;
  parameters: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  timeoutMs: number;
  mode: AgentRunMode;
  /** The playbook the request names (no routing); null: routed. */
  playbook: string | null;
  approval: AgentApprovalMode | null;
  status: AgentRequestStatus;
  /**
   * While NEEDS_USER: what the run waits for (the contract's UserAction, its link token included), vault-sealed JSON;
   * null otherwise.
   */
  sealedUserAction: string | null;
  /**
   * While NEEDS_USER: a decision on the open ask taken by a process that does not hold the run, until its worker applies
   * it (server/agent/handoff/stored-decision.ts); null otherwise.
   */
  userDecision: string | null;
  result: unknown | null;
  error: AgentRequestError | null;
  /** What a COMPLETED request could not do fully; empty otherwise. */
  warnings: AgentRequestWarning[];
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  executionTimeMs: number | null;
  /** Queue bookkeeping: how many times a worker claimed it, who holds it and until when. */
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** Every claim, in order (operators see which worker ran which attempt); null before the first. */
  attemptLog: AgentAttempt[] | null;
  /** What the run did, step by step (failed steps carry a screenshot). */
  trace: AgentTraceStep[];
  /** Which of the three ways produced the outcome; null until one ran. */
  method: AgentRunMethod | null;
  modelUsage: AgentModelUsage | null;
  /** Set by the cancel endpoint; a running worker sees it and stops. */
  cancelRequestedAt: Date | null;
  /** W3C traceparent of the API request that queued it (OpenTelemetry): the worker's run joins that trace. */
  traceParent: string | null;
}

/** A login session on a simulated provider site; `id` is the SHA-256 of the cookie value. */
export interface SandboxSessionRecord {
  id: string;
  tenant: string;
  site: string;
  username: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

/** One document of a simulated site's content (a post, a repository, a message …). */
export interface SandboxDocRecord {
  id: string;
  tenant: string;
  site: string;
  kind: string;
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface SandboxTenantRecord {
  tenant: string;
  site: string;
  seededAt: Date;
}

/**
 * One opening of the connect widget (Plaid's link session): where the person is in the flow and how it ended.
 * CONSENT → PROVIDER → CREDENTIALS → (MFA_TOTP | MFA_SMS | HUMAN_CHECK) → SUCCEEDED, or FAILED (the flow cannot
 * go on, e.g. the link token expired) or EXITED (the person left); errorCode keeps the last error they saw.
 */
export type LinkSessionStatus =
  | 'CONSENT'
  | 'PROVIDER'
  | 'CREDENTIALS'
  | 'MFA_TOTP'
  | 'MFA_SMS'
  | 'HUMAN_CHECK'
  /** A paused agent run's widget (mode user_action): the person is with the run's own page. */
  | 'USER_ACTION'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'EXITED';

export interface LinkSessionRecord {
  id: string;
  linkTokenId: string;
  organizationId: string;
  environment: Environment;
  clientUserId: string;
  /**
   * create: a new connection; update: re-authenticates the link token's connection (Plaid's update mode); user_action:
   * brings the user into a paused agent request (the link token's agentRequestId).
   */
  mode: 'create' | 'update' | 'user_action';
  providerId: string | null;
  /** The connection created or re-authenticated (update mode: set from the start). */
  connectionId: string | null;
  status: LinkSessionStatus;
  errorCode: string | null;
  errorMessage: string | null;
  /** Credential submissions so far (bounded per session). */
  attempts: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /**
   * The internal URL of the API process holding this session's in-memory part (a sign-in paused at a code step, a
   * live browser), for the other processes to relay its widget calls to (server/connect/relay/). Null until one does.
   */
  hostUrl?: string | null;
}

/** A URI an organization allows hosted links of one environment to redirect to when they end (exact match). */
export interface RedirectUriRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  uri: string;
  /** SHA-256 of uri (hex): the unique index, since uri may be up to 2048 characters. */
  uriHash: string;
  createdAt: Date;
}

/** A trajectory learned from a successful planner run (server/agent/replay); `id` is its cache key. */
export interface AgentTrajectoryRecord {
  id: string;
  providerId: string;
  /** The normalised action template it was learned for (for people reading the table). */
  actionTemplate: string;
  version: number;
  /** Hash of the result JSON Schema it extracts; another schema is a miss. */
  schemaHash: string;
  trajectory: Record<string, unknown>;
  replayCount: number;
  createdAt: Date;
  updatedAt: Date;
  lastReplayedAt: Date | null;
  /** Set when a replay's answer could not be checked on the live page: the next request re-learns it (planner). */
  staleAt?: Date | null;
  staleReason?: string | null;
}

export type IdempotencyKeyStatus = 'IN_PROGRESS' | 'DONE';

/** A claimed Idempotency-Key of one organization and environment, and (once DONE) the first response, sealed. */
export interface IdempotencyKeyRecord {
  /** sha256(organizationId, environment, key): the unique claim. */
  id: string;
  organizationId: string;
  environment: Environment;
  /** Random per claim: only the request that claimed the row completes or releases it. */
  claimId: string;
  /** sha256 of method, path and canonical JSON body. */
  fingerprint: string;
  status: IdempotencyKeyStatus;
  responseStatus: number | null;
  /** The response body as JSON, sealed with the vault (it can hold an access token). */
  sealedResponse: string | null;
  createdAt: Date;
  /** An IN_PROGRESS claim older than this is treated as abandoned (its process died). */
  lockedUntil: Date;
  expiresAt: Date;
}

/** An organization's private provider: its declaration (contract/provider-declaration.ts) as validated. */
export interface OrganizationProviderRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  slug: string;
  declaration: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export * from './records-dashboard';
export * from './records-webhooks';
