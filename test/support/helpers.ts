import request, { type Response } from 'supertest';

import { ERROR_CATALOGUE, type ErrorCode } from '../../contract/error-codes';
import type { Environment } from '../../server/config';
import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { githubProvider } from '../../server/integrations/github/github.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { TestApp } from './app';

export { FORGEHUB_PROVIDER_ID, ORBIT_PROVIDER_ID };
export const GITHUB_PROVIDER_ID = githubProvider.providerId;

export const REQUEST_ID_PATTERN = /^req_[0-9a-f]{24}$/;

export interface TestOrg {
  organizationId: string;
  name: string;
  clientId: string;
  sandboxSecret: string;
  productionSecret: string;
}

let orgCounter = 0;

/** Creates an organization through the service (as the CLI does) and returns its one-time credentials. */
export async function createOrg(t: TestApp, name = `Org ${++orgCounter}`): Promise<TestOrg> {
  const c = await t.services.organizations.create(name);
  return {
    organizationId: c.organization.id,
    name,
    clientId: c.clientId,
    sandboxSecret: c.sandboxSecret,
    productionSecret: c.productionSecret,
  };
}

export type Headers = Record<string, string>;

export function credentials(org: TestOrg, env: Environment = 'sandbox'): Headers {
  return { 'x-client-id': org.clientId, 'x-client-secret': env === 'sandbox' ? org.sandboxSecret : org.productionSecret };
}
export const sandboxHeaders = (org: TestOrg) => credentials(org, 'sandbox');
export const productionHeaders = (org: TestOrg) => credentials(org, 'production');

export function get(t: TestApp, path: string, headers: Headers = {}) {
  return request(t.server).get(path).set(headers);
}
export function post(t: TestApp, path: string, headers: Headers, body?: unknown) {
  const req = request(t.server).post(path).set(headers);
  return body === undefined ? req : req.send(body as object);
}
export function patch(t: TestApp, path: string, headers: Headers, body?: unknown) {
  const req = request(t.server).patch(path).set(headers);
  return body === undefined ? req : req.send(body as object);
}
export function del(t: TestApp, path: string, headers: Headers = {}) {
  return request(t.server).delete(path).set(headers);
}

export interface ExpectedError {
  /** Exact message, or a pattern it must match. */
  message?: string | RegExp;
  /** Exact details (or an asymmetric matcher); when omitted, the envelope must have no details. */
  details?: unknown;
}

/**
 * Asserts the whole error envelope: status and type from the catalogue, the code, a message, a requestId
 * equal to the x-request-id header, and nothing else.
 */
export function expectError(res: Response, code: ErrorCode, expected: ExpectedError = {}) {
  const entry = ERROR_CATALOGUE[code];
  const requestId = res.headers['x-request-id'];
  if (res.status !== entry.status || res.body?.error?.code !== code) {
    throw new Error(`expected ${entry.status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(requestId).toMatch(REQUEST_ID_PATTERN);
  const message =
    expected.message === undefined
      ? expect.stringMatching(/\S/)
      : typeof expected.message === 'string'
        ? expected.message
        : expect.stringMatching(expected.message);
  expect(res.body).toStrictEqual({
    error: {
      type: entry.type,
      code,
      message,
      requestId,
      ...('details' in expected ? { details: expected.details } : {}),
    },
  });
  return res.body.error as { type: string; code: string; message: string; requestId: string; details?: unknown };
}

/** The error body without its requestId, to compare two errors that must look the same. */
export function withoutRequestId(body: { error: Record<string, unknown> }) {
  const { requestId: _ignored, ...rest } = body.error;
  return rest;
}

/** Internal fields that must never leave in an API response (presenters whitelist fields). */
const INTERNAL_KEYS = [
  'organizationId',
  'tokenHash',
  'sealedSession',
  'sealedCredentials',
  'sealedExitProxy',
  'leaseOwner',
  'leaseExpiresAt',
  'attemptLog',
  'id',
];

export function expectNoInternals(body: Record<string, unknown>) {
  expect(Object.keys(body).filter((k) => INTERNAL_KEYS.includes(k))).toEqual([]);
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/scrypt\$|"v1\.[A-Za-z0-9_-]+\./);
}

// ---------- flows ----------

export function orbitUrl(t: TestApp, path = '/'): string {
  return new URL(path, t.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!.homeUrl).toString();
}

export async function sandboxPublicToken(
  t: TestApp,
  org: TestOrg,
  opts: { providerId?: string; clientUserId?: string; username?: string } = {},
): Promise<string> {
  const res = await post(t, '/api/sandbox/public_token/create', sandboxHeaders(org), {
    providerId: opts.providerId ?? ORBIT_PROVIDER_ID,
    clientUserId: opts.clientUserId ?? 'user-1',
    ...(opts.username ? { username: opts.username } : {}),
  });
  if (res.status !== 200) throw new Error(`sandbox public token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.publicToken as string;
}

export async function exchange(t: TestApp, headers: Headers, publicToken: string) {
  return post(t, '/api/connections/public_token/exchange', headers, { publicToken });
}

export interface Connected {
  publicToken: string;
  accessToken: string;
  connectionId: string;
  providerId: string;
}

/** Sandbox shortcut + exchange: an ACTIVE sandbox connection and its access token. */
export async function connectSandbox(
  t: TestApp,
  org: TestOrg,
  opts: { providerId?: string; clientUserId?: string } = {},
): Promise<Connected> {
  const publicToken = await sandboxPublicToken(t, org, opts);
  const res = await exchange(t, sandboxHeaders(org), publicToken);
  if (res.status !== 200) throw new Error(`exchange: ${res.status} ${JSON.stringify(res.body)}`);
  return { publicToken, accessToken: res.body.access_token, connectionId: res.body.connectionId, providerId: res.body.providerId };
}

/**
 * A production connection. Production connections come from the connect widget (not part of the core);
 * the test creates one through the connection service, then exchanges its public token over HTTP.
 */
export async function connectProduction(t: TestApp, org: TestOrg, opts: { clientUserId?: string } = {}): Promise<Connected> {
  const created = await t.services.connections.create(
    { organizationId: org.organizationId, environment: 'production' },
    { providerId: GITHUB_PROVIDER_ID, clientUserId: opts.clientUserId ?? 'prod-user-1', session: { cookies: [], origins: [] } },
  );
  const res = await exchange(t, productionHeaders(org), created.publicToken);
  if (res.status !== 200) throw new Error(`exchange: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    publicToken: created.publicToken,
    accessToken: res.body.access_token,
    connectionId: res.body.connectionId,
    providerId: GITHUB_PROVIDER_ID,
  };
}

export function agentRequestBody(t: TestApp, accessToken: string, overrides: Record<string, unknown> = {}) {
  return {
    accessToken,
    action: 'Read my profile and my latest posts',
    startingUrl: orbitUrl(t, '/me'),
    parameters: { limit: 5, filters: { visibility: 'public', tags: ['a', 'b'] } },
    responseFormat: {
      name: 'string - Full name',
      followers: 'number - Follower count',
      posts: [{ title: 'string - Title', postedAt: 'datetime? - When it was posted' }],
    },
    ...overrides,
  };
}

export function productionAgentRequestBody(accessToken: string, overrides: Record<string, unknown> = {}) {
  return {
    accessToken,
    action: 'Read my profile',
    startingUrl: 'https://github.com/settings/profile',
    parameters: {},
    responseFormat: { login: 'string - Login name' },
    ...overrides,
  };
}
