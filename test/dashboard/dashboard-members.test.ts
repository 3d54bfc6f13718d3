import request from 'supertest';

import type { TransactionRepositories } from '../../server/store';
import { describeEachStore, type TestApp } from '../support/app';
import { dashboardPeople, newEmail, PASSWORD } from '../support/dashboard-people';
import { csrfOf, sessionCookie } from '../support/dashboard-session';

/**
 * Organizations in the dashboard, over HTTP: POST/redirect/GET for new secrets (a reload creates nothing), members
 * listed and removed (never the last owner), invitation links (hashed, single use, expiring), AGENTLINK_SIGNUP, and a
 * disabled organization (API refused with ORGANIZATION_DISABLED, dashboard closed).
 */
const helpers = dashboardPeople;

describeEachStore(
  'dashboard organizations, members and invitations',
  (t: TestApp) => {
    it('creates an organization with POST/redirect/GET: the secrets show once, and a reload creates nothing', async () => {
      const { page, account, createOrg, orgCount } = helpers(t);
      const alice = await account();
      const before = await orgCount();
      const { orgId, location, shown } = await createOrg(alice, 'Reload Co');
      expect(shown.status).toBe(200);
      const sandboxSecret = /value="(sk_sandbox_[A-Za-z0-9_-]+)"/.exec(shown.text)?.[1];
      expect(sandboxSecret).toMatch(/^sk_sandbox_/);
      expect(shown.text).toMatch(/value="sk_production_/);
      const clientId = (await t.services.organizations.find(orgId))!.clientId;
      expect((await t.services.organizations.authenticate(clientId, sandboxSecret)).ok).toBe(true);
      // The reload: the same GET. No second organization, and the secret is not shown again.
      const reload = await page(alice, location);
      expect(reload.status).toBe(200);
      expect(reload.text).not.toContain(sandboxSecret!);
      expect(reload.text).toContain('were shown already');
      expect(await orgCount()).toBe(before + 1);
      // At rest, the flash was sealed: the secret never reached the database in plain text.
      const sessions: { flash: string | null }[] = await t.store.dataSource.query('SELECT flash FROM dashboard_sessions');
      expect(JSON.stringify(sessions)).not.toContain('sk_sandbox_');
    });

    it('shows a rotated secret once too; another session cannot take the flash', async () => {
      const { page, post, account, signIn, createOrg } = helpers(t);
      const alice = await account();
      const { orgId } = await createOrg(alice, 'Rotate Co');
      const rotated = await post(alice, `/dashboard/orgs/${orgId}/secrets/sandbox/rotate`, { confirm: 'yes' });
      expect(rotated.status).toBe(303);
      // Alice in a second browser: her own session, no flash.
      const other = await signIn(alice.email);
      expect((await page(other, rotated.headers.location)).text).not.toMatch(/value="sk_sandbox_/);
      const shown = await page(alice, rotated.headers.location);
      expect(shown.text).toMatch(/value="sk_sandbox_/);
      expect((await page(alice, rotated.headers.location)).text).not.toMatch(/value="sk_sandbox_/);
    });

    it('lists members; an owner removes a member (access ends at once) but never the last owner', async () => {
      const { page, post, account, createOrg } = helpers(t);
      const alice = await account();
      const bob = await account();
      const { orgId } = await createOrg(alice, 'Members Co');
      expect((await post(alice, `/dashboard/orgs/${orgId}/members`, { email: bob.email })).status).toBe(200);
      const list = await page(alice, `/dashboard/orgs/${orgId}/members`);
      expect(list.status).toBe(200);
      expect(list.text).toContain(alice.email);
      expect(list.text).toContain(bob.email);
      expect(list.text).toContain('last owner');

      const bobId = (await t.store.repos.dashboardUsers.findByEmail(bob.email))!.id;
      const aliceId = (await t.store.repos.dashboardUsers.findByEmail(alice.email))!.id;
      // A member cannot remove anyone.
      expect((await post(bob, `/dashboard/orgs/${orgId}/members/${aliceId}/remove`)).status).toBe(403);
      // The last owner cannot leave, not even by a forged form.
      const lastOwner = await post(alice, `/dashboard/orgs/${orgId}/members/${aliceId}/remove`);
      expect(lastOwner.status).toBe(400);
      expect(lastOwner.text).toContain('last owner');
      expect(await t.services.dashboard.roleIn(aliceId, orgId)).toBe('owner');

      const removed = await post(alice, `/dashboard/orgs/${orgId}/members/${bobId}/remove`);
      expect(removed.status).toBe(200);
      expect(removed.text).toContain(`${bob.email} no longer has access`);
      expect((await page(bob, `/dashboard/orgs/${orgId}`)).status).toBe(404);

      // With a second owner, an owner may leave.
      await t.services.dashboard.addMember(orgId, bob.email, 'owner');
      const left = await post(alice, `/dashboard/orgs/${orgId}/members/${aliceId}/remove`);
      expect(left.status).toBe(303);
      expect((await page(alice, `/dashboard/orgs/${orgId}`)).status).toBe(404);
      expect(await t.services.dashboard.roleIn(bobId, orgId)).toBe('owner');
    });

    it('makes invitation links that are stored hashed, work once, expire, and can be withdrawn', async () => {
      const { http, page, post, account, createOrg } = helpers(t);
      const alice = await account();
      const { orgId } = await createOrg(alice, 'Invite Co');
      const made = await post(alice, `/dashboard/orgs/${orgId}/invitations`, { role: 'member' });
      expect(made.status).toBe(303);
      const shown = await page(alice, made.headers.location);
      const url = /value="(http[^"]+\/dashboard\/invitations\/inv_[A-Za-z0-9_-]{43})"/.exec(shown.text)?.[1];
      expect(url).toBeDefined();
      const token = url!.split('/').pop()!;
      expect(url!.startsWith(t.config.publicUrl)).toBe(true);
      // Only the hash is stored; a reload does not show the link again.
      const rows: { token_hash: string }[] = await t.store.dataSource.query('SELECT token_hash FROM dashboard_invitations');
      expect(JSON.stringify(rows)).not.toContain(token);
      expect((await page(alice, made.headers.location)).text).not.toContain(token);

      // A new person signs up through it (sign-up is invite-only here) and lands in the organization.
      const opened = await http().get(`/dashboard/invitations/${token}`);
      expect(opened.status).toBe(200);
      expect(opened.text).toContain('Join Invite Co');
      const carolEmail = newEmail();
      const anon = { cookie: sessionCookie(opened), csrf: csrfOf(opened.text) };
      const joined = await post(anon, `/dashboard/invitations/${token}/sign-up`, { email: carolEmail, password: PASSWORD });
      expect(joined.status).toBe(303);
      expect(joined.headers.location).toBe(`/dashboard/orgs/${orgId}`);
      expect((await page({ cookie: sessionCookie(joined) }, joined.headers.location)).status).toBe(200);

      // Used: it opens no more, for anyone.
      expect((await http().get(`/dashboard/invitations/${token}`)).status).toBe(404);
      const dave = await account();
      expect((await post(dave, `/dashboard/invitations/${token}/accept`)).status).toBe(404);
      expect((await page(dave, `/dashboard/orgs/${orgId}`)).status).toBe(404);

      // Withdrawn.
      const withdrawn = await t.services.invitations.create(orgId, null);
      if (!withdrawn.ok) throw new Error('not created');
      await post(alice, `/dashboard/orgs/${orgId}/invitations/${withdrawn.value.invitation.id}/revoke`);
      expect((await http().get(`/dashboard/invitations/${withdrawn.value.token}`)).status).toBe(404);
      // An existing account accepts with one click.
      const again = await t.services.invitations.create(orgId, null, 'owner');
      if (!again.ok) throw new Error('not created');
      const accepted = await post(dave, `/dashboard/invitations/${again.value.token}/accept`);
      expect(accepted.status).toBe(303);
      expect(await t.services.dashboard.roleOfEmail(orgId, dave.email)).toBe('owner');
      // Expired after 7 days.
      const late = await t.services.invitations.create(orgId, null);
      const opensToday = late.ok && (await http().get(`/dashboard/invitations/${late.value.token}`)).status;
      expect(opensToday).toBe(200);
      t.clock.advance(7 * 24 * 3600_000 + 1000);
      expect(late.ok && (await http().get(`/dashboard/invitations/${late.value.token}`)).status).toBe(404);
    });

    it('gives one account per invitation when two sign-ups race for it', async () => {
      const { account, createOrg } = helpers(t);
      const alice = await account();
      const { orgId } = await createOrg(alice, 'Race Co');
      const made = await t.services.invitations.create(orgId, null);
      if (!made.ok) throw new Error('not created');
      const opened = await t.services.invitations.open(made.value.token);
      if (!opened.ok) throw new Error('not open');
      const join = (tx: TransactionRepositories, userId: string) =>
        t.services.invitations.joinWithin(tx, opened.value, userId).then((r) => r.ok);
      const results = await Promise.all([0, 1, 2].map(() => t.services.dashboard.signUp(newEmail(), PASSWORD, null, join)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.code === 'INVALID_INVITATION')).toHaveLength(2);
    });

    it('refuses plain sign-up when AGENTLINK_SIGNUP is invite, and says how to get in', async () => {
      const { http, post } = helpers(t);
      const form = await http().get('/dashboard/sign-up');
      expect(form.status).toBe(403);
      expect(form.text).toContain('invitation');
      const anon = await http().get('/dashboard/sign-in');
      expect(anon.text).toContain('No account yet? Ask a member of your organization for an invitation link.');
      expect(anon.text).not.toContain('href="/dashboard/sign-up"');
      const attempt = await post({ cookie: sessionCookie(anon), csrf: csrfOf(anon.text) }, '/dashboard/sign-up', {
        email: newEmail(),
        password: PASSWORD,
      });
      expect(attempt.status).toBe(403);
      expect(Number((await t.store.dataSource.query('SELECT COUNT(*) AS n FROM dashboard_users'))[0].n)).toBeGreaterThan(0);
    });

    it('refuses a disabled organization: ORGANIZATION_DISABLED on the API (secret verified first), dashboard closed', async () => {
      const { http, page, account, createOrg } = helpers(t);
      const alice = await account();
      const { orgId, shown } = await createOrg(alice, 'Disabled Co');
      const secret = /value="(sk_sandbox_[A-Za-z0-9_-]+)"/.exec(shown.text)![1]!;
      const clientId = (await t.services.organizations.find(orgId))!.clientId;
      const call = () => http().get('/api/providers').set('x-client-id', clientId).set('x-client-secret', secret);
      expect((await call()).status).toBe(200); // and now remembered: the hot path must refuse too
      expect((await t.services.organizations.setDisabled(clientId, true)).ok).toBe(true);
      const refused = await call();
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ type: 'AUTHENTICATION_ERROR', code: 'ORGANIZATION_DISABLED' });
      // A wrong secret learns nothing about the state.
      const wrong = await http()
        .get('/api/providers')
        .set('x-client-id', clientId)
        .set('x-client-secret', `${secret.slice(0, -2)}xx`);
      expect(wrong.body.error.code).toBe('INVALID_CLIENT_CREDENTIALS');
      const closed = await page(alice, `/dashboard/orgs/${orgId}`);
      expect(closed.status).toBe(403);
      expect(closed.text).toContain('disabled');
      expect((await page(alice, '/dashboard/orgs')).text).toMatch(/Disabled Co <small class="tag">disabled<\/small>/);
      // Enabled again: served again.
      await t.services.organizations.setDisabled(orgId, false);
      expect((await call()).status).toBe(200);
      expect((await page(alice, `/dashboard/orgs/${orgId}`)).status).toBe(200);
    });
  },
  { AGENTLINK_SIGNUP: 'invite' },
);

describeEachStore(
  'dashboard sign-up closed',
  (t: TestApp) => {
    it('takes no new account, not even through an invitation; an existing account still accepts one', async () => {
      const http = () => request(t.baseUrl);
      expect((await http().get('/dashboard/sign-up')).status).toBe(403);
      const owner = await t.services.dashboard.signUp(newEmail(), PASSWORD, null);
      if (!owner.ok) throw new Error('no owner');
      const org = await t.services.dashboard.createOrganization(owner.value.user.id, 'Closed Co');
      const made = await t.services.invitations.create(org.organization.id, owner.value.user.id);
      if (!made.ok) throw new Error('not created');
      const opened = await http().get(`/dashboard/invitations/${made.value.token}`);
      expect(opened.status).toBe(200);
      expect(opened.text).not.toContain('Create account and join');
      const csrf = csrfOf((await http().get('/dashboard/sign-in').set('Cookie', sessionCookie(opened))).text);
      const signUp = await http()
        .post(`/dashboard/invitations/${made.value.token}/sign-up`)
        .set('Cookie', sessionCookie(opened))
        .type('form')
        .send({ email: newEmail(), password: PASSWORD, _csrf: csrf });
      expect(signUp.status).toBe(303);
      expect(signUp.headers['set-cookie']).toBeUndefined();
      expect(Number((await t.store.dataSource.query('SELECT COUNT(*) AS n FROM dashboard_users'))[0].n)).toBe(1);
      // Signing in continues to the invitation (a next that is not an invitation page is ignored).
      const anon = await http().get(`/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/invitations/${made.value.token}`)}`);
      expect(anon.text).toContain(`name="next" value="/dashboard/invitations/${made.value.token}"`);
      expect((await http().get('/dashboard/sign-in?next=https://evil.example/')).text).not.toContain('name="next"');
    });
  },
  { AGENTLINK_SIGNUP: 'closed' },
);
