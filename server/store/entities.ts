import { EntitySchema } from 'typeorm';

import type { Dialect } from './dialect';
import { buildDashboardEntities } from './entities-dashboard';
import { buildWebhookEntities } from './entities-webhooks';
import { entityColumns } from './entity-columns';
import type {
  AccessTokenRecord,
  AgentRequestRecord,
  AgentTrajectoryRecord,
  ConnectionRecord,
  ConnectionSettingsRecord,
  DeploymentKeyRecord,
  IdempotencyKeyRecord,
  LinkSessionRecord,
  LinkTokenRecord,
  OrganizationProviderRecord,
  OrganizationRecord,
  PublicTokenRecord,
  RedirectUriRecord,
  SandboxDocRecord,
  SandboxSessionRecord,
  SandboxTenantRecord,
} from './records';

/**
 * Entities are built per dialect (n8n's column helpers): the same record shapes map to JSONB and
 * TIMESTAMPTZ on PostgreSQL and to TEXT and DATETIME on SQLite. Schema changes go through migrations.
 */
export function buildEntities(dialect: Dialect) {
  const { id, str, text, time, json, int } = entityColumns(dialect);

  const Organization = new EntitySchema<OrganizationRecord>({
    name: 'Organization',
    tableName: 'organizations',
    columns: {
      id: id(),
      name: str('name'),
      clientId: str('client_id', { length: 64, unique: true }),
      sandboxSecretHash: text('sandbox_secret_hash'),
      productionSecretHash: text('production_secret_hash'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
      disabledAt: time('disabled_at', true),
    },
  });

  const LinkToken = new EntitySchema<LinkTokenRecord>({
    name: 'LinkToken',
    tableName: 'link_tokens',
    columns: {
      id: id(),
      tokenHash: str('token_hash', { length: 64, unique: true }),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      clientUserId: str('client_user_id', { length: 256 }),
      providerId: str('provider_id', { length: 64, nullable: true }),
      connectionId: str('connection_id', { length: 64, nullable: true }),
      agentRequestId: str('agent_request_id', { length: 64, nullable: true }),
      hostUrl: str('host_url', { length: 300, nullable: true }),
      rememberCredentials: { name: 'remember_credentials', type: 'boolean', default: false },
      enrollPasskey: { name: 'enroll_passkey', type: 'boolean', default: false },
      signIn: str('sign_in', { length: 8, default: 'auto' }),
      completionRedirectUri: text('completion_redirect_uri', true),
      expiresAt: time('expires_at'),
      usedAt: time('used_at', true),
      createdAt: time('created_at'),
    },
  });

  const Connection = new EntitySchema<ConnectionRecord>({
    name: 'Connection',
    tableName: 'connections',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      providerId: str('provider_id', { length: 64 }),
      clientUserId: str('client_user_id', { length: 256 }),
      status: str('status', { length: 32 }),
      sealedSession: text('sealed_session', true),
      sealedCredentials: text('sealed_credentials', true),
      sealedPasskey: text('sealed_passkey', true),
      passkey: json('passkey', true),
      device: json('device', true),
      sealedExitProxy: text('sealed_exit_proxy', true),
      exitProxyLabel: str('exit_proxy_label', { length: 100, nullable: true }),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
      lastUsedAt: time('last_used_at', true),
      revokedAt: time('revoked_at', true),
      lastCheckedAt: time('last_checked_at', true),
      lastCheckOutcome: str('last_check_outcome', { length: 32, nullable: true }),
      nextCheckAt: time('next_check_at', true),
      checkOwner: str('check_owner', { length: 128, nullable: true }),
      checkLeaseUntil: time('check_lease_until', true),
    },
  });

  const ConnectionSettings = new EntitySchema<ConnectionSettingsRecord>({
    name: 'ConnectionSettings',
    tableName: 'connection_settings',
    columns: {
      organizationId: { name: 'organization_id', type: 'varchar', length: 64, primary: true },
      environment: { name: 'environment', type: 'varchar', length: 16, primary: true },
      healthCheckIntervalSeconds: int('health_check_interval_seconds', true),
      healthCheckProviders: json('health_check_providers'),
      signedAgent: { name: 'signed_agent', type: 'boolean', default: false },
      updatedAt: time('updated_at'),
    },
  });

  const DeploymentKey = new EntitySchema<DeploymentKeyRecord>({
    name: 'DeploymentKey',
    tableName: 'deployment_keys',
    columns: {
      purpose: { name: 'purpose', type: 'varchar', length: 64, primary: true },
      sealedKey: text('sealed_key'),
      createdAt: time('created_at'),
    },
  });

  const PublicToken = new EntitySchema<PublicTokenRecord>({
    name: 'PublicToken',
    tableName: 'public_tokens',
    columns: {
      id: id(),
      tokenHash: str('token_hash', { length: 64, unique: true }),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      connectionId: str('connection_id', { length: 64 }),
      expiresAt: time('expires_at'),
      exchangedAt: time('exchanged_at', true),
      createdAt: time('created_at'),
    },
  });

  const AccessToken = new EntitySchema<AccessTokenRecord>({
    name: 'AccessToken',
    tableName: 'access_tokens',
    columns: {
      id: id(),
      tokenHash: str('token_hash', { length: 64, unique: true }),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      connectionId: str('connection_id', { length: 64 }),
      createdAt: time('created_at'),
      lastUsedAt: time('last_used_at', true),
      revokedAt: time('revoked_at', true),
    },
  });

  const AgentRequest = new EntitySchema<AgentRequestRecord>({
    name: 'AgentRequest',
    tableName: 'agent_requests',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      connectionId: str('connection_id', { length: 64 }),
      providerId: str('provider_id', { length: 64 }),
      action: text('action'),
      startingUrl: text('starting_url'),
      parameters: json('parameters'),
      responseFormat: json('response_format'),
      timeoutMs: int('timeout_ms'),
      mode: { ...str('mode', { length: 16 }), default: 'read_write' },
      playbook: str('playbook', { length: 100, nullable: true }),
      approval: str('approval', { length: 16, nullable: true }),
      status: str('status', { length: 32 }),
      sealedUserAction: text('sealed_user_action', true),
      userDecision: text('user_decision', true),
      result: json('result', true),
      error: json('error', true),
      warnings: { ...json('warnings'), default: '[]' },
      createdAt: time('created_at'),
      startedAt: time('started_at', true),
      completedAt: time('completed_at', true),
      executionTimeMs: int('execution_time_ms', true),
      attempts: int('attempts'),
      leaseOwner: str('lease_owner', { length: 128, nullable: true }),
      leaseExpiresAt: time('lease_expires_at', true),
      attemptLog: json('attempt_log', true),
      trace: { ...json('trace'), default: '[]' },
      method: str('method', { length: 16, nullable: true }),
      modelUsage: json('model_usage', true),
      cancelRequestedAt: time('cancel_requested_at', true),
      traceParent: str('trace_parent', { length: 64, nullable: true }),
    },
  });

  const SandboxSession = new EntitySchema<SandboxSessionRecord>({
    name: 'SandboxSession',
    tableName: 'sandbox_sessions',
    columns: {
      id: id(),
      tenant: str('tenant', { length: 64 }),
      site: str('site', { length: 32 }),
      username: str('username', { length: 64 }),
      csrfToken: str('csrf_token', { length: 64 }),
      createdAt: time('created_at'),
      expiresAt: time('expires_at'),
    },
  });

  const SandboxDoc = new EntitySchema<SandboxDocRecord>({
    name: 'SandboxDoc',
    tableName: 'sandbox_records',
    columns: {
      id: id(),
      tenant: str('tenant', { length: 64 }),
      site: str('site', { length: 32 }),
      kind: str('kind', { length: 32 }),
      data: json('data'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
    },
  });

  const SandboxTenant = new EntitySchema<SandboxTenantRecord>({
    name: 'SandboxTenant',
    tableName: 'sandbox_tenants',
    columns: {
      tenant: { type: 'varchar', length: 64, primary: true },
      site: { type: 'varchar', length: 32, primary: true },
      seededAt: time('seeded_at'),
    },
  });

  const LinkSession = new EntitySchema<LinkSessionRecord>({
    name: 'LinkSession',
    tableName: 'link_sessions',
    columns: {
      id: id(),
      linkTokenId: str('link_token_id', { length: 64 }),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      clientUserId: str('client_user_id', { length: 256 }),
      mode: str('mode', { length: 16 }),
      providerId: str('provider_id', { length: 64, nullable: true }),
      connectionId: str('connection_id', { length: 64, nullable: true }),
      status: str('status', { length: 32 }),
      errorCode: str('error_code', { length: 64, nullable: true }),
      errorMessage: text('error_message', true),
      attempts: int('attempts'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
      completedAt: time('completed_at', true),
      hostUrl: str('host_url', { length: 300, nullable: true }),
    },
  });

  const AgentTrajectory = new EntitySchema<AgentTrajectoryRecord>({
    name: 'AgentTrajectory',
    tableName: 'agent_trajectories',
    columns: {
      id: id(),
      providerId: str('provider_id', { length: 64 }),
      actionTemplate: text('action_template'),
      version: int('version'),
      schemaHash: str('schema_hash', { length: 64 }),
      trajectory: json('trajectory'),
      replayCount: { ...int('replay_count'), default: 0 },
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
      lastReplayedAt: time('last_replayed_at', true),
      staleAt: time('stale_at', true),
      staleReason: text('stale_reason', true),
    },
  });

  const IdempotencyKey = new EntitySchema<IdempotencyKeyRecord>({
    name: 'IdempotencyKey',
    tableName: 'idempotency_keys',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      claimId: str('claim_id', { length: 64 }),
      fingerprint: str('fingerprint', { length: 64 }),
      status: str('status', { length: 16 }),
      responseStatus: int('response_status', true),
      sealedResponse: text('sealed_response', true),
      createdAt: time('created_at'),
      lockedUntil: time('locked_until'),
      expiresAt: time('expires_at'),
    },
  });

  const OrganizationProvider = new EntitySchema<OrganizationProviderRecord>({
    name: 'OrganizationProvider',
    tableName: 'organization_providers',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      slug: str('slug', { length: 64 }),
      declaration: json('declaration'),
      createdAt: time('created_at'),
      updatedAt: time('updated_at'),
    },
  });

  const RedirectUri = new EntitySchema<RedirectUriRecord>({
    name: 'RedirectUri',
    tableName: 'redirect_uris',
    columns: {
      id: id(),
      organizationId: str('organization_id', { length: 64 }),
      environment: str('environment', { length: 16 }),
      uri: text('uri'),
      uriHash: str('uri_hash', { length: 64 }),
      createdAt: time('created_at'),
    },
  });

  return {
    Organization,
    LinkToken,
    Connection,
    ConnectionSettings,
    DeploymentKey,
    PublicToken,
    AccessToken,
    AgentRequest,
    SandboxSession,
    SandboxDoc,
    SandboxTenant,
    LinkSession,
    AgentTrajectory,
    ...buildDashboardEntities(dialect),
    IdempotencyKey,
    ...buildWebhookEntities(dialect),
    OrganizationProvider,
    RedirectUri,
  };
}

export type Entities = ReturnType<typeof buildEntities>;
