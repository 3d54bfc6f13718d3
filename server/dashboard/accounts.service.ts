import { createHash, randomBytes } from 'node:crypto';

import type { Clock } from '../domain/clock';
import type { IssuedCredentials, OrganizationService } from '../domain/organizations.service';
import { decoySecretHash, hashSecret, verifySecret } from '../domain/secrets';
import type {
  DashboardSessionRecord,
  DashboardUserRecord,
  OrganizationRecord,
  OrgMembershipRole,
  Store,
  TransactionRepositories,
} from '../store';
import { type Flash, openFlash, sealFlash } from './flash';

/**
 * Dashboard accounts: people, their browser sessions and the organizations they belong to.
 *
 * - Passwords are scrypt hashes (the same parameters as client secrets); an unknown email still pays one scrypt.
 * - A session cookie holds 32 random bytes; only its SHA-256 is stored. Every sign-in and sign-up destroys the
 *   session it came from and starts a new one (no session fixation). Each session has its own CSRF token.
 * - Failed sign-ins are counted per email whether or not the email has an account, so a lockout does not tell
 *   which emails exist: after MAX_FAILURES within FAILURE_WINDOW of the first failure (a fixed window, reset once
 *   it ran out), the email is locked for LOCK_MS.
 * - Expired sessions and throttle rows whose window and lock ran out are deleted now and then (at most once a minute).
 */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 15 * 60_000;
const ANONYMOUS_SESSION_MS = 2 * 3600_000;
const USER_SESSION_MS = 12 * 3600_000;
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 200;
const PRUNE_EVERY_MS = 60_000;
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export type AccountErrorCode = 'INVALID_EMAIL' | 'WEAK_PASSWORD' | 'EMAIL_TAKEN' | 'INVALID_LOGIN' | 'LOCKED' | 'INVALID_INVITATION';
export type AccountResult<T> = { ok: true; value: T } | { ok: false; code: AccountErrorCode; message: string };

export interface StartedSession {
  /** The cookie value (never stored). */
  cookie: string;
  session: DashboardSessionRecord;
}

export interface Membership {
  organization: OrganizationRecord;
  role: OrgMembershipRole;
}

export const sessionIdOf = (cookie: string) => createHash('sha256').update(cookie).digest('hex');
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Thrown inside the sign-up transaction to roll the account back when its invitation cannot be used. */
class InvitationUsedUp extends Error {}

const failure = <T>(code: AccountErrorCode, message: string): AccountResult<T> => ({ ok: false, code, message });

export class DashboardAccountService {
  private lastPruneMs = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  /** A session without a user: it carries the CSRF token of the sign-in and sign-up forms. */
  async startAnonymousSession(): Promise<StartedSession> {
    await this.prune();
    return this.startSession(null, ANONYMOUS_SESSION_MS);
  }

  /** Deletes expired sessions and stale throttle rows, at most once a minute (opportunistically, on new sessions and sign-ins). */
  private async prune(): Promise<void> {
    const now = this.clock.now();
    const ms = now.getTime();
    if (ms - this.lastPruneMs < PRUNE_EVERY_MS && ms >= this.lastPruneMs) return;
    this.lastPruneMs = ms;
    await this.store.repos.dashboardSessions.deleteExpired(now).catch(() => undefined);
    await this.store.repos.dashboardLoginThrottle.deleteStale(now, new Date(ms - FAILURE_WINDOW_MS)).catch(() => undefined);
  }

  /** The live session of a cookie value, or null (unknown or expired). */
  async resolveSession(cookie: string | undefined): Promise<DashboardSessionRecord | null> {
    if (!cookie || cookie.length > 100) return null;
    const session = await this.store.repos.dashboardSessions.findById(sessionIdOf(cookie));
    if (!session || session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return session;
  }

  findUser(userId: string): Promise<DashboardUserRecord | null> {
    return this.store.repos.dashboardUsers.findById(userId);
  }

  /**
   * Creates an account and signs it in. `join`, when given (a sign-up through an invitation), runs in the same
   * transaction as the account's INSERT, after it: it uses the invitation up and adds the membership, or answers
   * false when the invitation cannot be used (already used, by a sign-up racing this one). Account, membership and
   * used invitation are written together or not at all, so a sign-up that fails (an email taken meanwhile, a
   * database error) leaves the invitation usable, and one invitation gives one account.
   */
  async signUp(
    emailInput: string,
    password: string,
    previousSessionId: string | null,
    join?: (tx: TransactionRepositories, userId: string) => Promise<boolean>,
  ): Promise<AccountResult<StartedSession & { user: DashboardUserRecord }>> {
    const email = normalizeEmail(emailInput);
    if (email.length > 320 || !EMAIL_PATTERN.test(email)) return failure('INVALID_EMAIL', 'Enter a valid email address.');
    if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      return failure('WEAK_PASSWORD', `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`);
    }
    const users = this.store.repos.dashboardUsers;
    const taken = failure<never>('EMAIL_TAKEN', 'An account with this email already exists; sign in instead.');
    if (await users.findByEmail(email)) return taken;
    const user: DashboardUserRecord = {
      id: `usr_${randomBytes(12).toString('hex')}`,
      email,
      // Hashed before the transaction: scrypt takes tens of milliseconds, which no lock should wait for.
      passwordHash: await hashSecret(password),
      createdAt: this.clock.now(),
    };
    try {
      await this.store.transaction(async (tx) => {
        await tx.dashboardUsers.insert(user);
        if (join && !(await join(tx, user.id))) throw new InvitationUsedUp();
      });
    } catch (err) {
      if (err instanceof InvitationUsedUp) {
        return failure('INVALID_INVITATION', 'This invitation link was already used, expired, or was withdrawn. Ask for a new one.');
      }
      // The unique email index decided a concurrent sign-up; anything else is a real fault (rolled back all the same).
      if (await users.findByEmail(email)) return taken;
      throw err;
    }
    return { ok: true, value: { user, ...(await this.replaceSession(previousSessionId, user.id)) } };
  }

  async signIn(
    emailInput: string,
    password: string,
    previousSessionId: string | null,
  ): Promise<AccountResult<StartedSession & { user: DashboardUserRecord }>> {
    const email = normalizeEmail(emailInput).slice(0, 320);
    const throttle = this.store.repos.dashboardLoginThrottle;
    const now = this.clock.now();
    const locked = failure<never>('LOCKED', 'Too many failed sign-ins for this email. Try again in 15 minutes.');
    await this.prune();
    const state = await throttle.find(email);
    if (state?.lockedUntil && state.lockedUntil.getTime() > now.getTime()) return locked;
    // A fixed window: it starts at the first failure (updatedAt) and is reset once it ran out, or once a lock ended.
    if (state && (state.lockedUntil || now.getTime() - state.updatedAt.getTime() > FAILURE_WINDOW_MS)) await throttle.clear(email);

    const user = await this.store.repos.dashboardUsers.findByEmail(email);
    const candidate = password.slice(0, PASSWORD_MAX);
    const valid = user ? await verifySecret(candidate, user.passwordHash) : (await verifySecret(candidate, await decoySecretHash()), false);
    if (!user || !valid) {
      const failures = await throttle.recordFailure(email, now);
      if (failures >= MAX_FAILURES) {
        await throttle.lock(email, new Date(now.getTime() + LOCK_MS), now);
        return locked;
      }
      return failure('INVALID_LOGIN', 'Wrong email or password.');
    }
    await throttle.clear(email);
    return { ok: true, value: { user, ...(await this.replaceSession(previousSessionId, user.id)) } };
  }

  /** Keeps what the next page shows once, sealed under the session cookie (./flash.ts). */
  async setFlash(session: DashboardSessionRecord, cookie: string, flash: Flash): Promise<void> {
    await this.store.repos.dashboardSessions.setFlash(session.id, sealFlash(cookie, flash));
  }

  /** Takes the flash of the session (once), or null. */
  async takeFlash(session: DashboardSessionRecord, cookie: string): Promise<Flash | null> {
    const sealed = await this.store.repos.dashboardSessions.takeFlash(session.id);
    return sealed ? openFlash(cookie, sealed) : null;
  }

  async signOut(sessionId: string): Promise<void> {
    await this.store.repos.dashboardSessions.delete(sessionId);
  }

  /** The organizations a person belongs to, oldest membership first. */
  async memberships(userId: string): Promise<Membership[]> {
    const rows = await this.store.repos.orgMemberships.listForUser(userId);
    const out: Membership[] = [];
    for (const row of rows) {
      const organization = await this.organizations.findById(row.organizationId);
      if (organization) out.push({ organization, role: row.role });
    }
    return out;
  }

  /** The organization when the person is a member of it; null otherwise (callers answer 404 either way). */
  async organizationFor(userId: string, organizationId: string): Promise<OrganizationRecord | null> {
    if (organizationId.length > 64) return null;
    const membership = await this.store.repos.orgMemberships.find(userId, organizationId);
    return membership ? this.organizations.findById(organizationId) : null;
  }

  /** Creates an organization owned by the person; its secrets are in the answer and nowhere else. */
  async createOrganization(userId: string, name: string): Promise<IssuedCredentials> {
    const issued = await this.organizations.create(name);
    await this.store.repos.orgMemberships.insert({
      userId,
      organizationId: issued.organization.id,
      role: 'owner',
      createdAt: this.clock.now(),
    });
    return issued;
  }

  async roleIn(userId: string, organizationId: string): Promise<OrgMembershipRole | null> {
    return (await this.store.repos.orgMemberships.find(userId, organizationId))?.role ?? null;
  }

  /** The role in the organization of the account with this email; null when there is none or it is not a member. */
  async roleOfEmail(organizationId: string, emailInput: string): Promise<OrgMembershipRole | null> {
    const user = await this.store.repos.dashboardUsers.findByEmail(normalizeEmail(emailInput));
    return user ? this.roleIn(user.id, organizationId) : null;
  }

  /** Adds an existing person to an organization (by email); false when no account has that email. */
  async addMember(organizationId: string, emailInput: string, role: OrgMembershipRole = 'member'): Promise<boolean> {
    const user = await this.store.repos.dashboardUsers.findByEmail(normalizeEmail(emailInput));
    if (!user) return false;
    // A member already keeps their role; two adds at once cannot fail on the key.
    await this.store.repos.orgMemberships.insertUnlessMember({ userId: user.id, organizationId, role, createdAt: this.clock.now() });
    return true;
  }

  /** Destroys the session the browser came with and starts a fresh one for the user (new id, new CSRF token). */
  private async replaceSession(previousSessionId: string | null, userId: string): Promise<StartedSession> {
    const sessions = this.store.repos.dashboardSessions;
    if (previousSessionId) await sessions.delete(previousSessionId);
    await sessions.deleteExpired(this.clock.now());
    return this.startSession(userId, USER_SESSION_MS);
  }

  private async startSession(userId: string | null, ttlMs: number): Promise<StartedSession> {
    const cookie = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const session: DashboardSessionRecord = {
      id: sessionIdOf(cookie),
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlMs),
    };
    await this.store.repos.dashboardSessions.insert(session);
    return { cookie, session };
  }
}
