import { EntitySchema } from 'typeorm';

import type { Dialect } from './dialect';
import { entityColumns } from './entity-columns';
import type {
  DashboardInvitationRecord,
  DashboardLoginThrottleRecord,
  DashboardSessionRecord,
  DashboardUserRecord,
  OrgMembershipRecord,
} from './records';

/** The dashboard's tables: its users, sessions, sign-in throttle, invitations and organization memberships. */
export function buildDashboardEntities(dialect: Dialect) {
  const { id, str, text, time, int } = entityColumns(dialect);

  const DashboardUser = new EntitySchema<DashboardUserRecord>({
    name: 'DashboardUser',
    tableName: 'dashboard_users',
    columns: {
      id: id(),
      email: str('email', { length: 320, unique: true }),
      passwordHash: text('password_hash'),
      createdAt: time('created_at'),
    },
  });

  const DashboardSession = new EntitySchema<DashboardSessionRecord>({
    name: 'DashboardSession',
    tableName: 'dashboard_sessions',
    columns: {
      id: id(),
      userId: str('user_id', { length: 64, nullable: true }),
      csrfToken: str('csrf_token', { length: 64 }),
      createdAt: time('created_at'),
      expiresAt: time('expires_at'),
      flash: text('flash', true),
    },
  });

  const DashboardInvitation = new EntitySchema<DashboardInvitationRecord>({
    name: 'DashboardInvitation',
    tableName: 'dashboard_invitations',
    columns: {
      id: id(),
      tokenHash: str('token_hash', { length: 64, unique: true }),
      organizationId: str('organization_id', { length: 64 }),
      role: str('role', { length: 16 }),
      createdBy: str('created_by', { length: 64 }),
      createdAt: time('created_at'),
      expiresAt: time('expires_at'),
      usedAt: time('used_at', true),
      usedBy: str('used_by', { length: 64, nullable: true }),
    },
  });

  const DashboardLoginThrottle = new EntitySchema<DashboardLoginThrottleRecord>({
    name: 'DashboardLoginThrottle',
    tableName: 'dashboard_login_throttle',
    columns: {
      email: { type: 'varchar', length: 320, primary: true },
      failedAttempts: int('failed_attempts'),
      lockedUntil: time('locked_until', true),
      updatedAt: time('updated_at'),
    },
  });

  const OrgMembership = new EntitySchema<OrgMembershipRecord>({
    name: 'OrgMembership',
    tableName: 'org_memberships',
    columns: {
      userId: { name: 'user_id', type: 'varchar', length: 64, primary: true },
      organizationId: { name: 'organization_id', type: 'varchar', length: 64, primary: true },
      role: str('role', { length: 16 }),
      createdAt: time('created_at'),
    },
  });

  return { DashboardUser, DashboardSession, DashboardLoginThrottle, DashboardInvitation, OrgMembership };
}
