import type { NextFunction, Request, Response } from 'express';

import type { RouteMetadata } from '../../contract';
import type { Caller } from '../domain/context';
import type { OrganizationService } from '../domain/organizations.service';
import { sendError } from './api-error';

type RoutedRequest = Request & { tsRestRoute?: { metadata?: unknown } };

/**
 * A throttled answer is held back this long (a timer, no CPU): a client that retries at once, in a loop, is slowed to
 * a few requests a second per connection instead of spending the event loop on a stream of cheap 429s.
 */
export const THROTTLED_ANSWER_DELAY_MS = 250;

/** Reads the route's metadata (from the contract) and authenticates the client credentials it asks for. */
export function clientAuth(organizations: OrganizationService) {
  return async (req: RoutedRequest, res: Response, next: NextFunction) => {
    const meta = req.tsRestRoute?.metadata as RouteMetadata | undefined;
    if (meta?.auth !== 'client') return next();
    try {
      const result = await organizations.authenticate(header(req, 'x-client-id'), header(req, 'x-client-secret'), { address: req.ip });
      if (!result.ok) {
        const { code, message, details } = result.error;
        if (code === 'AUTHENTICATION_THROTTLED') {
          res.setHeader('Retry-After', String((details as { retryAfterSeconds: number }).retryAfterSeconds));
          setTimeout(() => {
            if (!res.writableEnded && !res.destroyed) sendError(res, code, message, details);
          }, THROTTLED_ANSWER_DELAY_MS).unref();
          return;
        }
        return sendError(res, code, message, details);
      }
      if (meta.sandboxOnly && result.value.environment !== 'sandbox') {
        return sendError(res, 'SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
      }
      res.locals.caller = result.value;
      next();
    } catch (err) {
      next(err);
    }
  };
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('route ran without an authenticated caller');
  return caller;
}
