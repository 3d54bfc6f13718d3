import type { Response, Router } from 'express';

import { ctxOf, type DashboardDeps, field, locals, nav, wrap } from './dashboard-kit';
import { type MembersNotice, membersPage } from './members.views';
import { BASE } from './views';

/**
 * Members of an organization: the list, removing (owners), adding an existing account (owners), invitation links
 * (withdrawn by an owner or their maker). A refusal is the members page with its status and the service's code.
 */
export function mountMemberPages(router: Router, deps: DashboardDeps) {
  const { accounts, members, invitations } = deps;
  const base = (orgId: string) => `${BASE}/orgs/${orgId}/members`;

  const render = async (res: Response, opts: { notice?: MembersNotice; status?: number } = {}) => {
    const { org, user, session, cookie } = locals(res);
    const role = (await accounts.roleIn(user!.id, org.id)) ?? 'member';
    const flash = opts.notice || !session || !cookie ? null : await accounts.takeFlash(session, cookie);
    res
      .status(opts.status ?? 200)
      .type('html')
      .send(
        membersPage(ctxOf(res), org, nav(org, 'members'), {
          members: await members.list(org.id),
          invitations: await invitations.listPending(org.id),
          me: { userId: user!.id, role },
          ...(flash?.organizationId === org.id && flash.invitationUrl ? { invitationUrl: flash.invitationUrl } : {}),
          ...(opts.notice ? { notice: opts.notice } : {}),
        }),
      );
  };

  router.get(
    '/orgs/:orgId/members',
    wrap((_req, res) => render(res)),
  );

  router.post(
    '/orgs/:orgId/members',
    wrap(async (req, res) => {
      const { org, user } = locals(res);
      const added = await members.add(org.id, field(req, 'email'), user!.id);
      if (!added.ok) {
        return render(res, {
          status: added.code === 'NOT_OWNER' ? 403 : 400,
          notice: { text: added.message, kind: 'error', code: added.code },
        });
      }
      await render(res, { notice: { text: `${added.email} is a member of ${org.name}.`, kind: 'ok' } });
    }),
  );

  router.post(
    '/orgs/:orgId/members/:userId/remove',
    wrap(async (req, res) => {
      const { org, user } = locals(res);
      const removed = await members.remove(org.id, { userId: req.params.userId }, user!.id);
      if (!removed.ok) {
        return render(res, {
          status: removed.code === 'NOT_OWNER' ? 403 : 400,
          notice: { text: removed.message, kind: 'error', code: removed.code },
        });
      }
      // Whoever left has no access to this page any more.
      if (removed.member.userId === user!.id) return res.redirect(303, `${BASE}/orgs`);
      await render(res, { notice: { text: `${removed.member.email} no longer has access to ${org.name}.`, kind: 'ok' } });
    }),
  );

  router.post(
    '/orgs/:orgId/invitations',
    wrap(async (req, res) => {
      const { org, user, session, cookie } = locals(res);
      const role = field(req, 'role') === 'owner' ? 'owner' : 'member';
      const created = await invitations.create(org.id, user!.id, role);
      if (!created.ok) return render(res, { status: 403, notice: { text: created.message, kind: 'error', code: created.code } });
      await accounts.setFlash(session!, cookie!, {
        organizationId: org.id,
        invitationUrl: `${deps.publicUrl}${BASE}/invitations/${created.value.token}`,
      });
      res.redirect(303, base(org.id));
    }),
  );

  router.post(
    '/orgs/:orgId/invitations/:invitationId/revoke',
    wrap(async (req, res) => {
      const { org, user } = locals(res);
      const revoked = await invitations.revoke(org.id, req.params.invitationId, user!.id);
      if (!revoked.ok) {
        return render(res, {
          status: revoked.code === 'NOT_OWNER' ? 403 : 404,
          notice: { text: revoked.message, kind: 'error', code: revoked.code },
        });
      }
      res.redirect(303, base(org.id));
    }),
  );
}
