import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { ClientUserIdSchema, EnvironmentSchema, LIMITS, ProviderIdSchema } from './common-schemas';
import { ConnectionCheckOutcomeSchema } from './connection-health';
import { isoDate } from './schema-helpers';

// Connections: one end user's account at one provider, its device and exit, the public token exchange.

export const CONNECTION_STATUSES = ['ACTIVE', 'LOGIN_REQUIRED', 'REVOKED'] as const;
export const ConnectionStatusSchema = z.enum(CONNECTION_STATUSES);

const SizeSchema = z.object({ width: z.number().int(), height: z.number().int() });

export const ConnectionDeviceSchema = extendApi(
  z.object({
    platform: z.enum(['Windows', 'macOS', 'Linux']),
    userAgent: extendApi(z.string(), {
      description: "The User-Agent header (and navigator.userAgent): desktop Chrome, the browser's real version.",
    }),
    browserVersion: extendApi(z.string(), { description: 'The Chromium version the user agent reports (it follows browser upgrades).' }),
    locale: z.string(),
    acceptLanguage: extendApi(z.string(), { description: 'The Accept-Language header (and navigator.languages).' }),
    timezoneId: extendApi(z.string(), { description: 'IANA time zone.' }),
    viewport: SizeSchema,
    screen: SizeSchema,
    deviceScaleFactor: extendApi(z.number().optional(), {
      description: 'window.devicePixelRatio (absent on devices chosen before it was recorded: 2 for macOS, else 1).',
    }),
  }),
  {
    title: 'ConnectionDevice',
    description:
      'The browser identity every run, check and re-login of the connection presents, chosen when the connection was made ' +
      '(or on its first run, for connections made before devices), so the provider sees one device, not a new one each time.',
  },
);
export type ConnectionDevice = z.infer<typeof ConnectionDeviceSchema>;

export const ConnectionExitSchema = extendApi(
  z.discriminatedUnion('type', [
    extendApi(z.object({ type: z.literal('direct') }), { title: 'ConnectionExitDirect' }),
    extendApi(
      z.object({
        type: z.literal('proxy'),
        label: extendApi(z.string(), { description: 'The label given with upstreamProxy (default host:port).' }),
      }),
      { title: 'ConnectionExitProxy' },
    ),
  ]),
  {
    title: 'ConnectionExit',
    description:
      "Where the connection's browser traffic leaves from: this server (direct), or the upstream proxy set with " +
      'PATCH /api/connections/{connectionId} (its address and credentials are never shown).',
  },
);

export const ConnectionPasskeySchema = extendApi(
  z.object({
    credentialId: extendApi(z.string(), { description: "base64url of the credential's raw id (what the site lists)." }),
    rpId: extendApi(z.string(), { description: 'The relying party (the site) the passkey is for.' }),
    createdAt: isoDate('When the person allowed AgentLink to keep it.'),
    lastUsedAt: isoDate('When it last signed in (silent renewal); null before the first.').nullable(),
  }),
  {
    title: 'ConnectionPasskey',
    description:
      "A passkey of the connection's own, made with the person's consent during the sign-in (link token enrollPasskey). " +
      'Its private key is sealed in the vault and never shown; revoking the connection removes it.',
  },
);

export const ConnectionSchema = extendApi(
  z.object({
    connectionId: z.string(),
    providerId: ProviderIdSchema,
    clientUserId: z.string(),
    environment: EnvironmentSchema,
    // A schema of its own: extendApi annotates the schema it is given, and ConnectionStatusSchema is shared.
    status: extendApi(z.enum(CONNECTION_STATUSES), {
      description:
        'ACTIVE: usable. LOGIN_REQUIRED: the provider session ended and could not be renewed silently; send the user through ' +
        'update mode (a link token with connectionId). REVOKED: final. The transitions and their webhook events are in the ' +
        'API description (Connections).',
    }),
    device: extendApi(ConnectionDeviceSchema.nullable(), { description: 'null until the first sign-in or run chose one.' }),
    exit: ConnectionExitSchema,
    passkey: extendApi(ConnectionPasskeySchema.nullable(), { description: 'null: the connection holds no passkey.' }),
    createdAt: isoDate('Creation time.'),
    updatedAt: isoDate('Last change of the record.'),
    lastUsedAt: isoDate('Last time an agent request used this connection.').nullable(),
    revokedAt: isoDate('When the connection was revoked.').nullable(),
    lastCheckedAt: isoDate(
      'When the last health check of the session ended (scheduled, or POST …/check); null before the first.',
    ).nullable(),
    lastCheckOutcome: extendApi(ConnectionCheckOutcomeSchema.nullable(), {
      description: 'What the last health check found; null before the first.',
    }),
  }),
  { title: 'Connection' },
);
export type Connection = z.infer<typeof ConnectionSchema>;

export const ConnectionCheckResultSchema = extendApi(
  z.object({
    outcome: ConnectionCheckOutcomeSchema,
    checkedAt: isoDate('When the check ended.'),
    durationMs: extendApi(z.number().int(), { description: 'How long the check took.' }),
    /** The connection after the check (its status, lastCheckedAt and lastCheckOutcome). */
    connection: ConnectionSchema,
  }),
  { title: 'ConnectionCheckResult' },
);
export type ConnectionCheckResult = z.infer<typeof ConnectionCheckResultSchema>;

// Printable text only: a label is shown in the dashboard and in API answers.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern refuses.
const PRINTABLE = /^[^\x00-\x1f\x7f]*$/;

export const UpstreamProxySchema = extendApi(
  z
    .object({
      url: extendApi(z.string().min(1).max(300), {
        description: 'http://host:port of an HTTP proxy that accepts CONNECT (no credentials in it, no path).',
        example: 'http://proxy.example.net:8080',
      }),
      username: extendApi(z.string().min(1).max(256).regex(PRINTABLE).optional(), {
        description: 'Proxy-Authorization: Basic, with password.',
      }),
      password: extendApi(z.string().min(1).max(256).regex(PRINTABLE).optional(), { description: 'Stored sealed; never shown again.' }),
      label: extendApi(z.string().min(1).max(100).regex(PRINTABLE).optional(), {
        description: 'What the API shows as exit.label (default host:port).',
      }),
    })
    .strict(),
  { title: 'UpstreamProxy' },
);

export const UpdateConnectionBodySchema = extendApi(
  z
    .object({
      upstreamProxy: extendApi(UpstreamProxySchema.nullable(), {
        description:
          "The connection's exit: every run, check and re-login of it goes through this proxy (null: directly). The egress policy " +
          'still decides each destination, and the proxy address itself must be public in production.',
      }),
    })
    .strict(),
  {
    title: 'UpdateConnectionRequest',
    example: { upstreamProxy: { url: 'http://proxy.example.net:8080', username: 'acct-42', password: '…' } },
  },
);
export type UpdateConnectionBody = z.infer<typeof UpdateConnectionBodySchema>;

export const CONNECTION_LIST_LIMITS = { default: 20, max: 100 } as const;

export const ListConnectionsQuerySchema = z
  .object({
    clientUserId: extendApi(ClientUserIdSchema.optional(), { description: "Only this end user's connections." }),
    status: extendApi(ConnectionStatusSchema.optional(), { description: 'Only connections with this status.' }),
    limit: extendApi(z.coerce.number().int().min(1).max(CONNECTION_LIST_LIMITS.max).optional(), {
      description: `Page size (1-${CONNECTION_LIST_LIMITS.max}, default ${CONNECTION_LIST_LIMITS.default}).`,
    }),
    cursor: extendApi(z.string().min(1).max(200).optional(), { description: 'nextCursor of the previous page.' }),
  })
  .strict();
export type ListConnectionsQuery = z.infer<typeof ListConnectionsQuerySchema>;

export const ConnectionListSchema = extendApi(
  z.object({
    data: z.array(ConnectionSchema),
    nextCursor: extendApi(z.string().nullable(), { description: 'Pass as cursor for the next page; null on the last page.' }),
  }),
  { title: 'ConnectionList' },
);

export const ExchangePublicTokenBodySchema = extendApi(z.object({ publicToken: z.string().min(1).max(LIMITS.tokenMax) }).strict(), {
  title: 'ExchangePublicTokenRequest',
  example: { publicToken: 'public-sandbox-xxxxxxxx' },
});

export const ExchangePublicTokenResponseSchema = extendApi(
  z.object({
    access_token: extendApi(z.string(), {
      description: 'Long-lived access token for agent requests on this connection. Shown once; store it like a password.',
    }),
    connectionId: z.string(),
    providerId: ProviderIdSchema,
    clientUserId: z.string(),
    environment: EnvironmentSchema,
    status: ConnectionStatusSchema,
  }),
  { title: 'ExchangePublicTokenResponse' },
);
