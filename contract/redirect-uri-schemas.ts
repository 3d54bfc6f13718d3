import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { EnvironmentSchema } from './schemas';

/**
 * Allowed redirect URIs: where a hosted link (the widget opened at /link?token=…) may send the browser when it ends.
 * Registered per organization and environment, like Stripe's test-mode and live-mode redirect lists: a sandbox
 * loopback URI can never be named by a production link token. A link token's completionRedirectUri must equal one of
 * them exactly (character for character: no normalisation, no prefix or wildcard matching, as OAuth 2.1 asks).
 */
export const REDIRECT_URI_LIMITS = {
  /** Per organization and environment. */
  perEnvironmentMax: 20,
  uriMax: 2048,
} as const;

/**
 * The query parameters AgentLink adds to completionRedirectUri when the flow ends (the URI's own parameters are kept).
 * Named as Plaid's Link does: public_token and link_session_id; status says how it ended; error_code why it did not
 * succeed. A registered URI may not carry these names itself.
 */
export const COMPLETION_REDIRECT_PARAMS = {
  publicToken: 'public_token',
  linkSessionId: 'link_session_id',
  status: 'status',
  errorCode: 'error_code',
} as const;

/** The values of the `status` query parameter. */
export const COMPLETION_REDIRECT_STATUSES = { success: 'success', exited: 'exited' } as const;

/** Why a URI cannot be registered (details.rule of REDIRECT_URI_INVALID, and of REDIRECT_URI_NOT_ALLOWED when it applies). */
export const REDIRECT_URI_RULES = [
  'TOO_LONG',
  'INVALID_CHARACTERS',
  'NOT_AN_ABSOLUTE_URL',
  'FRAGMENT_NOT_ALLOWED',
  'CREDENTIALS_NOT_ALLOWED',
  'HTTPS_REQUIRED',
  'RESERVED_QUERY_PARAMETER',
] as const;
export type RedirectUriRule = (typeof REDIRECT_URI_RULES)[number];

const isoDate = (description: string) => extendApi(z.string(), { format: 'date-time', description });

export const RedirectUriValueSchema = extendApi(z.string().min(1).max(REDIRECT_URI_LIMITS.uriMax), {
  format: 'uri',
  description:
    `An absolute https URL (at most ${REDIRECT_URI_LIMITS.uriMax} characters); plain http only for loopback hosts ` +
    '(localhost, 127.0.0.0/8, [::1]) and only in the sandbox. No fragment (#…), no user:password@, no spaces; its own ' +
    `query is kept, but it may not already carry ${Object.values(COMPLETION_REDIRECT_PARAMS).join(', ')}.`,
  example: 'https://app.example.com/agentlink/done',
});

export const CreateRedirectUriBodySchema = extendApi(z.object({ uri: RedirectUriValueSchema }).strict(), {
  title: 'CreateRedirectUriRequest',
  example: { uri: 'https://app.example.com/agentlink/done' },
});

export const RedirectUriSchema = extendApi(
  z.object({
    redirectUriId: z.string(),
    uri: z.string(),
    environment: EnvironmentSchema,
    createdAt: isoDate('When it was registered.'),
  }),
  { title: 'RedirectUri' },
);
export type RedirectUri = z.infer<typeof RedirectUriSchema>;

export const RedirectUriListSchema = extendApi(z.object({ data: z.array(RedirectUriSchema) }), { title: 'RedirectUriList' });
