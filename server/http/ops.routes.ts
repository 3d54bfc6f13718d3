import { createHash, timingSafeEqual } from 'node:crypto';

import express, { type RequestHandler, type Router } from 'express';

import { nonPublicRange } from '../egress/addresses';
import type { AppMetrics } from '../observability/metrics';
import type { Readiness } from '../observability/readiness';
import { sendError } from './api-error';

/**
 * The operator's endpoints, outside the API contract:
 *   GET /healthz  liveness: the process answers (nothing else is checked, so a slow database never gets it restarted);
 *   GET /readyz   readiness: 200 or 503 with `{ status, checks: { database, queue[, browser]: { status, ms[, error] } } }`;
 *   GET /metrics  Prometheus text format.
 */
export function opsRoutes(deps: { readiness: Readiness; metrics: AppMetrics; metricsToken?: string }): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res, next) => {
    deps.readiness
      .report()
      .then((report) => {
        res.setHeader('Cache-Control', 'no-store');
        res.status(report.status === 'ok' ? 200 : 503).json(report);
      })
      .catch(next);
  });
  router.get('/metrics', metricsAccess(deps.metricsToken), (_req, res, next) => {
    deps.metrics
      .text()
      .then((text) => {
        res.setHeader('Cache-Control', 'no-store');
        // Exactly prom-client's content type (res.send would rewrite its parameters).
        res.setHeader('Content-Type', deps.metrics.contentType);
        res.end(text);
      })
      .catch(next);
  });
  return router;
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * Who may read /metrics. With AGENTLINK_METRICS_TOKEN, anyone presenting it as a bearer token (how Prometheus's
 * `authorization` scrape setting sends it). Without, only this machine, the default of GitLab's and many
 * exporters' monitoring endpoints: a proxy on the same host forwards outside callers from loopback, so a request
 * carrying forwarding headers is refused too.
 */
function metricsAccess(token: string | undefined): RequestHandler {
  const expected = token ? digest(token) : null;
  return (req, res, next) => {
    if (expected) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      // Digests of equal length, compared in constant time.
      if (match && timingSafeEqual(digest(match[1]), expected)) return next();
      res.setHeader('WWW-Authenticate', 'Bearer realm="agentlink-metrics"');
      return sendError(res, 'METRICS_UNAUTHORIZED', 'Send the metrics token as Authorization: Bearer <AGENTLINK_METRICS_TOKEN>.');
    }
    const peer = req.socket.remoteAddress ?? '';
    const forwarded = FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
    if (nonPublicRange(peer) === 'loopback' && !forwarded) return next();
    sendError(
      res,
      'METRICS_UNAUTHORIZED',
      'Metrics are served to this machine only; set AGENTLINK_METRICS_TOKEN to scrape them from elsewhere.',
    );
  };
}
