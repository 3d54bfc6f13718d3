import { type Clock, systemClock } from '../domain/clock';
import type { OrgMembershipRole, Store } from '../store';
import { normalizeEmail } from './accounts.service';

export interface Member {
  userId: string;
  email: string;
  role: OrgMembershipRole;
  since: Date;
}

export type RemoveMemberError = 'NOT_OWNER' | 'NOT_MEMBER' | 'LAST_OWNER';
export type RemoveMemberResult = { ok: true; member: Member } | { ok: false; code: RemoveMemberError; message: string };
export type AddMemberError = 'NOT_OWNER' | 'NO_ACCOUNT';
export type AddMemberResult = { ok: true; email: string } | { ok: false; code: AddMemberError; message: string };

/**
 * The people of an organization, and taking one out. The one rule: an organization always keeps an owner, so nobody
 * (an owner leaving included) removes its last one; the operator's CLI follows the same rule. In the dashboard only an
 * owner removes people (themselves too, when another owner remains). Removing a member ends their access at once:
 * every dashboard page checks the membership on each request.
 */
export class OrganizationMembersService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  /** An owner (`actorUserId`) adds an existing account, by email, as a member (someone already a member keeps their role). */
  async add(organizationId: string, emailInput: string, actorUserId: string): Promise<AddMemberResult> {
    if ((await this.store.repos.orgMemberships.find(actorUserId, organizationId))?.role !== 'owner') {
      return { ok: false, code: 'NOT_OWNER', message: 'Only an owner of the organization can add members.' };
    }
    const user = await this.store.repos.dashboardUsers.findByEmail(normalizeEmail(emailInput));
    if (!user) {
      return {
        ok: false,
        code: 'NO_ACCOUNT',
        message: 'No dashboard account has that email: create an invitation link for them instead.',
      };
    }
    await this.store.repos.orgMemberships.insertUnlessMember({
      userId: user.id,
      organizationId,
      role: 'member',
      createdAt: this.clock.now(),
    });
    return { ok: true, email: user.email };
  }

  async list(organizationId: string): Promise<Member[]> {
    const rows = await this.store.repos.orgMemberships.listForOrganization(organizationId);
    const out: Member[] = [];
    for (const row of rows) {
      const user = await this.store.repos.dashboardUsers.findById(row.userId);
      if (user) out.push({ userId: user.id, email: user.email, role: row.role, since: row.createdAt });
    }
    return out;
  }

  /**
   * Removes a member, by user id or email. `actorUserId`: the dashboard person asking (must be an owner); absent for
   * the operator. The owners are read under a lock and the row deleted in the same transaction, so two removals at
   * once (two owners removing each other, or both leaving) cannot both pass the last-owner rule, on either engine.
   */
  async remove(organizationId: string, who: { userId?: string; email?: string }, actorUserId?: string): Promise<RemoveMemberResult> {
    const user = who.userId
      ? await this.store.repos.dashboardUsers.findById(who.userId)
      : who.email
        ? await this.store.repos.dashboardUsers.findByEmail(normalizeEmail(who.email))
        : null;
    return this.store.transaction(async (tx): Promise<RemoveMemberResult> => {
      const owners = await tx.orgMemberships.lockOwners(organizationId);
      if (actorUserId !== undefined && !owners.includes(actorUserId)) {
        return { ok: false, code: 'NOT_OWNER', message: 'Only an owner of the organization can remove members.' };
      }
      const membership = user ? await tx.orgMemberships.find(user.id, organizationId) : null;
      if (!user || !membership) return { ok: false, code: 'NOT_MEMBER', message: 'That person is not a member of this organization.' };
      if (membership.role === 'owner' && owners.length <= 1) {
        return {
          ok: false,
          code: 'LAST_OWNER',
          message: `${user.email} is the last owner: make another member an owner first (agentlink org add-member --role owner).`,
        };
      }
      await tx.orgMemberships.delete(user.id, organizationId);
      return { ok: true, member: { userId: user.id, email: user.email, role: membership.role, since: membership.createdAt } };
    });
  }
}
