import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';

import { formatPath } from '../../contract/response-format';
import { sendError } from './api-error';
import { redactUrl } from './redact-url';

interface FieldIssue {
  path: string;
  message: string;
}

/** Paths are written the way callers write them: `responseFormat.posts[0].title`, `params.requestId`. */
function issuesOf(root: string, error: ZodError | null): FieldIssue[] {
  if (!error) return [];
  return error.issues.map((i) => {
    const path = i.path.length === 0 ? root || 'body' : formatPath(root, i.path).replace(/^\./, '');
    if (i.path.length === 0 && i.code === 'invalid_type') return { path, message: `expected a JSON ${i.expected}, got ${i.received}` };
    if (i.code === 'unrecognized_keys') return { path, message: `unknown field(s): ${i.keys.join(', ')}` };
    return { path, message: i.message };
  });
}

/** ts-rest's validation failures become INVALID_FIELD with every bad path listed. */
export const validationErrorHandler: ErrorRequestHandler = (err, _req, res, next) => {
  if (!(err instanceof RequestValidationError)) return next(err);
  const details = [
    ...issuesOf('params', err.pathParams),
    ...issuesOf('query', err.query),
    ...issuesOf('headers', err.headers),
    ...issuesOf('', err.body),
  ];
  const first = details[0];
  sendError(res, 'INVALID_FIELD', first ? `${first.path}: ${first.message}` : 'The request is not valid.', details);
};

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 'ROUTE_NOT_FOUND', `No route ${req.method} ${req.path}. See /docs for the API.`);
};

/** An error a library marked safe to show the client (http-errors' `expose`) with a 4xx status, e.g. body-parser's. */
export function isExposedClientError(err: unknown): err is { status: number; expose: true; type?: string; message?: unknown } {
  if (!err || typeof err !== 'object') return false;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  return expose === true && typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500;
}

/** The last stop. body-parser errors are client errors; anything else is our bug and is logged. */
export function finalErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large')
      return sendError(res, 'PAYLOAD_TOO_LARGE', 'The body is larger than the limit (see the API description).');
    if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON.');
    }
    if (type === 'request.aborted' || type === 'request.size.invalid') return sendError(res, 'MALFORMED_JSON', 'The body was incomplete.');
    const status = (err as { status?: unknown }).status;
    // Express could not percent-decode a path parameter (e.g. /api/connections/%E0%A4%A).
    if (err instanceof URIError && status === 400) {
      return sendError(res, 'INVALID_FIELD', 'The URL path is not valid percent-encoding.', [
        { path: 'params', message: 'is not valid percent-encoding' },
      ]);
    }
    // Any other client error of the body reader, e.g. a Content-Encoding: gzip body that is not gzip,
    // or too many urlencoded parameters ('parameters.too.many', 413).
    if (isExposedClientError(err) && !res.headersSent) {
      if (err.status === 413) return sendError(res, 'PAYLOAD_TOO_LARGE', 'The body has too many fields or is larger than the limit.');
      if (err.status === 415) return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'The body is not in a supported media type or charset.');
      if (err.status === 400) return sendError(res, 'MALFORMED_JSON', 'The body could not be read; check its Content-Encoding.');
      return sendError(res, 'INVALID_FIELD', typeof err.message === 'string' && err.message ? err.message : 'The request is not valid.');
    }
    logger.error({ err, requestId: res.locals.requestId, method: req.method, path: redactUrl(req.path) }, 'unhandled error');
    if (res.headersSent) return;
    sendError(res, 'INTERNAL_ERROR', 'Something went wrong on our side; quote the requestId if you contact support.');
  };
}
