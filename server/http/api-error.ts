import type { Response } from 'express';

import { ERROR_CATALOGUE } from '../../contract/error-codes';
import type { ErrorEnvelope } from '../../contract/schemas';
import type { DomainError, ErrorCode } from '../domain/errors';
import { redactSecrets, redactSecretsDeep } from './secret-shapes';

/**
 * Builds the one error envelope. The request id is the one the request-id middleware put on the response.
 * Messages and details often quote what the caller sent (an id, a path); anything in them shaped like one of our
 * tokens or secrets is redacted here, once for every error, so no handler can echo one by accident.
 */
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
        message: redactSecrets(error.message),
        requestId: String(res.locals.requestId ?? ''),
        ...(error.details === undefined ? {} : { details: redactSecretsDeep(error.details) }),
      },
    },
  };
}

export function sendError(res: Response, code: ErrorCode, message: string, details?: unknown) {
  const { status, body } = errorEnvelope(res, { code, message, ...(details === undefined ? {} : { details }) });
  res.status(status).json(body);
}
