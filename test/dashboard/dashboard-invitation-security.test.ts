import { invitationTokenHash } from '../../server/dashboard/invitations.service';
import { describeEachStore, type TestApp } from '../support/app';
import { type Browser, dashboardPeople, newEmail, PASSWORD, refusalCode } from '../support/dashboard-people';

/**
 * Invitation links under attack, over HTTP: who may withdraw one, what a failed sign-up leaves behind, sign-ups racing
 * for one link, a removed member's old links, a member asking for an owner link, links used or expired.
 */

/** Makes every INSERT of a membership of `orgId` fail in the database itself (a real fault, not a mock); returns the undo. */
async function failMembershipInserts(t: TestApp, orgId: string): Promise<() => Promise<void>> {
  const q = (sql: string) => t.store.dataSource.query(sql);
  if (t.dialect === 'sqlite') {
    await q(
      `CREATE TRIGGER test_fault BEFORE INSERT ON org_memberships WHEN NEW.organization_id = '${orgId}' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
    );
    return async () => void (await q('DROP TRIGGER test_fault'));
  }
  await q(`CREATE FUNCTION test_fault() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql`);
  await q(
    `CREATE TRIGGER test_fault BEFORE INSERT ON org_memberships FOR EACH ROW WHEN (NEW.organization_id = '${orgId}') EXECUTE FUNCTION test_fault()`,
  );
  return async () => {
    await q('DROP TRIGGER test_fault ON org_memberships');
    await q('DROP FUNCTION test_fault()');
  };
}

describeEachStore(
  'dashboard invitation links under attack',
  (t: TestApp) => {
    const people = () => dashboardPeople(t);
    const invitationRow = (link: { id: string; orgId: string }) =>
      t.store.repos.dashboardInvitations.findInOrganization(link.id, link.orgId);
    const userCount = async (email: string) => Number((await t.store.repos.dashboardUsers.findByEmail(email)) !== null);

    /** An owner's organization with two plain members. */
    async function team(name: string) {
      const p = people();
      const owner = await p.account();
      const { orgId } = await p.createOrg(owner, name);
      const ann = await p.account();
      const ben = await p.account();
      await t.services.dashboard.addMember(orgId, ann.email);
      await t.services.dashboard.addMember(orgId, ben.email);
      return { p, owner, ann, ben, orgId };
    }
    /** An invitation link made by `by` over HTTP: its token and id. */
    async function invite(p: ReturnType<typeof people>, by: Browser, orgId: string, role: 'member' | 'owner' = 'member') {
      const made = await p.post(by, `/dashboard/orgs/${orgId}/invitations`, { role });
      expect(made.status).toBe(303);
      const shown = await p.page(by, made.headers.location as string);
      const token = /\/dashboard\/invitations\/(inv_[A-Za-z0-9_-]{43})/.exec(shown.text)![1]!;
      const { id } = (await t.store.repos.dashboardInvitations.findByTokenHash(invitationTokenHash(token)))!;
      return { token, id, orgId };
    }

    describe('withdrawing a link', () => {
      it("refuses a member withdrawing another member's link (403, NOT_OWNER) and the link keeps working", async () => {
        const { p, ann, ben, orgId } = await team('Withdraw Co');
        const link = await invite(p, ann, orgId);
        // Ben's page offers no Withdraw button for Ann's link; a forged form is refused all the same.
        const bensPage = await p.page(ben, `/dashboard/orgs/${orgId}/members`);
        expect(bensPage.text).not.toContain(`/invitations/${link.id}/revoke`);
        const forged = await p.post(ben, `/dashboard/orgs/${orgId}/invitations/${link.id}/revoke`);
        expect(forged.status).toBe(403);
        expect(refusalCode(forged.text)).toBe('NOT_OWNER');
        expect(await invitationRow(link)).not.toBeNull();
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(200);
        // Its maker may withdraw it.
        expect((await p.page(ann, `/dashboard/orgs/${orgId}/members`)).text).toContain(`/invitations/${link.id}/revoke`);
        expect((await p.post(ann, `/dashboard/orgs/${orgId}/invitations/${link.id}/revoke`)).status).toBe(303);
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(404);
      });

      it("refuses a member withdrawing an owner's link; an owner withdraws anyone's", async () => {
        const { p, owner, ann, orgId } = await team('Owner Withdraw Co');
        const ownersLink = await invite(p, owner, orgId);
        const refused = await p.post(ann, `/dashboard/orgs/${orgId}/invitations/${ownersLink.id}/revoke`);
        expect([refused.status, refusalCode(refused.text)]).toEqual([403, 'NOT_OWNER']);
        expect((await p.http().get(`/dashboard/invitations/${ownersLink.token}`)).status).toBe(200);
        const annsLink = await invite(p, ann, orgId);
        expect((await p.page(owner, `/dashboard/orgs/${orgId}/members`)).text).toContain(`/invitations/${annsLink.id}/revoke`);
        expect((await p.post(owner, `/dashboard/orgs/${orgId}/invitations/${annsLink.id}/revoke`)).status).toBe(303);
        expect((await p.http().get(`/dashboard/invitations/${annsLink.token}`)).status).toBe(404);
      });

      it("cannot reach another organization's link, not even as an owner (404, INVITATION_NOT_FOUND)", async () => {
        const { p, ann, orgId } = await team('Victim Co');
        const link = await invite(p, ann, orgId);
        const mallory = await p.account();
        const { orgId: malloryOrg } = await p.createOrg(mallory, 'Mallory Co');
        const res = await p.post(mallory, `/dashboard/orgs/${malloryOrg}/invitations/${link.id}/revoke`);
        expect([res.status, refusalCode(res.text)]).toEqual([404, 'INVITATION_NOT_FOUND']);
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(200);
      });
    });

    describe('a sign-up through a link that fails', () => {
      it('leaves the link usable after a database error while joining, and writes no account', async () => {
        const { p, owner, orgId } = await team('Fault Co');
        const link = await invite(p, owner, orgId);
        const email = newEmail();
        const undo = await failMembershipInserts(t, orgId);
        try {
          const { browser } = await p.openInvitation(link.token);
          const failed = await p.post(browser, `/dashboard/invitations/${link.token}/sign-up`, { email, password: PASSWORD });
          expect(failed.status).toBe(500);
        } finally {
          await undo();
        }
        expect(await userCount(email)).toBe(0);
        expect((await invitationRow(link))!.usedAt).toBeNull();
        // The same person tries again: the account is made and joins.
        const { res, browser } = await p.openInvitation(link.token);
        expect(res.status).toBe(200);
        const joined = await p.post(browser, `/dashboard/invitations/${link.token}/sign-up`, { email, password: PASSWORD });
        expect([joined.status, joined.headers.location]).toEqual([303, `/dashboard/orgs/${orgId}`]);
        expect(await t.services.dashboard.roleOfEmail(orgId, email)).toBe('member');
      });

      it('leaves the link usable when the email was taken by a sign-up racing it (the unique index decides)', async () => {
        const { p, owner, orgId } = await team('Taken Co');
        const link = await invite(p, owner, orgId);
        const taken = (await p.account()).email;
        // The racing sign-up commits between this one's email check and its INSERT: the check is made to miss it.
        const check = jest.spyOn(t.store.repos.dashboardUsers, 'findByEmail').mockResolvedValueOnce(null);
        const { browser } = await p.openInvitation(link.token);
        const refused = await p.post(browser, `/dashboard/invitations/${link.token}/sign-up`, { email: taken, password: PASSWORD });
        expect(refused.status).toBe(400);
        expect(refused.text).toContain('already exists');
        check.mockRestore();
        expect((await invitationRow(link))!.usedAt).toBeNull();
        expect(await t.services.dashboard.roleOfEmail(orgId, taken)).toBeNull();
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(200);
      });

      it('leaves the link usable after a weak password', async () => {
        const { p, owner, orgId } = await team('Weak Co');
        const link = await invite(p, owner, orgId);
        const { browser } = await p.openInvitation(link.token);
        const weak = await p.post(browser, `/dashboard/invitations/${link.token}/sign-up`, { email: newEmail(), password: 'short' });
        expect(weak.status).toBe(400);
        expect((await invitationRow(link))!.usedAt).toBeNull();
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(200);
      });

      it('leaves the link usable when accepting it fails in the database', async () => {
        const { p, owner, orgId } = await team('Accept Fault Co');
        const link = await invite(p, owner, orgId);
        const dora = await p.account();
        const undo = await failMembershipInserts(t, orgId);
        try {
          expect((await p.post(dora, `/dashboard/invitations/${link.token}/accept`)).status).toBe(500);
        } finally {
          await undo();
        }
        expect((await invitationRow(link))!.usedAt).toBeNull();
        expect((await p.post(dora, `/dashboard/invitations/${link.token}/accept`)).status).toBe(303);
        expect(await t.services.dashboard.roleOfEmail(orgId, dora.email)).toBe('member');
      });
    });

    it('gives exactly one account, joined, when four sign-ups through one link arrive at once', async () => {
      const { p, owner, orgId } = await team('Race Co');
      const link = await invite(p, owner, orgId);
      const browsers = await Promise.all([1, 2, 3, 4].map(() => p.openInvitation(link.token).then((o) => o.browser)));
      const emails = browsers.map(() => newEmail());
      const results = await Promise.all(
        browsers.map((b, i) => p.post(b, `/dashboard/invitations/${link.token}/sign-up`, { email: emails[i]!, password: PASSWORD })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([303, 404, 404, 404]);
      const winner = emails[results.findIndex((r) => r.status === 303)]!;
      const counts = await Promise.all(emails.map(userCount));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await userCount(winner)).toBe(1);
      expect(await t.services.dashboard.roleOfEmail(orgId, winner)).toBe('member');
      expect((await invitationRow(link))!.usedBy).toBe(await p.userId(winner));
    });

    describe('rights behind a link', () => {
      it("closes a removed member's links: they cannot come back through a link made beforehand", async () => {
        const { p, owner, ann, orgId } = await team('Removed Co');
        const link = await invite(p, ann, orgId);
        const annId = await p.userId(ann.email);
        expect((await p.post(owner, `/dashboard/orgs/${orgId}/members/${annId}/remove`)).status).toBe(200);
        expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(404);
        expect((await p.post(ann, `/dashboard/invitations/${link.token}/accept`)).status).toBe(404);
        expect(await t.services.dashboard.roleIn(annId, orgId)).toBeNull();
        const signUp = await p.post(await p.anonymous(), `/dashboard/invitations/${link.token}/sign-up`, {
          email: newEmail(),
          password: PASSWORD,
        });
        expect(signUp.status).toBe(404);
      });

      it('refuses a member adding an existing account (403, NOT_OWNER); an owner adds it as a member', async () => {
        const { p, owner, ann, orgId } = await team('Add Co');
        const gus = await p.account();
        const refused = await p.post(ann, `/dashboard/orgs/${orgId}/members`, { email: gus.email });
        expect([refused.status, refusalCode(refused.text)]).toEqual([403, 'NOT_OWNER']);
        expect(await t.services.dashboard.roleOfEmail(orgId, gus.email)).toBeNull();
        const unknown = await p.post(owner, `/dashboard/orgs/${orgId}/members`, { email: newEmail() });
        expect([unknown.status, refusalCode(unknown.text)]).toEqual([400, 'NO_ACCOUNT']);
        expect((await p.post(owner, `/dashboard/orgs/${orgId}/members`, { email: gus.email.toUpperCase() })).status).toBe(200);
        expect(await t.services.dashboard.roleOfEmail(orgId, gus.email)).toBe('member');
      });

      it('refuses a member asking for an owner link (403, OWNERS_ONLY), and no link is made', async () => {
        const { p, ann, orgId } = await team('Escalate Co');
        const before = (await t.services.invitations.listPending(orgId)).length;
        const res = await p.post(ann, `/dashboard/orgs/${orgId}/invitations`, { role: 'owner' });
        expect([res.status, refusalCode(res.text)]).toEqual([403, 'OWNERS_ONLY']);
        expect((await t.services.invitations.listPending(orgId)).length).toBe(before);
      });

      it('closes an owner link once its maker is no longer an owner (they left)', async () => {
        const { p, owner, ann, orgId } = await team('Former Owner Co');
        await t.services.dashboard.addMember(orgId, (await p.account()).email, 'owner');
        const ownerLink = await invite(p, owner, orgId, 'owner');
        expect((await p.http().get(`/dashboard/invitations/${ownerLink.token}`)).status).toBe(200);
        const ownerId = await p.userId(owner.email);
        expect((await p.post(owner, `/dashboard/orgs/${orgId}/members/${ownerId}/remove`)).status).toBe(303);
        expect((await p.http().get(`/dashboard/invitations/${ownerLink.token}`)).status).toBe(404);
        expect((await p.post(ann, `/dashboard/invitations/${ownerLink.token}/accept`)).status).toBe(404);
        expect(await t.services.dashboard.roleOfEmail(orgId, ann.email)).toBe('member');
      });

      it('refuses a used or an expired link on every path (open, accept, sign-up)', async () => {
        const { p, owner, orgId } = await team('Stale Co');
        const used = await invite(p, owner, orgId);
        const eve = await p.account();
        expect((await p.post(eve, `/dashboard/invitations/${used.token}/accept`)).status).toBe(303);
        const late = await invite(p, owner, orgId);
        t.clock.advance(7 * 24 * 3600_000 + 1000);
        const fay = await p.account();
        const browser = await p.anonymous();
        for (const link of [used, late]) {
          expect((await p.http().get(`/dashboard/invitations/${link.token}`)).status).toBe(404);
          expect((await p.post(fay, `/dashboard/invitations/${link.token}/accept`)).status).toBe(404);
          const email = newEmail();
          expect((await p.post(browser, `/dashboard/invitations/${link.token}/sign-up`, { email, password: PASSWORD })).status).toBe(404);
          expect(await userCount(email)).toBe(0);
        }
        expect(await t.services.dashboard.roleOfEmail(orgId, fay.email)).toBeNull();
      });
    });
  },
  { AGENTLINK_SIGNUP: 'invite' },
);
