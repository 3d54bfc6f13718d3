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
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
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
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
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

export type AgentRequestStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELED' | 'TIMED_OUT';

export interface AgentRequestError {
  code: string;
  message: string;
  details?: unknown;
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
  status: AgentRequestStatus;
  result: unknown | null;
  error: AgentRequestError | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  executionTimeMs: number | null;
  /** Queue bookkeeping: how many times a worker claimed it, who holds it and until when. */
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
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
