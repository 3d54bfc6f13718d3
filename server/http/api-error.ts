import type { Response } from 'express';

import { ERROR_CATALOGUE } from '../../contract/error-codes';
import type { ErrorEnvelope } from '../../contract/schemas';
import type { DomainError, ErrorCode } from '../domain/errors';

/** Builds the one error envelope. The request id is the one the request-id middleware put on the response. */
export function errorEnvelope(
  res: Response,
  error: DomainError,
): { status: (typeof ERROR_CATALOGUE)[ErrorCode]['status']; body: ErrorEnvelope } {
  const { status, type } = ERROR_CATALOGUE[error.code];
  return {
    status,
    body: {
      error: {
        type,
        code: error.code,
        message: error.message,
        requestId: String(res.locals.requestId ?? ''),
        ...(error.details === undefined ? {} : { details: error.details }),
      },
    },
  };
}

export function sendError(res: Response, code: ErrorCode, message: string, details?: unknown) {
  const { status, body } = errorEnvelope(res, { code, message, ...(details === undefined ? {} : { details }) });
  res.status(status).json(body);
}
