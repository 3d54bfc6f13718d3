import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { ClientUserIdSchema, EnvironmentSchema, ProviderIdSchema } from './common-schemas';
import { isoDate } from './schema-helpers';

// Link tokens: what starts the connect flow for one end user.

export const CreateLinkTokenBodySchema = extendApi(
  z
    .object({
      clientUserId: ClientUserIdSchema,
      providerId: ProviderIdSchema.optional(),
      connectionId: extendApi(z.string().min(1).max(64).optional(), {
        description:
          'Update mode: re-authenticate this existing connection (same provider and clientUserId) instead of creating a new one. ' +
          'The flow seals a fresh session and sets the connection back to ACTIVE; its access tokens keep working.',
      }),
      rememberCredentials: extendApi(z.boolean().optional(), {
        description:
          "Opt in to storing the end user's credentials, sealed (AES-256-GCM), for silent re-login when the session expires. " +
          'Default false: the password is used for the login and never stored.',
      }),
      enrollPasskey: extendApi(z.boolean().optional(), {
        description:
          "Opt in to a passkey of the connection's own. When the provider's page asks to create a passkey during the live sign-in " +
          '(the person pressed its "Add a passkey"), the widget asks, outside the page, "Allow AgentLink to keep a passkey for <site>"; ' +
          "on Allow AgentLink's authenticator answers and the passkey is sealed with the connection, for silent renewal when the " +
          "session ends. Default false: no consent is shown and the page's request is refused.",
      }),
      signIn: extendApi(z.enum(['auto', 'live']).optional(), {
        description:
          "How the end user signs in. 'auto' (default): the widget asks for the username and password and AgentLink fills in the " +
          "provider's sign-in form (its login recipe), switching to the live view when the provider has no recipe or shows a step " +
          "the recipe does not know (SSO, captcha, passkey, device prompt). 'live': the widget always shows the provider's real " +
          'sign-in page (a browser streamed into the widget, fenced to the provider and its identity providers) and the user signs in there.',
      }),
      completionRedirectUri: extendApi(z.string().min(1).max(2048).optional(), {
        format: 'uri',
        description:
          'Hosted link: where the browser goes when the flow ends, for a widget opened as a plain page (/link?token=… sent by e-mail, ' +
          'SMS or opened in a mobile webview). Must be exactly one of your redirect URIs for this environment (POST /api/redirect-uris), ' +
          'else REDIRECT_URI_NOT_ALLOWED. AgentLink adds to its query, keeping its own parameters: on success public_token, ' +
          'link_session_id and status=success; otherwise link_session_id, status=exited and error_code. A widget opened by the SDK ' +
          '(popup or iframe) answers its page by postMessage instead. Either way the LINK.SESSION_FINISHED webhook reports the outcome.',
        example: 'https://app.example.com/agentlink/done',
      }),
    })
    .strict(),
  { title: 'CreateLinkTokenRequest', example: { clientUserId: 'user-42' } },
);

export const LinkTokenSchema = extendApi(
  z.object({
    linkToken: extendApi(z.string(), {
      description: 'Short-lived token for the connect widget (client SDK). Prefixed link-sandbox- or link-production-.',
      example: 'link-sandbox-3q2vS0m2Yc1cQeWb7bN7f8X8kq4p0w9x2c3v4b5n6m7',
    }),
    expiration: isoDate('When the link token stops working.'),
    environment: EnvironmentSchema,
  }),
  { title: 'LinkToken' },
);
