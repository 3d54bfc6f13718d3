import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import type { LiveServer } from '../support/live-server';

/** Small HTTP helpers for tests that drive a live AgentLink (real server, real worker, real Chromium). */
export interface LiveOrg {
  organizationId: string;
  headers: Record<string, string>;
}

export async function liveOrg(live: LiveServer, name = 'Agent Test Org'): Promise<LiveOrg> {
  const c = await live.services.organizations.create(name);
  return {
    organizationId: c.organization.id,
    headers: { 'x-client-id': c.clientId, 'x-client-secret': c.sandboxSecret, 'content-type': 'application/json' },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function api(
  live: LiveServer,
  org: LiveOrg,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${live.baseUrl}${path}`, {
    method,
    headers: org.headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** A sandbox connection made with POST /api/sandbox/public_token/create (a real, minted site session). */
export async function connectOrbit(
  live: LiveServer,
  org: LiveOrg,
  clientUserId = 'user-1',
): Promise<{ accessToken: string; connectionId: string }> {
  const pt = await api(live, org, 'POST', '/api/sandbox/public_token/create', { providerId: ORBIT_PROVIDER_ID, clientUserId });
  if (pt.status !== 200) throw new Error(`public token: ${pt.status} ${JSON.stringify(pt.body)}`);
  const ex = await api(live, org, 'POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
  if (ex.status !== 200) throw new Error(`exchange: ${ex.status} ${JSON.stringify(ex.body)}`);
  return { accessToken: ex.body.access_token, connectionId: ex.body.connectionId };
}

export async function createRequest(live: LiveServer, org: LiveOrg, body: Record<string, unknown>): Promise<string> {
  const res = await api(live, org, 'POST', '/api/agent-requests', body);
  if (res.status !== 202) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.requestId as string;
}

/** GET with waitMs: the record once it is final (or as it is after `waitMs`). */
export async function awaitRequest(live: LiveServer, org: LiveOrg, requestId: string, waitMs?: number): Promise<Json> {
  // Without a bound of the caller's: asked again past the API's 30 s wait while still queued or running (up to two
  // minutes), as a client waits for a run; a loaded machine's run can take longer than one wait.
  for (const until = Date.now() + 120_000; ;) {
    const res = await api(live, org, 'GET', `/api/agent-requests/${requestId}?waitMs=${waitMs ?? 30_000}`);
    if (res.status !== 200) throw new Error(`get: ${res.status} ${JSON.stringify(res.body)}`);
    if (waitMs !== undefined || !['PENDING', 'RUNNING'].includes(res.body.status) || Date.now() > until) return res.body;
  }
}

/** Polls until `check` passes (or throws after `timeoutMs`). */
export async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (check(v)) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Strips screenshots (long base64) so records print and compare readably. */
export function withoutScreenshots<T>(record: T): T {
  return JSON.parse(JSON.stringify(record, (k, v) => (k === 'screenshot' ? `<${String(v).length} chars>` : v)));
}

/** A test-only Orbit playbook: `example` routes to it (or name it with `playbook`), its result is `{ ok: boolean }`. */
export function testPlaybook(name: string, example: string, run: Playbook<unknown>['run']): Playbook<unknown> {
  return {
    providerSlug: 'orbit',
    name,
    description: `test playbook ${name}`,
    writes: false,
    examples: [example],
    resultFields: { ok: 'boolean' },
    parameters: z.unknown(),
    run,
  };
}
