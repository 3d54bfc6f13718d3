import type { Router } from 'express';

import { ctxOf, type DashboardDeps, envOf, field, locals, nav, notFound, wrap } from './dashboard-kit';
import { BASE, credentialsPage, messagePage, orgListPage, rotateConfirmPage } from './views';

/**
 * The person's organizations: the list, a new one and secret rotation. New secrets follow POST/redirect/GET: the POST
 * keeps them in the session's sealed flash and redirects to /secrets/new, which shows them once; a reload of that
 * page shows them no more and never creates or rotates again.
 */
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
      const { user, session, cookie } = locals(res);
      const name = field(req, 'name').trim();
      if (name.length === 0 || name.length > 120) {
        return res
          .status(400)
          .type('html')
          .send(orgListPage(ctxOf(res), await accounts.memberships(user!.id), 'Give the organization a name of 1 to 120 characters.'));
      }
      const issued = await accounts.createOrganization(user!.id, name);
      await accounts.setFlash(session!, cookie!, {
        organizationId: issued.organization.id,
        secrets: { sandbox: issued.sandboxSecret, production: issued.productionSecret },
        message: `Created ${name}. Copy both secrets now.`,
      });
      res.redirect(303, `${BASE}/orgs/${issued.organization.id}/secrets/new`);
    }),
  );

  // Membership decides access to everything under /orgs/:orgId (anything else is 404); a disabled organization is closed.
  router.use(
    '/orgs/:orgId',
    wrap(async (req, res, next) => {
      const org = await accounts.organizationFor(locals(res).user!.id, req.params.orgId);
      if (!org) return notFound(res);
      if (org.disabledAt) {
        return res
          .status(403)
          .type('html')
          .send(
            messagePage(
              ctxOf(res),
              'Organization disabled',
              `${org.name} was disabled by the operator of this server: its credentials are refused and its pages closed until it is enabled again.`,
              '403',
            ),
          );
      }
      locals(res).org = org;
      next();
    }),
  );

  router.get('/orgs/:orgId', (_req, res) => {
    const org = locals(res).org;
    res.type('html').send(credentialsPage(ctxOf(res), org, nav(org, 'overview'), {}));
  });

  // The one page that shows new secrets, once (see above).
  router.get(
    '/orgs/:orgId/secrets/new',
    wrap(async (_req, res) => {
      const { org, session, cookie } = locals(res);
      const flash = session && cookie ? await accounts.takeFlash(session, cookie) : null;
      if (flash?.organizationId === org.id && flash.secrets) {
        return res
          .type('html')
          .send(credentialsPage(ctxOf(res), org, nav(org, 'overview'), { secrets: flash.secrets, message: flash.message }));
      }
      res.type('html').send(
        credentialsPage(ctxOf(res), org, nav(org, 'overview'), {
          warning: 'New secrets are shown once, and were shown already. If you did not copy one, rotate it to get a new one.',
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
      const { org, session, cookie } = locals(res);
      const env = envOf(req.params.env);
      if (!env) return notFound(res);
      if (field(req, 'confirm') !== 'yes') return res.redirect(303, `${BASE}/orgs/${org.id}/secrets/${env}/rotate`);
      const rotated = await deps.organizations.rotateSecret(org.id, env);
      if (!rotated.ok) return notFound(res);
      await accounts.setFlash(session!, cookie!, {
        organizationId: org.id,
        secrets: { [env]: rotated.value.secret },
        message: `The ${env} secret was rotated; the previous one no longer works.`,
      });
      res.redirect(303, `${BASE}/orgs/${org.id}/secrets/new`);
    }),
  );
}
