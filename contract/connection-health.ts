import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/**
 * Connection health: what a check of a connection's provider session found, and an organization's check schedule.
 * The status model these outcomes drive (ACTIVE ⇄ LOGIN_REQUIRED → REVOKED, and the events of each transition) is
 * written down once, in CONNECTION_STATUS_MODEL below, for the README and the OpenAPI description.
 */

export const CONNECTION_CHECK_OUTCOMES = [
  'SIGNED_IN',
  'RENEWED',
  'LOGIN_REQUIRED',
  'TIMED_OUT',
  'UNREACHABLE',
  'SESSION_UNREADABLE',
] as const;
export type ConnectionCheckOutcome = (typeof CONNECTION_CHECK_OUTCOMES)[number];

export const CONNECTION_CHECK_OUTCOME_DESCRIPTIONS: Record<ConnectionCheckOutcome, string> = {
  SIGNED_IN: 'The stored session is still signed in (its refreshed cookies were sealed back).',
  RENEWED: 'The session had ended; a silent re-login with the stored credentials renewed it (CONNECTION.SESSION_RENEWED).',
  LOGIN_REQUIRED: 'The session ended and could not be renewed: the connection is LOGIN_REQUIRED (CONNECTION.LOGIN_REQUIRED).',
  TIMED_OUT: 'The check did not finish within its time budget; the status is unchanged and the check is tried again sooner.',
  UNREACHABLE: 'The provider or the browser could not be reached; the status is unchanged and the check is tried again sooner.',
  SESSION_UNREADABLE: 'The stored session could not be opened (the encryption key changed); the status is unchanged.',
};

export const ConnectionCheckOutcomeSchema = extendApi(z.enum(CONNECTION_CHECK_OUTCOMES), {
  description: Object.entries(CONNECTION_CHECK_OUTCOME_DESCRIPTIONS)
    .map(([k, v]) => `${k}: ${v}`)
    .join(' '),
});

/** Bounds of the check schedule an organization may set, and of checks asked for through the API. */
export const HEALTH_CHECK_LIMITS = {
  /** 0 turns scheduled checks off; otherwise at least a minute (a check opens a browser) and at most 30 days. */
  intervalSecondsMin: 60,
  intervalSecondsMax: 30 * 24 * 3600,
  /** Per-provider overrides an organization may keep per environment. */
  providerOverridesMax: 50,
  /** A connection checked this recently is not checked again on request (POST …/check answers 429). */
  manualCheckMinGapSeconds: 10,
} as const;

const isoDate = (description: string) => extendApi(z.string(), { format: 'date-time', description });

const IntervalSchema = extendApi(
  z
    .number()
    .int()
    .refine((s) => s === 0 || (s >= HEALTH_CHECK_LIMITS.intervalSecondsMin && s <= HEALTH_CHECK_LIMITS.intervalSecondsMax), {
      message: `must be 0 (off) or between ${HEALTH_CHECK_LIMITS.intervalSecondsMin} and ${HEALTH_CHECK_LIMITS.intervalSecondsMax} seconds`,
    }),
  {
    description: `Seconds between two scheduled checks of a connection (each jittered by ±10%): 0 turns them off, otherwise ${HEALTH_CHECK_LIMITS.intervalSecondsMin}-${HEALTH_CHECK_LIMITS.intervalSecondsMax}.`,
  },
);

const ProviderKeySchema = z.string().uuid();

export const ConnectionSettingsSchema = extendApi(
  z.object({
    healthCheck: z.object({
      intervalSeconds: extendApi(IntervalSchema.nullable(), {
        description: "Your interval for this environment's connections; null: the service's default (defaultIntervalSeconds).",
      }),
      providers: extendApi(z.record(ProviderKeySchema, IntervalSchema), {
        description: 'Per-provider intervals (providerId → seconds) that replace intervalSeconds for that provider’s connections.',
      }),
      defaultIntervalSeconds: extendApi(z.number().int(), {
        description:
          "The service's default (AGENTLINK_HEALTH_CHECK_INTERVAL_SECONDS). 0: the operator turned scheduled checks off on this " +
          'installation; your settings apply once they are on. POST /api/connections/{connectionId}/check works either way.',
      }),
    }),
    signedAgent: extendApi(
      z.object({
        enabled: z.boolean(),
        directoryUrl: extendApi(z.string().url(), { description: 'Where sites find the public keys that verify the signatures.' }),
      }),
      {
        description:
          'Web Bot Auth: when enabled, the agent signs every request to the providers whose declaration sets signedAgent ' +
          '(HTTP Message Signatures with an Ed25519 key of this AgentLink; Signature-Agent names it). Off by default: a ' +
          'signature tells the site the visit is automated, which is what some sites want to know and others refuse.',
      },
    ),
    updatedAt: isoDate('Last change of these settings; null while you never changed them.').nullable(),
  }),
  { title: 'ConnectionSettings' },
);
export type ConnectionSettings = z.infer<typeof ConnectionSettingsSchema>;

export const UpdateConnectionSettingsBodySchema = extendApi(
  z
    .object({
      healthCheck: z
        .object({
          intervalSeconds: extendApi(IntervalSchema.nullable().optional(), { description: 'null goes back to the default.' }),
          providers: extendApi(
            z
              .record(ProviderKeySchema, IntervalSchema.nullable())
              .refine((r) => Object.keys(r).length <= HEALTH_CHECK_LIMITS.providerOverridesMax, {
                message: `at most ${HEALTH_CHECK_LIMITS.providerOverridesMax} providers`,
              })
              .optional(),
            { description: 'Merged into the stored overrides: a number sets one, null removes it.' },
          ),
        })
        .strict()
        .refine((h) => h.intervalSeconds !== undefined || h.providers !== undefined, {
          message: 'give intervalSeconds or providers',
        })
        .optional(),
      signedAgent: extendApi(z.object({ enabled: z.boolean() }).strict().optional(), {
        description: 'Turns signed agent requests (Web Bot Auth) on or off for this environment.',
      }),
    })
    .strict()
    .refine((b) => b.healthCheck !== undefined || b.signedAgent !== undefined, { message: 'give healthCheck or signedAgent' }),
  {
    title: 'UpdateConnectionSettingsRequest',
    example: { healthCheck: { intervalSeconds: 7200, providers: { '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11': 1800 } } },
  },
);
export type UpdateConnectionSettingsBody = z.infer<typeof UpdateConnectionSettingsBodySchema>;

/**
 * The connection status model, as prose for the README and the OpenAPI description: every state, every transition,
 * and the webhook event each one fires. Kept here so that the two cannot disagree.
 */
export const CONNECTION_STATUS_MODEL = [
  '| from | to | when | event |',
  '|---|---|---|---|',
  '| – | `ACTIVE` | the connect widget (or the sandbox shortcut) signed the end user in | `CONNECTION.CREATED` |',
  "| `ACTIVE` | `ACTIVE` | a health check or an agent run found the session ended and renewed it by a silent re-login (the connection's passkey, or stored credentials) | `CONNECTION.SESSION_RENEWED` |",
  '| `ACTIVE` | `LOGIN_REQUIRED` | a health check or an agent run found the session ended and could not renew it | `CONNECTION.LOGIN_REQUIRED` |',
  '| `LOGIN_REQUIRED` | `ACTIVE` | update mode: the end user signed in again through the widget (link token with connectionId) | `CONNECTION.RECOVERED` |',
  '| `LOGIN_REQUIRED` | `ACTIVE` | a check asked for with POST …/check found the session signed in, or renewed it | `CONNECTION.RECOVERED` (after `CONNECTION.SESSION_RENEWED` when renewed) |',
  '| `ACTIVE`, `LOGIN_REQUIRED` | `REVOKED` | DELETE /api/connections/{connectionId} (final: the session and credentials are deleted) | `CONNECTION.REVOKED` |',
].join('\n');
