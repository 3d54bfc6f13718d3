import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

import { redactUrl } from './redact-url';

/** The logger handlers reach as `req.log`: bound to the request id, built on first use. */
export class RequestLogger {
  private child?: Logger;

  constructor(
    private readonly base: Logger,
    private readonly requestId: string,
  ) {}

  debug(fields: object, message?: string) {
    this.logger().debug(fields, message);
  }
  info(fields: object, message?: string) {
    this.logger().info(fields, message);
  }
  warn(fields: object, message?: string) {
    this.logger().warn(fields, message);
  }
  error(fields: object, message?: string) {
    this.logger().error(fields, message);
  }

  private logger(): Logger {
    this.child ??= this.base.child({ reqId: this.requestId });
    return this.child;
  }
}

declare module 'http' {
  interface IncomingMessage {
    log?: RequestLogger;
  }
}

/** Probes and scrapes every few seconds would drown the log. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One access-log line per response (request id, method, redacted URL, status, duration) and `req.log`.
 * It replaces pino-http, whose child logger and serializers per request cost about 100 µs of CPU even
 * with logging silenced, a tenth of an API request (bench/api.bench.ts): here the child logger is built
 * only when a handler logs, and nothing else is done when the level is above info. (`req.log` is a plain
 * property, not a getter defined per request: an accessor with its own closure gives every request
 * object a new V8 hidden class, which is garbage the old generation has to collect.)
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = String(res.getHeader('x-request-id'));
    req.log = new RequestLogger(logger, id);
    if (PROBES.has(req.url) || !logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    const line = (aborted: boolean) => {
      const entry = {
        req: { id, method: req.method, url: redactUrl(req.originalUrl) },
        res: { statusCode: aborted ? undefined : res.statusCode },
        responseTime: Number(process.hrtime.bigint() - started) / 1e6,
      };
      if (aborted) logger.warn(entry, 'request aborted');
      else if (res.statusCode >= 500) logger.error(entry, 'request failed');
      else logger.info(entry, 'request completed');
    };
    res.once('finish', () => line(false));
    res.once('close', () => {
      if (!res.writableFinished) line(true);
    });
    next();
  };
}
