import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

// What every area of the contract shares: the bounds enforced at the edge, environments, the error envelope, ids.

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

export const ProviderIdSchema = extendApi(z.string().uuid(), {
  description: 'Provider identifier (UUID) from GET /api/providers.',
  example: '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11',
});

export const ClientUserIdSchema = extendApi(z.string().min(1).max(LIMITS.clientUserIdMax), {
  description: 'Your own identifier for the end user (1-256 characters). Opaque to AgentLink.',
  example: 'user-42',
});
