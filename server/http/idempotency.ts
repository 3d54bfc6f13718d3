import type { NextFunction, Request, Response } from 'express';

import type { RouteMetadata } from '../../contract';
import { IDEMPOTENCY_KEY_PATTERN, type IdempotencyService } from '../domain/idempotency.service';
import { sendError } from './api-error';
import { callerOf } from './auth';

type RoutedRequest = Request & { tsRestRoute?: { metadata?: unknown } };

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/**
 * Idempotency-Key on every client POST (after auth and the rate limit). The claimed request runs normally;
 * its JSON answer is stored (sealed) before it is sent, except our own failures (5xx), which release the key.
 * A replay answers the stored status and body with `Idempotent-Replayed: true`.
 */
export function idempotency(service: IdempotencyService) {
  return async (req: RoutedRequest, res: Response, next: NextFunction) => {
    const meta = req.tsRestRoute?.metadata as RouteMetadata | undefined;
    if (req.method !== 'POST' || meta?.auth !== 'client') return next();
    const raw = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (raw === undefined) return next();
    if (typeof raw !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(raw)) {
      const message = 'must be 1 to 255 printable ASCII characters';
      return sendError(res, 'INVALID_FIELD', `headers.Idempotency-Key: ${message}`, [{ path: 'headers.Idempotency-Key', message }]);
    }
    try {
      const begun = await service.begin(callerOf(res), raw, { method: req.method, path: req.originalUrl, body: req.body });
      if (begun.kind === 'rejected') return sendError(res, begun.error.code, begun.error.message);
      if (begun.kind === 'replay') {
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(begun.status).json(begun.body);
        return;
      }
      const { claim } = begun;
      const send = res.json.bind(res);
      let settled = false;
      res.json = ((body: unknown) => {
        if (settled) return send(body);
        settled = true;
        const status = res.statusCode;
        const keep = status >= 500 ? service.release(claim) : service.complete(claim, status, body);
        keep
          .catch((err: unknown) => {
            req.log?.error({ err }, 'idempotency: storing the response failed; releasing the key');
            return service.release(claim).catch(() => undefined);
          })
          .then(() => send(body))
          .catch((err: unknown) => req.log?.error({ err }, 'idempotency: sending the response failed'));
        return res;
      }) as Response['json'];
      // A response that never went through res.json (none today) must not hold the key until its lock ends.
      res.on('finish', () => {
        if (settled) return;
        settled = true;
        service.release(claim).catch(() => undefined);
      });
      next();
    } catch (err) {
      next(err);
    }
  };
}
