import { createHash, randomBytes } from 'node:crypto';

import type { Clock } from '../domain/clock';
import type { DashboardInvitationRecord, OrganizationRecord, OrgMembershipRole, Store, TransactionRepositories } from '../store';

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

export type InvitationError = 'NOT_MEMBER' | 'OWNERS_ONLY' | 'NOT_OWNER' | 'INVITATION_NOT_FOUND' | 'INVALID_INVITATION';
export type InvitationResult<T> = { ok: true; value: T } | { ok: false; code: InvitationError; message: string };

const INVALID: InvitationResult<never> = {
  ok: false,
  code: 'INVALID_INVITATION',
  message: 'This invitation link is not valid: it was already used, it expired, or it was withdrawn. Ask for a new one.',
};

/**
 * Invitations: a member makes a link for someone to join the organization (with AGENTLINK_SIGNUP=invite it is also
 * the only way to create an account). The link carries 32 random bytes; only their SHA-256 is stored, and it is
 * looked up by that hash (no comparison of secrets in code). A link expires after 7 days and is used once: the
 * conditional UPDATE that marks it used decides between two uses racing, and it is made in the same transaction as
 * the membership (and, for a sign-up, the account), so a use that fails leaves the link usable. Members invite
 * members; owners may invite owners. A link is only as good as its maker's rights now: one made by a person who
 * has since left the organization (or an owner link by someone no longer an owner) does not open, so a removed
 * member cannot come back through a link made beforehand. Only an owner, or the member who made it, withdraws a
 * link. A disabled organization's links do not open.
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

  /**
   * Withdraws an unused invitation: allowed to an owner of the organization and to the member who made it (NOT_OWNER
   * otherwise). INVITATION_NOT_FOUND: no unused invitation of this organization has that id.
   */
  async revoke(organizationId: string, invitationId: string, actorUserId: string): Promise<InvitationResult<DashboardInvitationRecord>> {
    const id = invitationId.slice(0, 64);
    const notFound: InvitationResult<never> = {
      ok: false,
      code: 'INVITATION_NOT_FOUND',
      message: 'That invitation is not open any more: it was used, or withdrawn already.',
    };
    const invitation = await this.store.repos.dashboardInvitations.findInOrganization(id, organizationId);
    if (!invitation || invitation.usedAt) return notFound;
    const actor = await this.store.repos.orgMemberships.find(actorUserId, organizationId);
    if (!actor || (actor.role !== 'owner' && invitation.createdBy !== actorUserId)) {
      return {
        ok: false,
        code: 'NOT_OWNER',
        message: 'Only an owner of the organization, or the member who created the invitation, can withdraw it.',
      };
    }
    return (await this.store.repos.dashboardInvitations.revoke(id, organizationId)) ? { ok: true, value: invitation } : notFound;
  }

  /**
   * The invitation of a token, while it can be used: unused, unexpired, its organization active, and its maker
   * still a member (an owner, for an owner invitation).
   */
  async open(token: string): Promise<InvitationResult<OpenInvitation>> {
    if (!TOKEN_PATTERN.test(token)) return INVALID;
    const invitation = await this.store.repos.dashboardInvitations.findByTokenHash(invitationTokenHash(token));
    if (!invitation || invitation.usedAt || invitation.expiresAt.getTime() <= this.clock.now().getTime()) return INVALID;
    if (!(await this.makerMayStillInvite(invitation))) return INVALID;
    const organization = await this.store.repos.organizations.findById(invitation.organizationId);
    if (!organization || organization.disabledAt) return INVALID;
    return { ok: true, value: { invitation, organization } };
  }

  private async makerMayStillInvite(invitation: DashboardInvitationRecord): Promise<boolean> {
    if (invitation.createdBy === 'operator') return true;
    const maker = await this.store.repos.orgMemberships.find(invitation.createdBy, invitation.organizationId);
    return maker !== null && (invitation.role !== 'owner' || maker.role === 'owner');
  }

  /**
   * Uses the invitation for a signed-in person: they become a member with its role (someone already a member keeps
   * their role, and the link is used up all the same). One transaction: exactly one of two concurrent uses succeeds,
   * and a use that fails leaves the link usable.
   */
  async accept(token: string, userId: string): Promise<InvitationResult<OpenInvitation & { role: OrgMembershipRole }>> {
    const opened = await this.open(token);
    if (!opened.ok) return opened;
    return this.store.transaction((tx) => this.joinWithin(tx, opened.value, userId));
  }

  /**
   * Inside a transaction (store.transaction): uses the opened invitation up for userId and makes them a member with
   * its role (someone already a member keeps theirs). INVALID_INVITATION when another use got there first (or it
   * expired meanwhile): the caller rolls back whatever else it wrote.
   */
  async joinWithin(
    tx: TransactionRepositories,
    { invitation, organization }: OpenInvitation,
    userId: string,
  ): Promise<InvitationResult<OpenInvitation & { role: OrgMembershipRole }>> {
    const now = this.clock.now();
    if (!(await tx.dashboardInvitations.consume(invitation.id, userId, now))) return INVALID;
    await tx.orgMemberships.insertUnlessMember({ userId, organizationId: organization.id, role: invitation.role, createdAt: now });
    const membership = await tx.orgMemberships.find(userId, organization.id);
    return { ok: true, value: { invitation, organization, role: membership?.role ?? invitation.role } };
  }
}
