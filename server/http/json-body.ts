import express, { type RequestHandler } from 'express';
import sjson from 'secure-json-parse';
import { sendError } from './api-error';

/**
 * JSON bodies, parsed strictly: only application/json, at most `limit` bytes, and keys that could
 * poison prototypes (__proto__, constructor.prototype) refused anywhere in the document.
 */
export function jsonBody(limit: number): RequestHandler[] {
  const readText = express.text({ type: () => true, limit });
  const hasBody = (req: express.Request) =>
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

  const requireJson: RequestHandler = (req, res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is('application/json')) {
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
    }
    next();
  };

  const parse: RequestHandler = (req, res, next) => {
    if (typeof req.body !== 'string') {
      req.body = undefined;
      return next();
    }
    if (req.body.trim() === '') {
      req.body = undefined;
      return next();
    }
    try {
      req.body = sjson.parse(req.body, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (/prototype|constructor/i.test(message)) {
        return sendError(res, 'FORBIDDEN_PROPERTY_NAME', 'Property names __proto__ and constructor.prototype are not allowed.');
      }
      return sendError(res, 'MALFORMED_JSON', 'The body is not valid JSON.');
    }
    next();
  };

  return [requireJson, readText, parse];
}
