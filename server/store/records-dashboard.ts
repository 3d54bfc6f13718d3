/** The dashboard's stored rows (server/dashboard): plain shapes, as in records.ts. */

/** A person who signs in to the dashboard (server/dashboard); `email` is lower-cased, `passwordHash` is scrypt. */
export interface DashboardUserRecord {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: Date;
}

/** A dashboard browser session; `id` is the SHA-256 of the cookie value. `userId` is null before sign-in. */
export interface DashboardSessionRecord {
  id: string;
  userId: string | null;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
  /** What the next page shows once (new secrets), sealed with a key derived from the cookie (server/dashboard/flash.ts). */
  flash?: string | null;
}

/** Failed dashboard sign-ins per email (known or not, so a lockout does not tell which emails exist). */
export interface DashboardLoginThrottleRecord {
  email: string;
  failedAttempts: number;
  lockedUntil: Date | null;
  updatedAt: Date;
}

export type OrgMembershipRole = 'owner' | 'member';

/** A dashboard user's membership of an organization (a person can belong to several). */
export interface OrgMembershipRecord {
  userId: string;
  organizationId: string;
  role: OrgMembershipRole;
  createdAt: Date;
}

/** A link to join an organization (server/dashboard/invitations.service.ts); `tokenHash` is the SHA-256 of its token. */
export interface DashboardInvitationRecord {
  id: string;
  tokenHash: string;
  organizationId: string;
  role: OrgMembershipRole;
  /** The member who made it. */
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  usedBy: string | null;
}
