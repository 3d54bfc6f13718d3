import type { BrowserContext, Page } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { validateResult } from '../../server/agent/result/validate';
import type { LiveServer } from '../support/live-server';

/**
 * Helpers for the playbook tests: a live AgentLink with its worker, one organization (its own copy of the
 * simulated sites) per test, agent requests over the real API, and signed-in browser contexts to check the
 * effect on the site afterwards (from the server's own browser, so each test file runs one Chromium).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface TestOrg {
  organizationId: string;
  headers: Record<string, string>;
  accessToken: string;
}

export async function api(
  live: LiveServer,
  org: Pick<TestOrg, 'headers'>,
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

/** A fresh organization connected to a sandbox provider as a test user (POST /api/sandbox/public_token/create + exchange). */
export async function connectedOrg(live: LiveServer, providerId: string, name: string, username = 'user_good'): Promise<TestOrg> {
  const c = await live.services.organizations.create(name);
  const headers = { 'x-client-id': c.clientId, 'x-client-secret': c.sandboxSecret, 'content-type': 'application/json' };
  const pt = await api(live, { headers }, 'POST', '/api/sandbox/public_token/create', { providerId, clientUserId: 'user-1', username });
  if (pt.status !== 200) throw new Error(`public token: ${pt.status} ${JSON.stringify(pt.body)}`);
  const ex = await api(live, { headers }, 'POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
  if (ex.status !== 200) throw new Error(`exchange: ${ex.status} ${JSON.stringify(ex.body)}`);
  return { organizationId: c.organization.id, headers, accessToken: ex.body.access_token };
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELED']);

/** POST /api/agent-requests, then GET …?waitMs until the record is final. */
export async function runAction(
  live: LiveServer,
  org: TestOrg,
  body: {
    action: string;
    startingUrl: string;
    responseFormat: Record<string, unknown>;
    parameters?: Record<string, unknown>;
    timeoutMs?: number;
    mode?: 'read' | 'read_write';
  },
): Promise<Json> {
  const created = await api(live, org, 'POST', '/api/agent-requests', { accessToken: org.accessToken, ...body });
  if (created.status !== 202) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.requestId as string;
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await api(live, org, 'GET', `/api/agent-requests/${id}?waitMs=20000`);
    if (res.status !== 200) throw new Error(`get: ${res.status} ${JSON.stringify(res.body)}`);
    if (FINAL.has(res.body.status)) return res.body;
    if (Date.now() > until) throw new Error(`request ${id} is still ${res.body.status}`);
  }
}

/** The record without screenshots, for readable failure output. */
export const readable = (record: Json) => JSON.stringify(record, (k, v) => (k === 'screenshot' ? `<${String(v).length} chars>` : v), 2);

/** Expects a COMPLETED playbook run whose result validates against the responseFormat's schema. */
export function expectPlaybookResult(record: Json, responseFormat: Record<string, unknown>, playbook: string): Json {
  if (record.status !== 'COMPLETED') throw new Error(`expected COMPLETED, got:\n${readable(record)}`);
  expect(record.method).toBe('PLAYBOOK');
  const check = validateResult(compileResponseFormat(responseFormat), record.result);
  expect(check).toEqual({ valid: true });
  const done = record.trace[record.trace.length - 1];
  expect(done).toMatchObject({ tool: 'done', outcome: 'ok', target: `playbook ${playbook} (text match)` });
  // Every step ok: a failing one is shown as it is (screenshots left out).
  expect(record.trace.filter((s: { outcome: string }) => s.outcome !== 'ok').map((s: Json) => ({ ...s, screenshot: undefined }))).toEqual(
    [],
  );
  return record.result;
}

/** A browser context signed in to the organization's copy of a site as `username`, on `path`. */
export async function siteAs(
  live: LiveServer,
  contexts: BrowserContext[],
  organizationId: string,
  slug: 'orbit' | 'forgehub',
  path: string,
  username = 'user_good',
): Promise<Page> {
  const storageState = await live.services.siteSessions.mint({ organizationId, environment: 'sandbox' }, slug, username);
  const context = await live.services.browsers.newContext({ storageState, viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(live.siteUrl(slug, path));
  return page;
}

/** Rendered text, whitespace collapsed. */
export const collapsed = (s: string) => s.replace(/\s+/g, ' ').trim();
