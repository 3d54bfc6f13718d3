import { initServer } from '@ts-rest/express';

import { contract } from '../../contract';
import { presentRedirectUri } from '../domain/presenters';
import { errorEnvelope } from '../http/api-error';
import { callerOf } from '../http/auth';
import type { Services } from '../services';

/** The redirectUris group of the contract: where hosted links may send the browser when they end. */
export function redirectUriHandlers(services: Services) {
  const s = initServer();
  const uris = services.redirectUris;
  return s.router(contract.redirectUris, {
    listRedirectUris: async ({ res }) => ({
      status: 200,
      body: { data: (await uris.list(callerOf(res))).map(presentRedirectUri) },
    }),
    createRedirectUri: async ({ body, res }) => {
      const result = await uris.create(callerOf(res), body.uri);
      return result.ok ? { status: 201, body: presentRedirectUri(result.value) } : errorEnvelope(res, result.error);
    },
    deleteRedirectUri: async ({ params, res }) => {
      const result = await uris.delete(callerOf(res), params.redirectUriId);
      return result.ok ? { status: 200, body: presentRedirectUri(result.value) } : errorEnvelope(res, result.error);
    },
  });
}
