import type { DataSource } from 'typeorm';

import type {
  AccessTokenRecord,
  AgentRequestRecord,
  AgentTrajectoryRecord,
  ConnectionRecord,
  ConnectionSettingsRecord,
  DashboardInvitationRecord,
  DashboardLoginThrottleRecord,
  DashboardSessionRecord,
  DashboardUserRecord,
  DeploymentKeyRecord,
  IdempotencyKeyRecord,
  LinkSessionRecord,
  LinkTokenRecord,
  OrganizationProviderRecord,
  OrganizationRecord,
  OrgMembershipRecord,
  PublicTokenRecord,
  RedirectUriRecord,
  SandboxDocRecord,
  SandboxSessionRecord,
  SandboxTenantRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEventRecord,
} from '../records';
import { AccessTokenRepository } from './access-token.repository';
import { AgentRequestRepository } from './agent-request.repository';
import { AgentTrajectoryRepository } from './agent-trajectory.repository';
import { ConnectionRepository } from './connection.repository';
import { ConnectionSettingsRepository } from './connection-settings.repository';
import { DashboardInvitationRepository } from './dashboard-invitation.repository';
import { DashboardLoginThrottleRepository } from './dashboard-login-throttle.repository';
import { DashboardSessionRepository } from './dashboard-session.repository';
import { DashboardUserRepository } from './dashboard-user.repository';
import { DeploymentKeyRepository } from './deployment-key.repository';
import { IdempotencyKeyRepository } from './idempotency-key.repository';
import { LinkSessionRepository } from './link-session.repository';
import { LinkTokenRepository } from './link-token.repository';
import { OrgMembershipRepository } from './org-membership.repository';
import { OrganizationRepository } from './organization.repository';
import { OrganizationProviderRepository } from './organization-provider.repository';
import { PublicTokenRepository } from './public-token.repository';
import { RateLimitBucketRepository } from './rate-limit-bucket.repository';
import { RedirectUriRepository } from './redirect-uri.repository';
import { SandboxDocRepository } from './sandbox-doc.repository';
import { SandboxSessionRepository } from './sandbox-session.repository';
import { SandboxTenantRepository } from './sandbox-tenant.repository';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookEndpointRepository } from './webhook-endpoint.repository';
import { WebhookEventRepository } from './webhook-event.repository';

export type { AccessGrant } from './access-token.repository';
export type { AgentRequestFinal, AgentRequestPage } from './agent-request.repository';
export type { KeysetPage, KeysetPosition, Owner } from './base.repository';
export type { BucketTake } from './rate-limit-bucket.repository';
export type { WebhookDeliveryPage } from './webhook-delivery.repository';

/** One repository per aggregate, on an opened data source (`store.repos`). */
export function buildRepositories(ds: DataSource) {
  return {
    organizations: new OrganizationRepository(ds.getRepository<OrganizationRecord>('Organization')),
    linkTokens: new LinkTokenRepository(ds.getRepository<LinkTokenRecord>('LinkToken')),
    connections: new ConnectionRepository(ds.getRepository<ConnectionRecord>('Connection')),
    connectionSettings: new ConnectionSettingsRepository(ds.getRepository<ConnectionSettingsRecord>('ConnectionSettings')),
    deploymentKeys: new DeploymentKeyRepository(ds.getRepository<DeploymentKeyRecord>('DeploymentKey')),
    publicTokens: new PublicTokenRepository(ds.getRepository<PublicTokenRecord>('PublicToken')),
    accessTokens: new AccessTokenRepository(ds.getRepository<AccessTokenRecord>('AccessToken')),
    agentRequests: new AgentRequestRepository(ds.getRepository<AgentRequestRecord>('AgentRequest')),
    sandboxSessions: new SandboxSessionRepository(ds.getRepository<SandboxSessionRecord>('SandboxSession')),
    sandboxDocs: new SandboxDocRepository(ds.getRepository<SandboxDocRecord>('SandboxDoc')),
    sandboxTenants: new SandboxTenantRepository(ds.getRepository<SandboxTenantRecord>('SandboxTenant')),
    linkSessions: new LinkSessionRepository(ds.getRepository<LinkSessionRecord>('LinkSession')),
    agentTrajectories: new AgentTrajectoryRepository(ds.getRepository<AgentTrajectoryRecord>('AgentTrajectory')),
    idempotencyKeys: new IdempotencyKeyRepository(ds.getRepository<IdempotencyKeyRecord>('IdempotencyKey')),
    rateLimitBuckets: new RateLimitBucketRepository(ds),
    dashboardUsers: new DashboardUserRepository(ds.getRepository<DashboardUserRecord>('DashboardUser')),
    dashboardSessions: new DashboardSessionRepository(ds.getRepository<DashboardSessionRecord>('DashboardSession')),
    dashboardLoginThrottle: new DashboardLoginThrottleRepository(ds.getRepository<DashboardLoginThrottleRecord>('DashboardLoginThrottle')),
    dashboardInvitations: new DashboardInvitationRepository(ds.getRepository<DashboardInvitationRecord>('DashboardInvitation')),
    orgMemberships: new OrgMembershipRepository(ds.getRepository<OrgMembershipRecord>('OrgMembership')),
    webhookEndpoints: new WebhookEndpointRepository(ds.getRepository<WebhookEndpointRecord>('WebhookEndpoint')),
    webhookEvents: new WebhookEventRepository(ds.getRepository<WebhookEventRecord>('WebhookEvent')),
    webhookDeliveries: new WebhookDeliveryRepository(ds.getRepository<WebhookDeliveryRecord>('WebhookDelivery')),
    organizationProviders: new OrganizationProviderRepository(ds.getRepository<OrganizationProviderRecord>('OrganizationProvider')),
    redirectUris: new RedirectUriRepository(ds.getRepository<RedirectUriRecord>('RedirectUri')),
  };
}

export type Repositories = ReturnType<typeof buildRepositories>;
