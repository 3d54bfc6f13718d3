import type { RequestHandler } from 'express';

import { newId } from '../domain/ids';

/** Every response carries x-request-id, and every error envelope quotes it. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = newId('req');
  res.locals.requestId = id;
  res.setHeader('x-request-id', id);
  next();
};
