import type { RequestHandler } from 'express';

import type { Store } from '../store';
import type { KitClock, SiteDefinition } from './kit/site';
import { createSiteApp } from './kit/site-app';
import type { SiteSessions } from './site-sessions';
import type { TenantTokens } from './tenant-tokens';

/**
 * Serves the simulated provider sites by host name: `<slug>.<suffix>` (e.g. orbit.sandbox.localhost) gets
 * that site; every other host falls through to the API. Chromium resolves *.localhost to loopback, so the
 * sites work locally with no DNS setup; a deployment points a wildcard DNS name at the service instead.
 */
export function sandboxSitesMiddleware(
  sites: SiteDefinition[],
  deps: { store: Store; clock: KitClock; sessions: SiteSessions; tenantTokens: TenantTokens; hostSuffix: string },
): RequestHandler {
  const byHost = new Map(sites.map((s) => [`${s.slug}.${deps.hostSuffix}`, createSiteApp(s, deps)]));
  return (req, res, next) => {
    const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    const siteApp = byHost.get(host);
    if (!siteApp) return next();
    siteApp(req, res, next);
  };
}
