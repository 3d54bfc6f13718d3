import { z } from 'zod';

import { CreateRedirectUriBodySchema, REDIRECT_URI_LIMITS, RedirectUriListSchema, RedirectUriSchema } from '../redirect-uri-schemas';
import { c, meta } from '../route-kit';

// Where hosted links may send the browser when they end.

const RedirectUriIdParams = z.object({ redirectUriId: z.string().min(1).max(64) });

export const redirectUrisRoutes = c.router({
  listRedirectUris: {
    method: 'GET',
    path: '/api/redirect-uris',
    responses: { 200: RedirectUriListSchema },
    summary: 'List the allowed redirect URIs',
    description:
      "Where hosted links of the credentials' environment may send the browser when they end (a link token's " +
      'completionRedirectUri), oldest first.',
    metadata: meta({ auth: 'client', errors: [] }),
  },
  createRedirectUri: {
    method: 'POST',
    path: '/api/redirect-uris',
    body: CreateRedirectUriBodySchema,
    responses: { 201: RedirectUriSchema },
    summary: 'Allow a redirect URI',
    description:
      'Registers a URI that link tokens of this environment may name as completionRedirectUri (matched exactly). https only; ' +
      'plain http only for loopback hosts in the sandbox; no fragment, no credentials. At most ' +
      `${REDIRECT_URI_LIMITS.perEnvironmentMax} per organization and environment. Errors: INVALID_FIELD, REDIRECT_URI_INVALID ` +
      '(details.rule), REDIRECT_URI_ALREADY_REGISTERED, REDIRECT_URI_LIMIT.',
    metadata: meta({ auth: 'client', errors: ['REDIRECT_URI_INVALID', 'REDIRECT_URI_ALREADY_REGISTERED', 'REDIRECT_URI_LIMIT'] }),
  },
  deleteRedirectUri: {
    method: 'DELETE',
    path: '/api/redirect-uris/:redirectUriId',
    pathParams: RedirectUriIdParams,
    body: c.noBody(),
    responses: { 200: RedirectUriSchema },
    summary: 'Remove an allowed redirect URI',
    description:
      'Removes it and returns it. Link tokens that already name it no longer redirect there when their flow ends (their ' +
      'LINK.SESSION_FINISHED webhook still goes out). Errors: REDIRECT_URI_NOT_FOUND.',
    metadata: meta({ auth: 'client', errors: ['REDIRECT_URI_NOT_FOUND'] }),
  },
});
