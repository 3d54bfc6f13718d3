import type { Router } from 'express';

import { ensureSession } from './auth.routes';
import { ctxOf, type DashboardDeps, field, locals, sessionCookies, wrap } from './dashboard-kit';
import { invitationPage } from './invitations.views';
import { BASE, messagePage } from './views';

/**
 * Opening an invitation link: a signed-in person joins with one click (a POST, CSRF-checked); someone without an account
 * signs up through it (unless AGENTLINK_SIGNUP=closed): the account, its membership and the used link are written in
 * one transaction.
 */
export function mountInvitationPages(router: Router, deps: DashboardDeps) {
  const { accounts, invitations } = deps;
  const cookies = sessionCookies(deps.secureCookie);
  const invalid = (res: Parameters<typeof ctxOf>[0], message: string) =>
    res
      .status(404)
      .type('html')
      .send(messagePage(ctxOf(res), 'Invitation not valid', message, '404'));

  router.get(
    '/invitations/:token',
    wrap(async (req, res) => {
      const opened = await invitations.open(req.params.token);
      if (!opened.ok) return invalid(res, opened.message);
      await ensureSession(res, deps);
      const { organization, invitation } = opened.value;
      res.type('html').send(
        invitationPage(ctxOf(res), {
          token: req.params.token,
          organization,
          role: invitation.role,
          signedIn: Boolean(locals(res).user),
          signup: deps.signup,
        }),
      );
    }),
  );

  router.post(
    '/invitations/:token/accept',
    wrap(async (req, res) => {
      const user = locals(res).user;
      if (!user) return res.redirect(303, `${BASE}/invitations/${encodeURIComponent(req.params.token)}`);
      const accepted = await invitations.accept(req.params.token, user.id);
      if (!accepted.ok) return invalid(res, accepted.message);
      res.redirect(303, `${BASE}/orgs/${accepted.value.organization.id}`);
    }),
  );

  router.post(
    '/invitations/:token/sign-up',
    wrap(async (req, res) => {
      const token = req.params.token;
      if (deps.signup === 'closed' || locals(res).user) return res.redirect(303, `${BASE}/invitations/${encodeURIComponent(token)}`);
      const opened = await invitations.open(token);
      if (!opened.ok) return invalid(res, opened.message);
      const email = field(req, 'email');
      const result = await accounts.signUp(email, field(req, 'password'), locals(res).session?.id ?? null, (tx, userId) =>
        invitations.joinWithin(tx, opened.value, userId).then((joined) => joined.ok),
      );
      if (!result.ok) {
        if (result.code === 'INVALID_INVITATION') return invalid(res, result.message);
        const { organization, invitation } = opened.value;
        return res
          .status(400)
          .type('html')
          .send(
            invitationPage(ctxOf(res), {
              token,
              organization,
              role: invitation.role,
              signedIn: false,
              signup: deps.signup,
              error: result.message,
              email,
            }),
          );
      }
      cookies.set(res, result.value.cookie, result.value.session.expiresAt);
      res.redirect(303, `${BASE}/orgs/${opened.value.organization.id}`);
    }),
  );
}
