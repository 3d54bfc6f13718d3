import type { AppRouteImplementation } from '@ts-rest/express';
import type { Response } from 'express';

import type { contract } from '../../contract';
import { presentConnectionCheck, presentConnectionSettings } from '../domain/presenters';
import { errorEnvelope } from '../http/api-error';
import { callerOf } from '../http/auth';
import type { Services } from '../services';

type Routes = typeof contract.connections;
type Handlers = {
  [K in 'getConnectionSettings' | 'updateConnectionSettings' | 'checkConnection']: AppRouteImplementation<Routes[K]>;
};

/** Retry-After from a refusal that says when to come back (CONNECTION_CHECK_RATE_LIMITED, CONNECTION_CHECK_IN_PROGRESS). */
function retryAfter(res: Response, details: unknown) {
  const seconds = (details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (typeof seconds === 'number') res.setHeader('Retry-After', String(seconds));
}

/** The connections group's health handlers: the check schedule's settings, and a check now. */
export function connectionHealthHandlers(services: Services): Handlers {
  return {
    getConnectionSettings: async ({ res }) => {
      const result = await services.connectionSettings.get(callerOf(res));
      return result.ok ? { status: 200, body: presentConnectionSettings(result.value) } : errorEnvelope(res, result.error);
    },
    updateConnectionSettings: async ({ body, res }) => {
      const result = await services.connectionSettings.update(callerOf(res), body);
      return result.ok ? { status: 200, body: presentConnectionSettings(result.value) } : errorEnvelope(res, result.error);
    },
    checkConnection: async ({ params, res }) => {
      const result = await services.connectionHealth.checkNow(callerOf(res), params.connectionId);
      if (result.ok) return { status: 200, body: presentConnectionCheck(result.value) };
      retryAfter(res, result.error.details);
      return errorEnvelope(res, result.error);
    },
  };
}
