import { createHash, randomBytes } from 'node:crypto';

import type { Clock } from '../domain/clock';
import type { DashboardInvitationRecord, OrganizationRecord, OrgMembershipRole, Store } from '../store';

/** How long an invitation link can be used. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
const TOKEN_PREFIX = 'inv_';
/** inv_ and 32 random bytes in base64url. */
const TOKEN_PATTERN = /^inv_[A-Za-z0-9_-]{43}$/;

export const invitationTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export interface OpenInvitation {
  invitation: DashboardInvitationRecord;
  organization: OrganizationRecord;
}

export type InvitationError = 'NOT_MEMBER' | 'OWNERS_ONLY' | 'INVALID_INVITATION';
export type InvitationResult<T> = { ok: true; value: T } | { ok: false; code: InvitationError; message: string };

const INVALID: InvitationResult<never> = {
  ok: false,
  code: 'INVALID_INVITATION',
  message: 'This invitation link is not valid: it was already used, it expired, or it was withdrawn. Ask for a new one.',
};

/**
 * Invitations: a member makes a link for someone to join the organization (with AGENTLINK_SIGNUP=invite it is also
 * the only way to create an account). The link carries 32 random bytes; only their SHA-256 is stored. A link expires
 * after 7 days and is used once: the conditional UPDATE that marks it used decides between two uses racing. Members
 * invite members; owners may invite owners. A disabled organization's links do not open.
 */
export class InvitationService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** A new invitation; the token is in the answer and nowhere else. `createdBy` null: the operator (CLI). */
  async create(
    organizationId: string,
    createdBy: string | null,
    role: OrgMembershipRole = 'member',
  ): Promise<InvitationResult<{ token: string; invitation: DashboardInvitationRecord }>> {
    if (createdBy !== null) {
      const membership = await this.store.repos.orgMemberships.find(createdBy, organizationId);
      if (!membership) return { ok: false, code: 'NOT_MEMBER', message: 'Only a member of the organization can invite people.' };
      if (role === 'owner' && membership.role !== 'owner') {
        return { ok: false, code: 'OWNERS_ONLY', message: 'Only an owner can invite another owner.' };
      }
    }
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const invitation: DashboardInvitationRecord = {
      id: `inv_${randomBytes(12).toString('hex')}`,
      tokenHash: invitationTokenHash(token),
      organizationId,
      role,
      createdBy: createdBy ?? 'operator',
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      usedAt: null,
      usedBy: null,
    };
    await this.store.repos.dashboardInvitations.insert(invitation);
    return { ok: true, value: { token, invitation } };
  }

  listPending(organizationId: string): Promise<DashboardInvitationRecord[]> {
    return this.store.repos.dashboardInvitations.listPending(organizationId, this.clock.now());
  }

  revoke(organizationId: string, invitationId: string): Promise<boolean> {
    return this.store.repos.dashboardInvitations.revoke(invitationId.slice(0, 64), organizationId);
  }

  /** The invitation of a token, while it can be used (unused, unexpired, its organization active). */
  async open(token: string): Promise<InvitationResult<OpenInvitation>> {
    if (!TOKEN_PATTERN.test(token)) return INVALID;
    const invitation = await this.store.repos.dashboardInvitations.findByTokenHash(invitationTokenHash(token));
    if (!invitation || invitation.usedAt || invitation.expiresAt.getTime() <= this.clock.now().getTime()) return INVALID;
    const organization = await this.store.repos.organizations.findById(invitation.organizationId);
    if (!organization || organization.disabledAt) return INVALID;
    return { ok: true, value: { invitation, organization } };
  }

  /**
   * Uses the invitation for a person: they become a member with its role (someone already a member keeps their role,
   * and the link is used up all the same). Exactly one of two concurrent uses succeeds.
   */
  async accept(token: string, userId: string): Promise<InvitationResult<OpenInvitation & { role: OrgMembershipRole }>> {
    const claimed = await this.claim(token, userId);
    return claimed.ok ? { ok: true, value: await this.join(claimed.value, userId) } : claimed;
  }

  /** Uses the invitation up for userId (before the account exists, for a sign-up through it): one caller wins. */
  async claim(token: string, userId: string): Promise<InvitationResult<OpenInvitation>> {
    const opened = await this.open(token);
    if (!opened.ok) return opened;
    const ok = await this.store.repos.dashboardInvitations.consume(opened.value.invitation.id, userId, this.clock.now());
    return ok ? opened : INVALID;
  }

  /** Makes the person a member with the claimed invitation's role (someone already a member keeps theirs). */
  async join({ invitation, organization }: OpenInvitation, userId: string): Promise<OpenInvitation & { role: OrgMembershipRole }> {
    const memberships = this.store.repos.orgMemberships;
    const existing = await memberships.find(userId, organization.id);
    if (!existing) {
      await memberships.insert({ userId, organizationId: organization.id, role: invitation.role, createdAt: this.clock.now() });
    }
    return { invitation, organization, role: existing?.role ?? invitation.role };
  }
}
