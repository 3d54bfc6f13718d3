import { timingSafeEqual } from 'node:crypto';

import { parse as parseCookies } from 'cookie';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

import { isExposedClientError } from '../http/error-handler';
import type { Services } from '../services';
import { dashboardAssets } from './assets';
import { mountAuthPages, requireUser } from './auth.routes';
import { mountConnectionPages } from './connections.routes';
import { ctxOf, type DashboardDeps, field, locals, notFound, SESSION_COOKIE, wrap } from './dashboard-kit';
import { mountInvitationPages } from './invitations.routes';
import { mountMemberPages } from './members.routes';
import { mountOrganizationPages } from './organizations.routes';
import { mountProviderPages } from './providers.routes';
import { mountRedirectUriPages } from './redirect-uris.routes';
import { mountRequestPages } from './requests.routes';
import { messagePage } from './views';
import { mountWebhookPages } from './webhooks.routes';

export { SESSION_COOKIE } from './dashboard-kit';

/**
 * The dashboard at /dashboard: server-rendered pages for people (not API callers). The pages read and change
 * data only through the domain services the API uses, with the same ownership checks (organization and
 * environment); the person's membership of the organization is checked first.
 *
 * Security, in the order the middleware runs:
 *  - every response: no-store, a strict CSP (scripts and styles from 'self' only), no framing;
 *  - the session cookie (HttpOnly, SameSite=Lax, Secure when the public URL is https, path /dashboard) names a
 *    stored session; signing in or up replaces it with a new one;
 *  - every POST must carry the session's CSRF token (form field `_csrf`, or header `x-csrf-token` for htmx),
 *    otherwise 403 and nothing happens;
 *  - every /orgs/:orgId route answers 404 unless the person is a member of that organization.
 */
export function dashboardRouter(services: Services): Router {
  return buildDashboardRouter({
    accounts: services.dashboard,
    members: services.dashboardMembers,
    invitations: services.invitations,
    signup: services.config.signup,
    publicUrl: services.config.publicUrl,
    organizations: services.organizations,
    connections: services.connections,
    // Read at each call: the service a test or a later reconfiguration put in place.
    connectionHealth: { checkNow: (caller, connectionId) => services.connectionHealth.checkNow(caller, connectionId) },
    agentRequests: services.agentRequests,
    userActions: services.userActions,
    userActionLinks: services.userActionLinks,
    clock: services.clock,
    webhooks: services.webhookEndpoints,
    catalogue: services.catalogue,
    providers: services.organizationProviders,
    providerActions: services.providerActions,
    redirectUris: services.redirectUris,
    secureCookie: services.config.publicUrl.startsWith('https://'),
  });
}

function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function buildDashboardRouter(deps: DashboardDeps): Router {
  const router = express.Router();

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    next();
  });
  router.use('/assets', dashboardAssets());
  router.use(express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 50 }));

  // The session of the cookie, if any and alive.
  router.use(
    wrap(async (req, res, next) => {
      const cookie = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
      const session = await deps.accounts.resolveSession(cookie);
      const user = session?.userId ? await deps.accounts.findUser(session.userId) : null;
      Object.assign(res.locals, { session, user, cookie: session ? cookie : undefined, signup: deps.signup });
      next();
    }),
  );

  // CSRF: every state-changing request carries the token of its session.
  router.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const session = locals(res).session;
    const sent = field(req, '_csrf') || String(req.headers['x-csrf-token'] ?? '');
    if (!session || !sent || !tokensEqual(sent, session.csrfToken)) {
      res
        .status(403)
        .type('html')
        .send(
          messagePage(
            ctxOf(res),
            'Request refused',
            'The form was stale or did not come from this dashboard (CSRF check failed). Reload the page and try again.',
            '403',
          ),
        );
      return;
    }
    next();
  });

  mountAuthPages(router, deps);
  mountInvitationPages(router, deps);
  router.use('/orgs', requireUser);
  // The organization pages also install the membership check every later /orgs/:orgId page relies on.
  mountOrganizationPages(router, deps);
  mountMemberPages(router, deps);
  mountConnectionPages(router, deps);
  mountRequestPages(router, deps);
  mountWebhookPages(router, deps);
  mountProviderPages(router, deps);
  mountRedirectUriPages(router, deps);

  router.use((_req, res) => notFound(res));
  // A form the body reader refused (too many fields, too large, bad charset): a readable page, not the API's JSON.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!isExposedClientError(err) || res.headersSent) return next(err);
    const message =
      err.status === 413
        ? 'The form was too large or had too many fields. Go back and try again.'
        : err.status === 415
          ? 'The form was sent in an encoding this dashboard does not read. Go back and try again.'
          : 'The form could not be read. Go back and try again.';
    res
      .status(err.status)
      .type('html')
      .send(messagePage(ctxOf(res), 'Form not accepted', message, String(err.status)));
  });
  return router;
}
