import type { Request } from 'express';

/** Mount points whose responses may come from middleware rather than a route (static files, 404s of a sub-router). */
const MOUNTS = ['/api', '/dashboard', '/docs', '/link'];

/**
 * The route pattern a request matched (`/api/agent-requests/:requestId`), for metric labels and span names:
 * never the raw URL, which holds ids and tokens and would give every request a label of its own. Routers are
 * mounted at fixed paths (no parameters in a mount path), so baseUrl + the route's path is a pattern; baseUrl is
 * lower-cased because Express matches mount paths case-insensitively.
 */
export function routeLabel(req: Request, isSandboxSite: (req: Request) => boolean): string {
  if (isSandboxSite(req)) return 'sandbox-site';
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl.toLowerCase()}${route.path}`;
  const first = `/${(req.originalUrl.split(/[/?#]/)[1] ?? '').toLowerCase()}`;
  return MOUNTS.includes(first) ? `${first}/*` : '(unmatched)';
}
