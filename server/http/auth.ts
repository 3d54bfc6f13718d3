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

/**
 * Reads the route's metadata (from the contract) and authenticates the client credentials it asks for. `always`: every
 * request of the router it is mounted on needs them (a surface outside the contract, such as /mcp).
 */
export function clientAuth(organizations: OrganizationService, opts: { always?: boolean } = {}) {
  return async (req: RoutedRequest, res: Response, next: NextFunction) => {
    const meta = req.tsRestRoute?.metadata as RouteMetadata | undefined;
    if (!opts.always && meta?.auth !== 'client') return next();
    try {
      const { clientId, secret } = clientCredentials(req);
      const result = await organizations.authenticate(clientId, secret, { address: req.ip });
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
      if (meta?.sandboxOnly && result.value.environment !== 'sandbox') {
        return sendError(res, 'SANDBOX_ONLY', 'This endpoint exists only in the sandbox environment; use sandbox credentials.');
      }
      res.locals.caller = result.value;
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * The credentials of a request: the x-client-id / x-client-secret headers, or else HTTP Basic with the Client ID as
 * the username and the secret as the password (as Stripe accepts its key), which `curl -u id:secret` sends and
 * Swagger UI's Authorize fills in one step. When the headers are sent, they alone count.
 */
export function clientCredentials(req: Request): { clientId?: string; secret?: string } {
  const clientId = header(req, 'x-client-id');
  const secret = header(req, 'x-client-secret');
  if (clientId !== undefined || secret !== undefined) return { clientId, secret };
  return basicCredentials(req.headers.authorization) ?? {};
}

/** Longest Authorization header read: a Client ID and a secret are well under 200 characters. */
const MAX_BASIC = 1024;

function basicCredentials(value: string | undefined): { clientId?: string; secret?: string } | null {
  if (!value || value.length > MAX_BASIC) return null;
  const m = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(value);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const clientId = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  return { ...(clientId ? { clientId } : {}), ...(secret ? { secret } : {}) };
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
