import type { Router } from 'express';

import { ctxOf, type DashboardDeps, envOf, field, locals, nav, notFound, wrap } from './dashboard-kit';
import { BASE, credentialsPage, messagePage, orgListPage, rotateConfirmPage } from './views';

/** The person's organizations: the list, a new one (its secrets shown once), members, and secret rotation. */
export function mountOrganizationPages(router: Router, deps: DashboardDeps) {
  const { accounts } = deps;

  router.get(
    '/orgs',
    wrap(async (_req, res) => {
      res.type('html').send(orgListPage(ctxOf(res), await accounts.memberships(locals(res).user!.id)));
    }),
  );

  router.post(
    '/orgs',
    wrap(async (req, res) => {
      const user = locals(res).user!;
      const name = field(req, 'name').trim();
      if (name.length === 0 || name.length > 120) {
        return res
          .status(400)
          .type('html')
          .send(orgListPage(ctxOf(res), await accounts.memberships(user.id), 'Give the organization a name of 1 to 120 characters.'));
      }
      const issued = await accounts.createOrganization(user.id, name);
      // The secrets are in this one answer and nowhere else (no redirect: they are never stored in plain text).
      res
        .status(201)
        .type('html')
        .send(
          credentialsPage(ctxOf(res), issued.organization, nav(issued.organization, 'overview'), {
            secrets: { sandbox: issued.sandboxSecret, production: issued.productionSecret },
            message: `Created ${name}. Copy both secrets now.`,
          }),
        );
    }),
  );

  // Membership decides access to everything under /orgs/:orgId; anything else is 404.
  router.use(
    '/orgs/:orgId',
    wrap(async (req, res, next) => {
      const org = await accounts.organizationFor(locals(res).user!.id, req.params.orgId);
      if (!org) return notFound(res);
      locals(res).org = org;
      next();
    }),
  );

  router.get('/orgs/:orgId', (_req, res) => {
    const org = locals(res).org;
    res.type('html').send(credentialsPage(ctxOf(res), org, nav(org, 'overview'), {}));
  });

  router.post(
    '/orgs/:orgId/members',
    wrap(async (req, res) => {
      const org = locals(res).org;
      if ((await accounts.roleIn(locals(res).user!.id, org.id)) !== 'owner') {
        return res
          .status(403)
          .type('html')
          .send(messagePage(ctxOf(res), 'Owners only', 'Only an owner of the organization can add members.', '403'));
      }
      const added = await accounts.addMember(org.id, field(req, 'email'));
      res
        .status(added ? 200 : 400)
        .type('html')
        .send(
          credentialsPage(ctxOf(res), org, nav(org, 'overview'), {
            memberNotice: added
              ? { text: `${field(req, 'email')} is a member of ${org.name}.`, kind: 'ok' }
              : { text: 'No dashboard account has that email; ask them to sign up first.', kind: 'error' },
          }),
        );
    }),
  );

  router.get('/orgs/:orgId/secrets/:env/rotate', (req, res) => {
    const org = locals(res).org;
    const env = envOf(req.params.env);
    if (!env) return notFound(res);
    res.type('html').send(rotateConfirmPage(ctxOf(res), org, nav(org, 'overview'), env));
  });

  router.post(
    '/orgs/:orgId/secrets/:env/rotate',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.params.env);
      if (!env) return notFound(res);
      if (field(req, 'confirm') !== 'yes') return res.redirect(303, `${BASE}/orgs/${org.id}/secrets/${env}/rotate`);
      const rotated = await deps.organizations.rotateSecret(org.id, env);
      if (!rotated.ok) return notFound(res);
      res.type('html').send(
        credentialsPage(ctxOf(res), org, nav(org, 'overview'), {
          secrets: { [env]: rotated.value.secret },
          message: `The ${env} secret was rotated; the previous one no longer works.`,
        }),
      );
    }),
  );
}
