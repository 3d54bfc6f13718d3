import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { EnvironmentSchema, LIMITS, ProviderIdSchema } from './common-schemas';
import { PLAYBOOK_NAME_PATTERN } from './provider-schemas';
import { checkResponseFormat, RESPONSE_FORMAT_LIMITS } from './response-format';
import { isoDate } from './schema-helpers';

// Agent requests: the body that asks for an action, the run as it is read back, its trace, and the person in the loop.

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
    id: extendApi(z.string(), {
      description:
        'This held write, and no other: pass it as writeId when deciding from the app, so a decision made on what your user ' +
        'saw never applies to a later write the page held instead.',
    }),
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
    'writes is chosen. `read_write` (default): the run may change things on the provider. A trajectory learned from an ' +
    'earlier run (method REPLAY) replays only for requests of the mode it was learned in.',
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
    attempts: extendApi(z.number().int(), {
      description:
        'How many times a worker started it: 1 normally; more when a worker died (its lease expired) or gave it back before ' +
        'anything was changed. The trace begins with one `attempt` step per attempt, naming the worker that ran it.',
    }),
    trace: extendApi(z.array(TraceStepSchema), {
      description: 'The steps of the run, in order: one `attempt` step per attempt (which worker ran it), then what the run did.',
    }),
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
