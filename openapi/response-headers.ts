/**
 * The response headers the HTTP layer sets (server/http/): declared once as components and referenced from every
 * response that can carry them.
 */
export const RESPONSE_HEADERS = {
  'x-request-id': {
    description: 'The id of this request (also in every error envelope as error.requestId); quote it when asking for support.',
    required: true,
    schema: { type: 'string', pattern: '^req_[0-9a-f]{24}$' },
    example: 'req_5f2c0f3a9d0e4b7c1a2b3c4d',
  },
  'RateLimit-Limit': {
    description:
      "The burst size of the caller's token bucket (IETF RateLimit header fields draft). Sent once the credentials are " +
      'authenticated, when rate limiting is on.',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    example: 200,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the bucket right now.',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    example: 199,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the bucket is full again.',
    required: false,
    schema: { type: 'integer', minimum: 0 },
    example: 1,
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again (RATE_LIMITED, AUTHENTICATION_THROTTLED).',
    required: true,
    schema: { type: 'integer', minimum: 0 },
    example: 1,
  },
  'Idempotent-Replayed': {
    description: 'Present (true) when this is the stored answer of an earlier request with the same Idempotency-Key.',
    required: false,
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;

/** Component names (no hyphens, so they read well in generated code). */
const componentName = (name: HeaderName) => name.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()).replace(/-/g, '');

export function headerComponents(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(RESPONSE_HEADERS).map(([name, { example, ...header }]) => [
      componentName(name as HeaderName),
      { ...header, schema: { ...header.schema, examples: [example] } },
    ]),
  );
}

/**
 * The headers one response carries. `authenticated`: the route needs client credentials (RateLimit-* follow the
 * credential check, so a 401 never has them); `idempotent`: a POST, whose stored answers (below 500) can be replayed.
 */
export function responseHeaders(status: number, opts: { authenticated: boolean; idempotent: boolean }): Record<string, unknown> {
  const names: HeaderName[] = ['x-request-id'];
  if (opts.authenticated && status !== 401) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  if (status === 429) names.push('Retry-After');
  // Replays are stored answers of requests that got past auth, the rate limit and the body reader: never 401, 413, 415, 429 or 5xx.
  if (opts.idempotent && status < 500 && ![401, 413, 415, 429].includes(status)) names.push('Idempotent-Replayed');
  return Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${componentName(n)}` }]));
}
