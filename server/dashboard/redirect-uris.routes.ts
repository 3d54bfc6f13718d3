import type { Router } from 'express';

import { REDIRECT_URI_LIMITS } from '../../contract/redirect-uri-schemas';
import { callerFor, ctxOf, type DashboardDeps, envOf, field, locals, nav, notFound, ownedInEitherEnvironment, wrap } from './dashboard-kit';
import { redirectUrisPage } from './redirect-uris.views';
import { BASE } from './views';

/** Redirect URIs per environment: listed, added (the API's rules, refusals shown on the form) and removed. */
export function mountRedirectUriPages(router: Router, deps: DashboardDeps) {
  const { redirectUris } = deps;

  router.get(
    '/orgs/:orgId/redirect-uris',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      const message = req.query.removed === '1' ? 'Removed.' : req.query.added === '1' ? 'Added.' : undefined;
      res
        .type('html')
        .send(redirectUrisPage(ctxOf(res), org, nav(org, 'redirects'), env, await redirectUris.list(callerFor(org, env)), { message }));
    }),
  );

  router.post(
    '/orgs/:orgId/redirect-uris',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(field(req, 'env')) ?? 'sandbox';
      const caller = callerFor(org, env);
      const uri = field(req, 'uri').trim();
      // The form's own bound first (the service checks it too), so an oversized field is never echoed back whole.
      const created = uri.length > 0 && uri.length <= REDIRECT_URI_LIMITS.uriMax ? await redirectUris.create(caller, uri) : null;
      if (created?.ok) return res.redirect(303, `${BASE}/orgs/${org.id}/redirect-uris?env=${env}&added=1`);
      const error = created ? created.error.message : `Enter an absolute URL of at most ${REDIRECT_URI_LIMITS.uriMax} characters.`;
      res
        .status(400)
        .type('html')
        .send(
          redirectUrisPage(ctxOf(res), org, nav(org, 'redirects'), env, await redirectUris.list(caller), {
            error,
            uri: uri.slice(0, REDIRECT_URI_LIMITS.uriMax),
          }),
        );
    }),
  );

  router.post(
    '/orgs/:orgId/redirect-uris/:redirectUriId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const id = req.params.redirectUriId.slice(0, 64);
      const removed = await ownedInEitherEnvironment(org, (caller) => redirectUris.delete(caller, id));
      if (!removed) return notFound(res);
      res.redirect(303, `${BASE}/orgs/${org.id}/redirect-uris?env=${removed.environment}&removed=1`);
    }),
  );
}
