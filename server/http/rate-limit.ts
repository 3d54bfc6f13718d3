import type { NextFunction, Request, Response } from 'express';

import type { RouteMetadata } from '../../contract';
import type { Caller } from '../domain/context';
import type { RateLimitService } from '../domain/rate-limits.service';
import { sendError } from './api-error';

type RoutedRequest = Request & { tsRestRoute?: { metadata?: unknown } };

/**
 * Runs after clientAuth (it needs the organization): takes one token from the caller's bucket and answers
 * RateLimit-Limit / -Remaining / -Reset (IETF draft) on every response, and 429 RATE_LIMITED with Retry-After
 * when the bucket is empty. `always`: as clientAuth's (a router outside the contract, such as /mcp). A failing bucket store lets the request through (logged): limits protect, they must not break.
 */
export function rateLimit(limits: RateLimitService, opts: { always?: boolean } = {}) {
  return async (req: RoutedRequest, res: Response, next: NextFunction) => {
    const meta = req.tsRestRoute?.metadata as RouteMetadata | undefined;
    const caller = res.locals.caller as Caller | undefined;
    if ((!opts.always && meta?.auth !== 'client') || !caller || !limits.enabled) return next();
    let decision;
    try {
      decision = await limits.take(caller);
    } catch (err) {
      req.log?.error({ err }, 'rate limit check failed; request let through');
      return next();
    }
    if (!decision) return next();
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      return sendError(
        res,
        'RATE_LIMITED',
        `Too many requests for this organization and environment (burst ${decision.limit}); retry after ${decision.retryAfterSeconds} second(s).`,
      );
    }
    next();
  };
}
