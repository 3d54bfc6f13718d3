import { generateOpenApi } from '@ts-rest/open-api';

import { contract, type RouteMetadata } from '../contract';
import { AGENT_RUN_ERRORS, ERROR_CATALOGUE } from '../contract/error-codes';

/** The committed openapi.json is generated with this server URL; the running server substitutes its own. */
export const DEFAULT_SERVER_URL = 'http://localhost:4000';

const errorTable = [
  '| code | HTTP | type | meaning |',
  '|---|---|---|---|',
  ...Object.entries(ERROR_CATALOGUE).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.type} | ${e.description} |`),
].join('\n');

const runErrorTable = [
  '| error.code | meaning |',
  '|---|---|',
  ...Object.entries(AGENT_RUN_ERRORS).map(([code, description]) => `| \`${code}\` | ${description} |`),
].join('\n');

const description = `
AgentLink links an end user's account at a provider to your organization (link token → connect widget →
public token → access token) and runs browser agent actions on that account.

**Authentication.** Every \`/api\` call sends your Client ID in \`x-client-id\` and a Client Secret in
\`x-client-secret\`. Each organization has two secrets; the one you send decides the environment
(\`sandbox\` or \`production\`) of everything the call creates or reads. Tokens of one environment or
organization are never accepted by another.

**Errors.** Every error is \`{ "error": { "type", "code", "message", "requestId", "details"? } }\` and every
response carries \`x-request-id\`. Bodies are JSON, at most 256 KiB.

**Rate limits.** Each organization has a token bucket per environment (by default a burst of 200, refilled at
100 per second). Responses carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; over the
limit the answer is 429 \`RATE_LIMITED\` with \`Retry-After\` in seconds.

**Idempotency.** Every POST accepts an \`Idempotency-Key\` header; see the parameter of each POST operation.

${errorTable}

**Agent runs.** An accepted request is queued and run by a worker: \`PENDING\` → \`RUNNING\` → \`COMPLETED\`,
or \`FAILED\` / \`TIMED_OUT\` / \`CANCELED\` with \`error.code\` in the stored record:

${runErrorTable}
`.trim();

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description:
    'Makes a retry safe: for 24 hours the same key with the same request answers the first response again (Idempotent-Replayed: true); ' +
    'with another request it is 409 IDEMPOTENCY_KEY_REUSED. 1-255 printable ASCII characters, scoped to your organization and environment.',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255 },
};

export function buildOpenApiDocument(opts: { serverUrl?: string } = {}) {
  const doc = generateOpenApi(
    contract,
    {
      info: { title: 'AgentLink API', version: '0.1.0', description },
      servers: [{ url: opts.serverUrl ?? DEFAULT_SERVER_URL }],
      components: {
        securitySchemes: {
          clientId: { type: 'apiKey', in: 'header', name: 'x-client-id', description: 'Your Client ID.' },
          clientSecret: { type: 'apiKey', in: 'header', name: 'x-client-secret', description: 'The sandbox or production Client Secret.' },
        },
      },
    },
    {
      setOperationId: true,
      operationMapper: (operation, appRoute) => {
        const meta = appRoute.metadata as RouteMetadata | undefined;
        if (meta?.auth !== 'client') return operation;
        const withAuth = { ...operation, security: [{ clientId: [], clientSecret: [] }] };
        // Idempotency-Key is read by middleware (server/http/idempotency.ts), not declared in the contract, so the typed client stays as it is.
        return appRoute.method === 'POST'
          ? { ...withAuth, parameters: [...(operation.parameters ?? []), IDEMPOTENCY_KEY_PARAMETER] }
          : withAuth;
      },
    },
  );
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}
