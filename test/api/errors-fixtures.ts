import type { ErrorCode } from '../../contract/error-codes';
import type { TestApp } from '../support/app';
import { contractRoutes } from '../support/contract-routes';
import { post, sandboxHeaders, type TestOrg } from '../support/helpers';
import type { errorEnvelope } from './errors-support';

/**
 * What errors.api.test.ts sends and expects: the error codes of the service core it must see, bad credentials,
 * bodies of a media type, encoding or property name the API refuses, garbage for every route of the contract, and
 * requests to POST /api/link-token with headers of one's own.
 */

/** Every error code the service core can answer with (INTERNAL_ERROR is never expected). */
export const CORE_CODES: ErrorCode[] = [
  'INVALID_FIELD',
  'MALFORMED_JSON',
  'FORBIDDEN_PROPERTY_NAME',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'ROUTE_NOT_FOUND',
  'MISSING_CLIENT_CREDENTIALS',
  'INVALID_CLIENT_CREDENTIALS',
  'UNKNOWN_PROVIDER',
  'SANDBOX_ONLY',
  'UNKNOWN_TEST_USER',
  'SANDBOX_LOGIN_FAILED',
  'PUBLIC_TOKEN_MALFORMED',
  'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH',
  'INVALID_PUBLIC_TOKEN',
  'PUBLIC_TOKEN_ORGANIZATION_MISMATCH',
  'PUBLIC_TOKEN_EXPIRED',
  'PUBLIC_TOKEN_ALREADY_USED',
  'INVALID_ACCESS_TOKEN',
  'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
  'CONNECTION_NOT_FOUND',
  'CONNECTION_REVOKED',
  'CONNECTION_LOGIN_REQUIRED',
  'STARTING_URL_NOT_ALLOWED',
  'AGENT_REQUEST_NOT_FOUND',
];

/** Client credentials that are not the organization's, each wrong in its own way. */
export const badCredentials = (org: TestOrg) => ({
  wrongSecret: { 'x-client-id': org.clientId, 'x-client-secret': `sk_sandbox_${'a'.repeat(43)}` },
  unknownId: { 'x-client-id': 'cli_000000000000000000000000', 'x-client-secret': org.sandboxSecret },
  otherEnvSecret: { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret.replace('sk_sandbox_', 'sk_production_') },
  malformed: { 'x-client-id': org.clientId, 'x-client-secret': 'hunter2' },
  longId: { 'x-client-id': 'c'.repeat(500), 'x-client-secret': 's'.repeat(5000) },
});

/** POST /api/link-token for a user 'u' with these headers (the credentials, or not). */
export const linkTokenAs = (t: TestApp, headers: Record<string, string>) => post(t, '/api/link-token', headers, { clientUserId: 'u' });

/** A raw POST /api/link-token as the organization (sandbox credentials) with this Content-Type and other headers. */
export const rawLinkToken = (
  raw: ReturnType<typeof errorEnvelope>['raw'],
  org: TestOrg,
  contentType = 'application/json',
  headers: Record<string, string> = {},
) => raw('post', '/api/link-token', { ...sandboxHeaders(org), 'content-type': contentType, ...headers });

/** Bodies of a media type other than JSON: [Content-Type, body]. */
export const NOT_JSON: [string, string][] = [
  ['text/plain', '{"clientUserId":"u"}'],
  ['application/x-www-form-urlencoded', 'clientUserId=u'],
  ['multipart/form-data; boundary=x', '--x--'],
  ['application/xml', '<a/>'],
];

/** __proto__ and constructor.prototype at the top of a link token's body, and deep inside an agent request's (`base`). */
export const pollutingBodies = (base: string) => [
  '{"clientUserId":"u","__proto__":{"admin":true}}',
  '{"clientUserId":"u","constructor":{"prototype":{"admin":true}}}',
  base.replace('"parameters":{', '"parameters":{"__proto__":{"admin":true},'),
  base.replace('"parameters":{', '"parameters":{"deep":{"list":[{"__proto__":{"x":1}}]},'),
  base.replace('"parameters":{', '"parameters":{"constructor":{"prototype":{"polluted":true}},'),
  base.replace('"parameters":{', '"parameters":{"a":{"b":{"constructor":{"prototype":{}}}},'),
  base.replace('"responseFormat":{', '"responseFormat":{"__proto__":"string",'),
];

/** JSON bodies of every wrong shape for any endpoint. */
export const GARBAGE_BODIES: unknown[] = [
  null,
  [],
  'x',
  {},
  { a: { b: [1, null, { c: 'd' }] }, clientUserId: {}, publicToken: [], accessToken: 1 },
];

/** Every route of the contract (new ones included) as [method, path], with odd path parameters. */
export function garbageRoutes() {
  const params = ['%20', 'z'.repeat(80), '..%2F..%2Fetc', 'conn_x'];
  return contractRoutes().flatMap((r) =>
    r.path.includes(':')
      ? params.map((p) => [r.method.toLowerCase(), r.path.replace(/:[A-Za-z]+/g, p)] as const)
      : [[r.method.toLowerCase(), r.path] as const],
  );
}
