import type { Request, RequestHandler } from 'express';

import type { AppMetrics } from '../observability/metrics';
import { routeLabel } from './route-label';

/** Observes every response: method, route pattern, status and duration (aborted requests are not counted: they have no status). */
export function httpMetrics(metrics: AppMetrics, isSandboxSite: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttp({ method: req.method, route: routeLabel(req, isSandboxSite), status: res.statusCode }, seconds);
    });
    next();
  };
}
