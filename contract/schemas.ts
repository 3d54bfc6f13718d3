import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { ConnectionCheckOutcomeSchema } from './connection-health';
import { checkResponseFormat, RESPONSE_FORMAT_LIMITS } from './response-format';

/** Bounds that the contract enforces at the edge; documented in the OpenAPI descriptions. */
export const LIMITS = {
  clientUserIdMax: 256,
  actionMax: 4000,
  startingUrlMax: 2048,
  parametersMaxBytes: 64 * 1024,
  parametersMaxDepth: 10,
  tokenMax: 200,
  timeoutMsMin: 5_000,
  timeoutMsMax: 15 * 60_000,
  timeoutMsDefault: 5 * 60_000,
} as const;

export const ENVIRONMENTS = ['sandbox', 'production'] as const;
export const EnvironmentSchema = z.enum(ENVIRONMENTS);

export const ERROR_TYPES = ['INVALID_REQUEST', 'AUTHENTICATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'API_ERROR'] as const;

export const ErrorEnvelopeSchema = extendApi(
  z.object({
    error: z.object({
      type: z.enum(ERROR_TYPES),
      code: extendApi(z.string(), { description: 'Stable UPPER_SNAKE error code; see the error table in the API description.' }),
      message: z.string(),
      requestId: extendApi(z.string(), { description: 'Same as the x-request-id response header; quote it when asking for support.' }),
      details: z.unknown().optional(),
    }),
  }),
  {
    title: 'Error',
    example: {
      error: {
        type: 'INVALID_REQUEST',
        code: 'INVALID_FIELD',
        message:
          'responseFormat.profile.followers: unknown type "numbr"; expected one of string, number, integer, boolean, date, datetime, url, email',
        requestId: 'req_5f2c0f3a9d0e4b7c',
        details: [{ path: 'responseFormat.profile.followers', message: 'unknown type "numbr"' }],
      },
    },
  },
);
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

const isoDate = (description: string) => extendApi(z.string(), { format: 'date-time', description });

export const ProviderIdSchema = extendApi(z.string().uuid(), {
  description: 'Provider identifier (UUID) from GET /api/providers.',
  example: '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11',
});

export const ClientUserIdSchema = extendApi(z.string().min(1).max(LIMITS.clientUserIdMax), {
  description: 'Your own identifier for the end user (1-256 characters). Opaque to AgentLink.',
  example: 'user-42',
});

// ---------- providers ----------

export const ProviderSchema = extendApi(
  z.object({
    providerId: ProviderIdSchema,
    name: z.string(),
    slug: z.string(),
    category: z.enum(['social', 'developer']),
    environment: EnvironmentSchema,
    homeUrl: z.string(),
    loginUrl: z.string(),
    allowedOrigins: extendApi(z.array(z.string()), {
      description: "Where the browser may go: host names (on homeUrl's scheme and port) or full origins.",
    }),
    identityProviders: extendApi(z.array(z.string()), { description: 'Origins its single sign-on passes through (sign-in only).' }),
    logo: extendApi(z.string(), { description: 'The logo: an SVG as a data: URL, or an https URL.' }),
    source: extendApi(z.enum(['built-in', 'operator', 'organization']), {
      description: "built-in: shipped with AgentLink; operator: the server's providers file; organization: your own (POST /api/providers).",
    }),
  }),
  { title: 'Provider' },
);
export type Provider = z.infer<typeof ProviderSchema>;

export const ProviderListSchema = z.object({ providers: z.array(ProviderSchema) });

/** One provider with, for your organization's own, the declaration it was created from (to edit and send back). */
export const ProviderDetailSchema = extendApi(
  ProviderSchema.extend({
    declaration: extendApi(z.record(z.unknown()).nullable(), {
      type: 'object',
      description: "Your organization's providers: the stored declaration (ProviderDeclaration). null for built-in and operator ones.",
    }),
  }),
  { title: 'ProviderDetail' },
);
export type ProviderDetail = z.infer<typeof ProviderDetailSchema>;

export const PLAYBOOK_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{0,99}$/;

export const ProviderActionSchema = extendApi(
  z.object({
    name: extendApi(z.string(), {
      description: 'The playbook: pass it as `playbook` on an agent request to run it without routing.',
      example: 'orbit.send-message',
    }),
    description: z.string(),
    examples: extendApi(z.array(z.string()), {
      description: 'Requests as people write them; an action phrased like these is routed to this playbook with no model.',
    }),
    parameters: extendApi(z.record(z.unknown()), {
      type: 'object',
      description:
        "JSON Schema of its parameters (generated from the playbook's own schema). `x-aliases`: other names a parameter is accepted " +
        'under; `x-from-action`: how it may be written in the action instead ("to Priya Nair", quoted text …). Explicit parameters win.',
    }),
    writes: extendApi(z.boolean(), {
      description: 'Whether it changes anything on the provider (never chosen for a request with mode read).',
    }),
    resultFields: extendApi(z.record(z.unknown()), {
      type: 'object',
      description:
        'What it can fill, in the responseFormat grammar (copy any part as your responseFormat). A list stands for any list of your ' +
        'template; names are matched by meaning too (sent, posted, ok → whether it happened; sentAt, time → when; id; url).',
    }),
  }),
  {
    title: 'ProviderAction',
    example: {
      name: 'orbit.send-message',
      description: 'Sends a direct message on Orbit …',
      examples: ["Send a message to Priya Nair saying 'Running late, sorry!'"],
      parameters: {
        type: 'object',
        properties: { recipient: { type: 'string', 'x-from-action': '"to <person>" …' }, text: { type: 'string' } },
        required: ['recipient', 'text'],
      },
      writes: true,
      resultFields: { sent: 'boolean - whether the message was sent', sentAt: 'datetime? - when it was sent' },
    },
  },
);
export type ProviderAction = z.infer<typeof ProviderActionSchema>;

export const ProviderActionListSchema = extendApi(z.object({ providerId: ProviderIdSchema, actions: z.array(ProviderActionSchema) }), {
  title: 'ProviderActionList',
});

// ---------- link tokens ----------

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

// ---------- connections ----------

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

// ---------- agent requests ----------

export const AGENT_REQUEST_STATUSES = ['PENDING', 'RUNNING', 'NEEDS_USER', 'COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'] as const;
export const AgentRequestStatusSchema = extendApi(z.enum(AGENT_REQUEST_STATUSES), {
  description:
    'PENDING (queued), RUNNING, NEEDS_USER (paused: only the end user can go on; see userAction), then one final status: ' +
    'COMPLETED, FAILED, CANCELED or TIMED_OUT.',
});

/** Why a run waits for its end user (userAction.reason). */
export const USER_ACTION_REASONS = ['CODE', 'CAPTCHA', 'DEVICE_APPROVAL', 'APPROVAL', 'OTHER'] as const;
export const UserActionReasonSchema = extendApi(z.enum(USER_ACTION_REASONS), {
  description:
    'CODE: the provider asks for a code (two-factor, "confirm it is you"); CAPTCHA: a human check; DEVICE_APPROVAL: the provider waits ' +
    'for the user to approve this device elsewhere; APPROVAL: a write is held until the user approves it (approval on the request); ' +
    'OTHER: a step only the user can do (re-consent, terms …).',
});

/** When a write waits for approval (approval on the create body). */
export const APPROVAL_MODES = ['writes', 'first_write'] as const;
export const ApprovalModeSchema = extendApi(z.enum(APPROVAL_MODES), {
  description:
    'Ask the end user before the run changes anything. Every request the browser would send that may change something (as read ' +
    'mode decides it: not GET/HEAD/OPTIONS, or a WebSocket message) is held at the network, unsent, and the run waits NEEDS_USER ' +
    '(reason APPROVAL) with a summary of it. Approve: it is sent, once. Deny: the run ends FAILED with DENIED_BY_USER and nothing was sent. ' +
    "`writes`: each write asks. `first_write`: once the user approved one, the run's further writes go without asking. Needs mode read_write.",
});

export const HeldWriteSchema = extendApi(
  z.object({
    method: extendApi(z.string(), { description: 'POST, PUT, PATCH, DELETE … or WEBSOCKET for a WebSocket message.' }),
    url: extendApi(z.string(), { description: 'Where it would go (query values masked like the trace masks them).' }),
    fields: extendApi(z.array(z.object({ name: z.string(), value: z.string() })), {
      description:
        'What it would send, field by field (form, multipart or JSON body; at most 50, values cut at 200 characters), masked ' +
        "as the trace masks it: the connection's stored credentials as [secret], token-shaped values as [token], fields named " +
        "like secrets (password, token, csrf …) as •••, and the request's parameter values by name ({{parameters.text}}).",
    }),
    bodyBytes: z.number().int(),
  }),
  { title: 'HeldWrite', description: 'A write held at the network until the end user approves or denies it.' },
);
export type HeldWrite = z.infer<typeof HeldWriteSchema>;

export const UserActionSchema = extendApi(
  z.object({
    reason: UserActionReasonSchema,
    message: extendApi(z.string(), { description: 'What the user is asked to do, in words, as the widget shows it.' }),
    since: isoDate('When the run started waiting.'),
    expiresAt: isoDate('When the run stops waiting: it then ends FAILED with USER_ACTION_EXPIRED.'),
    linkToken: extendApi(z.string(), {
      description:
        "Opens the connect widget on this run's own browser (the React hook's open(), like a link token from POST /api/link-token). " +
        'Valid until expiresAt.',
    }),
    url: extendApi(z.string(), {
      format: 'uri',
      description: 'The same as a hosted page (/link?token=…) to send the user by e-mail, SMS or push, or to open in a webview.',
    }),
    write: extendApi(HeldWriteSchema.nullable(), { description: 'For reason APPROVAL: the write that waits.' }),
  }),
  {
    title: 'UserAction',
    description:
      'What a NEEDS_USER run waits for. The user joins through the widget (linkToken) or the hosted url, sees the run’s own browser, ' +
      'does the step (or approves or denies the write) and the run resumes where it stopped.',
  },
);
export type UserAction = z.infer<typeof UserActionSchema>;

/**
 * Bounded free-form JSON object: size and depth are checked, and the keys must be plain.
 * The depth is measured iteratively and first: a hostile, deeply nested body must not overflow the stack
 * (JSON.stringify of a few thousand nested arrays does).
 */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return false;
}

export const ParametersSchema = extendApi(
  z.record(z.unknown()).superRefine((value, ctx) => {
    if (nestedDeeperThan(value, LIMITS.parametersMaxDepth)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be nested at most ${LIMITS.parametersMaxDepth} levels deep` });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > LIMITS.parametersMaxBytes) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be at most ${LIMITS.parametersMaxBytes} bytes as JSON (got ${bytes})` });
    }
  }),
  {
    description: `Free-form inputs for the action (JSON object, at most ${LIMITS.parametersMaxBytes / 1024} KiB).`,
    example: { text: 'Hello from AgentLink', visibility: 'public' },
  },
);

export const ResponseFormatSchema = extendApi(
  z.record(z.unknown()).superRefine((value, ctx) => {
    for (const issue of checkResponseFormat(value)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: issue.path, message: issue.message });
    }
  }),
  {
    title: 'ResponseFormat',
    type: 'object',
    description:
      'Template of the result. Each property is a leaf descriptor "<type>" or "<type> - <description>" ' +
      '(type: string, number, integer, boolean, date, datetime, url, email; append "?" to allow null), ' +
      'an array holding exactly one template element, or a nested object. ' +
      `Bounds: depth ${RESPONSE_FORMAT_LIMITS.maxDepth}, ${RESPONSE_FORMAT_LIMITS.maxKeysTotal} properties, ${RESPONSE_FORMAT_LIMITS.maxSerializedBytes / 1024} KiB.`,
    additionalProperties: true,
    example: {
      name: 'string - Full name on the profile',
      followers: 'number - Follower count',
      posts: [{ text: 'string - Post text', postedAt: 'datetime? - When it was posted' }],
    },
  },
);

export const AGENT_RUN_MODES = ['read', 'read_write'] as const;
export const AgentRunModeSchema = extendApi(z.enum(AGENT_RUN_MODES), {
  description:
    '`read`: the run may only read. The browser sends no state-changing request (methods other than GET/HEAD/OPTIONS, ' +
    'form submissions, WebSocket messages): they are blocked at the network and shown in the trace, and no playbook that ' +
    'writes is chosen. `read_write` (default): the run may change things on the provider.',
});

export const CreateAgentRequestBodySchema = extendApi(
  z
    .object({
      accessToken: z.string().min(1).max(LIMITS.tokenMax),
      action: extendApi(z.string().trim().min(1).max(LIMITS.actionMax), {
        description: 'What the agent should do, in natural language.',
      }),
      startingUrl: extendApi(z.string().min(1).max(LIMITS.startingUrlMax), {
        format: 'uri',
        description: "Absolute http(s) URL inside the provider's allowed domains where the agent begins.",
      }),
      parameters: ParametersSchema.default({}),
      responseFormat: ResponseFormatSchema,
      timeoutMs: extendApi(z.number().int().min(LIMITS.timeoutMsMin).max(LIMITS.timeoutMsMax).optional(), {
        description: `Time budget for the run (default ${LIMITS.timeoutMsDefault} ms).`,
      }),
      mode: AgentRunModeSchema.optional(),
      approval: ApprovalModeSchema.optional(),
      playbook: extendApi(z.string().regex(PLAYBOOK_NAME_PATTERN, 'must be a playbook name such as orbit.send-message').optional(), {
        description:
          'Run this playbook of the provider (GET /api/providers/{providerId}/actions) instead of routing the action. Checked before ' +
          'the request is accepted: UNKNOWN_PLAYBOOK, PLAYBOOK_PARAMETERS_MISSING, PLAYBOOK_PARAMETERS_INVALID, PLAYBOOK_WRITES_IN_READ_MODE.',
        example: 'orbit.send-message',
      }),
    })
    .strict(),
  {
    title: 'CreateAgentRequest',
    example: {
      accessToken: 'access-sandbox-xxxxxxxx',
      action: 'Read my profile',
      startingUrl: 'http://social.sandbox.localhost:4000/me',
      parameters: {},
      responseFormat: { name: 'string - Full name', followers: 'number - Follower count' },
    },
  },
);

export const AgentRequestErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

export const AgentRequestWarningSchema = extendApi(z.object({ code: z.string(), message: z.string(), path: z.string().optional() }), {
  title: 'AgentRequestWarning',
  description:
    "Something a COMPLETED request could not do fully. RESULT_FIELD_UNFILLED: the playbook's write took effect but it could not " +
    'fill this field of responseFormat, so it is null (the request is not failed: retrying would repeat the write).',
});

export const AgentRequestAcceptedSchema = extendApi(
  z.object({
    requestId: z.string(),
    status: AgentRequestStatusSchema,
    connectionId: z.string(),
    providerId: ProviderIdSchema,
    createdAt: isoDate('When the request was accepted.'),
  }),
  { title: 'AgentRequestAccepted' },
);

export const AGENT_RUN_METHODS = ['PLAYBOOK', 'REPLAY', 'PLANNER'] as const;

export const TraceStepSchema = extendApi(
  z.object({
    tool: extendApi(z.string(), {
      description: 'What ran: navigate, click, type, extract, relogin, request (blocked) … or a playbook step name.',
    }),
    target: extendApi(z.string().optional(), { description: 'What it acted on, in words ("button \'Post\'").' }),
    url: z.string(),
    durationMs: z.number().int(),
    outcome: z.enum(['ok', 'error', 'blocked']),
    error: z.string().optional(),
    screenshot: extendApi(z.string().optional(), { description: 'JPEG or PNG as base64, only on failed steps.' }),
  }),
  { title: 'TraceStep' },
);

export const ModelUsageSchema = extendApi(
  z.object({ calls: z.number().int(), promptTokens: z.number().int(), completionTokens: z.number().int() }),
  { title: 'ModelUsage', description: 'Model calls and tokens the planner used (null when no model ran).' },
);

export const AgentRequestSchema = extendApi(
  z.object({
    requestId: z.string(),
    status: AgentRequestStatusSchema,
    connectionId: z.string(),
    providerId: ProviderIdSchema,
    environment: EnvironmentSchema,
    action: z.string(),
    startingUrl: z.string(),
    parameters: z.record(z.unknown()),
    responseFormat: z.record(z.unknown()),
    timeoutMs: z.number().int(),
    mode: AgentRunModeSchema,
    approval: extendApi(ApprovalModeSchema.nullable(), { description: 'When writes wait for the end user; null: they do not.' }),
    playbook: extendApi(z.string().nullable(), { description: 'The playbook the request named; null when the action was routed.' }),
    result: z.unknown().nullable(),
    error: AgentRequestErrorSchema.nullable(),
    userAction: extendApi(UserActionSchema.nullable(), { description: 'While NEEDS_USER: what the run waits for; null otherwise.' }),
    warnings: extendApi(z.array(AgentRequestWarningSchema), {
      description: 'What a COMPLETED request could not do fully (empty otherwise).',
    }),
    createdAt: isoDate('When the request was accepted.'),
    startedAt: isoDate('When a worker started it.').nullable(),
    completedAt: isoDate('When it reached a final status.').nullable(),
    executionTimeMs: z.number().int().nullable(),
    method: extendApi(z.enum(AGENT_RUN_METHODS).nullable(), {
      description: 'Which way produced the outcome: PLAYBOOK (a tested routine), REPLAY (a learned trajectory) or PLANNER (the model).',
    }),
    trace: extendApi(z.array(TraceStepSchema), { description: 'The steps of the run, in order.' }),
    modelUsage: ModelUsageSchema.nullable(),
  }),
  { title: 'AgentRequest' },
);
export type AgentRequest = z.infer<typeof AgentRequestSchema>;

export const AGENT_REQUEST_LIST_LIMITS = { default: 20, max: 100 } as const;
export const AGENT_REQUEST_WAIT_MS_MAX = 30_000;

export const ListAgentRequestsQuerySchema = z
  .object({
    status: extendApi(AgentRequestStatusSchema.optional(), { description: 'Only requests with this status.' }),
    limit: extendApi(z.coerce.number().int().min(1).max(AGENT_REQUEST_LIST_LIMITS.max).optional(), {
      description: `Page size (1-${AGENT_REQUEST_LIST_LIMITS.max}, default ${AGENT_REQUEST_LIST_LIMITS.default}).`,
    }),
    cursor: extendApi(z.string().min(1).max(200).optional(), { description: 'nextCursor of the previous page.' }),
  })
  .strict();

export const AgentRequestListSchema = extendApi(
  z.object({
    data: z.array(AgentRequestSchema),
    nextCursor: extendApi(z.string().nullable(), { description: 'Pass as cursor for the next page; null on the last page.' }),
  }),
  { title: 'AgentRequestList' },
);

export const GetAgentRequestQuerySchema = z
  .object({
    waitMs: extendApi(z.coerce.number().int().min(0).max(AGENT_REQUEST_WAIT_MS_MAX).optional(), {
      description: `Hold the answer up to this many ms (0-${AGENT_REQUEST_WAIT_MS_MAX}) until the request reaches a final status or NEEDS_USER, so callers need not poll in a loop.`,
    }),
  })
  .strict();

// ---------- sandbox ----------

export const CreateSandboxPublicTokenBodySchema = extendApi(
  z
    .object({
      providerId: ProviderIdSchema,
      clientUserId: ClientUserIdSchema,
      username: extendApi(z.string().min(1).max(64).optional(), {
        description: 'Sandbox test user to connect as (default user_good).',
      }),
    })
    .strict(),
  { title: 'CreateSandboxPublicTokenRequest' },
);

export const SandboxPublicTokenSchema = z.object({
  publicToken: z.string(),
  expiration: isoDate('When the public token stops being exchangeable.'),
});

export const SandboxResetSchema = z.object({
  reset: z.literal(true),
  providerIds: z.array(ProviderIdSchema),
});
