import { CreateLinkTokenBodySchema, LinkTokenSchema } from '../link-token-schemas';
import { c, meta } from '../route-kit';

// The connect flow: a link token for one end user.

export const linkRoutes = c.router({
  createLinkToken: {
    method: 'POST',
    path: '/api/link-token',
    body: CreateLinkTokenBodySchema,
    responses: { 200: LinkTokenSchema },
    summary: 'Create a link token',
    description:
      'Starts the connect flow for one end user. Pass the returned linkToken to the client SDK (useAgentLink). ' +
      'Single use, valid 30 minutes by default. With connectionId, the flow re-authenticates that connection (update mode). ' +
      'With completionRedirectUri (one of your redirect URIs), a widget opened as a plain page sends the browser there when the ' +
      'flow ends (hosted link). Errors: INVALID_FIELD, UNKNOWN_PROVIDER, CONNECTION_NOT_FOUND and CONNECTION_REVOKED (update mode), ' +
      'REDIRECT_URI_NOT_ALLOWED (details.field).',
    metadata: meta({
      auth: 'client',
      errors: ['INVALID_FIELD', 'UNKNOWN_PROVIDER', 'CONNECTION_NOT_FOUND', 'CONNECTION_REVOKED', 'REDIRECT_URI_NOT_ALLOWED'],
    }),
  },
});
