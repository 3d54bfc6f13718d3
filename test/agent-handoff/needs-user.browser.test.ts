import type { BrowserContext, Page } from 'playwright-core';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { hashToken } from '../../server/domain/tokens';
import { api, awaitRequest, connectOrbit, createRequest, eventually, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { clickThroughWidget, FINAL_STATUSES, openRunWidget, requestWhen } from './handoff-support';

/**
 * A run that needs its user, end to end: a real AgentLink with its worker, real Chromium, the Orbit sandbox. Test
 * playbooks ask for the person in the middle of their work (a code box on the run's own page); the test plays the
 * person through the hosted widget (userAction.url), acting only on the widget's streamed canvas. It covers the run
 * resuming on the same page, "I can't do this", expiry, cancel, the worker slot freed while waiting, and the bound.
 */
jest.setTimeout(120_000);

const CODE = '246810';
let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let context: BrowserContext;
const asked = new Map<string, number>();

/** Puts a code box on the run's page and asks the person to fill it; goes on once the page holds the code. */
const askPlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.ask-code',
  description: 'test playbook: asks its user for a code in the middle',
  writes: false,
  examples: ['test: ask for a code'],
  resultFields: { code: 'string', resumedOnSamePage: 'boolean' },
  parameters: z.unknown(),
  run: async (ctx) => {
    await ctx.page.setContent('<main><h1>Confirm it is you</h1><label>Code <input id="code" autocomplete="off"></label></main>');
    await ctx.page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same page'));
    asked.set(ctx.requestId, (asked.get(ctx.requestId) ?? 0) + 1);
    await ctx.needsUser({
      reason: 'CODE',
      message: 'Enter the code Orbit sent to your phone.',
      done: async () => (await ctx.page.inputValue('#code')) === CODE,
    });
    return {
      code: await ctx.page.inputValue('#code'),
      resumedOnSamePage: (await ctx.page.evaluate(() => (window as unknown as { marker?: string }).marker)) === 'same page',
    };
  },
};

const quickPlaybook: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'test.quick',
  description: 'test playbook: answers at once',
  writes: false,
  examples: ['test: answer at once'],
  resultFields: { ok: 'boolean' },
  parameters: z.unknown(),
  run: async () => ({ ok: true }),
};

beforeAll(async () => {
  live = await startLiveServer({
    worker: true,
    env: { AGENTLINK_WORKER_CONCURRENCY: '1', AGENTLINK_MAX_WAITING_RUNS: '2', AGENTLINK_USER_ACTION_TTL_SECONDS: '60' },
  });
  live.services.playbooks.register(askPlaybook);
  live.services.playbooks.register(quickPlaybook);
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
});

beforeEach(async () => {
  context = await live.services.browsers.newContext({ viewport: { width: 480, height: 900 } });
  context.setDefaultTimeout(30_000);
});

afterEach(async () => {
  await context?.close();
});

const ask = (overrides: Record<string, unknown> = {}) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'test: ask for a code',
    playbook: 'test.ask-code',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { code: 'string', resumedOnSamePage: 'boolean' },
    ...overrides,
  });

const untilStatus = (requestId: string, status: string) => requestWhen(live, org, requestId, [status], 30_000);
const awaitFinal = (requestId: string) => requestWhen(live, org, requestId, FINAL_STATUSES, 30_000);
const openWidget = (url: string) => openRunWidget(context, url);
const typeCodeThroughWidget = async (widget: Page, requestId: string, code: string) => {
  await clickThroughWidget(live, widget, requestId, (p) => p.locator('#code'));
  await widget.keyboard.type(code, { delay: 20 });
};

it('pauses NEEDS_USER with a userAction, and resumes on the same page once the person typed the code in the widget', async () => {
  const requestId = await ask();
  // waitMs answers at NEEDS_USER: only the caller can bring the person in.
  const waiting = await awaitRequest(live, org, requestId, 30_000);
  expect(waiting.status).toBe('NEEDS_USER');
  expect(waiting.userAction).toEqual({
    reason: 'CODE',
    message: 'Enter the code Orbit sent to your phone.',
    since: expect.any(String),
    expiresAt: expect.any(String),
    linkToken: expect.stringMatching(/^link-sandbox-/),
    url: expect.stringContaining('/link?token=link-sandbox-'),
    write: null,
  });
  expect(new Date(waiting.userAction.expiresAt).getTime() - new Date(waiting.userAction.since).getTime()).toBe(60_000);
  // The link token is stored hashed and bound to this run; the user action is sealed on the row.
  const token = await live.services.store.repos.linkTokens.findByHash(hashToken(waiting.userAction.linkToken));
  expect(token).toMatchObject({ agentRequestId: requestId, connectionId: conn.connectionId });
  const row = await live.services.store.repos.agentRequests.findById(requestId);
  expect(row!.sealedUserAction).not.toContain(waiting.userAction.linkToken);

  const widget = await openWidget(waiting.userAction.url);
  await expect(widget.locator('#al-task-message').textContent()).resolves.toBe('Enter the code Orbit sent to your phone.');
  await typeCodeThroughWidget(widget, requestId, CODE);
  const done = await awaitFinal(requestId);
  expect(done).toMatchObject({ status: 'COMPLETED', userAction: null, result: { code: CODE, resumedOnSamePage: true } });
  expect(asked.get(requestId)).toBe(1); // nothing ran twice
  const userStep = done.trace.find((s: Json) => s.tool === 'user');
  expect(userStep).toMatchObject({ outcome: 'ok', target: expect.stringContaining('CODE') });
  await widget.getByRole('heading', { name: /Thanks!/ }).waitFor();
});

it('"I can\'t do this" ends the run with USER_ACTION_EXITED; nothing is retried', async () => {
  const requestId = await ask();
  const waiting = await untilStatus(requestId, 'NEEDS_USER');
  const widget = await openWidget(waiting.userAction.url);
  await widget.getByRole('button', { name: 'I can’t do this' }).click();
  const ended = await awaitFinal(requestId);
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXITED' }, userAction: null });
  expect(asked.get(requestId)).toBe(1);
});

it('a canceled waiting run ends CANCELED and its page is released', async () => {
  const requestId = await ask();
  await untilStatus(requestId, 'NEEDS_USER');
  const res = await api(live, org, 'POST', `/api/agent-requests/${requestId}/cancel`);
  expect(res.status).toBe(200);
  const ended = await awaitFinal(requestId);
  expect(ended.status).toBe('CANCELED');
  await eventually(
    async () => live.services.handoffs.registry.find(requestId),
    (r) => r === null,
  );
});

it('a waiting run holds no worker slot: with concurrency 1, another request runs to the end meanwhile', async () => {
  const waitingId = await ask();
  await untilStatus(waitingId, 'NEEDS_USER');
  const otherId = await createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'test: answer at once',
    playbook: 'test.quick',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { ok: 'boolean' },
  });
  expect((await awaitFinal(otherId)).status).toBe('COMPLETED');
  await api(live, org, 'POST', `/api/agent-requests/${waitingId}/cancel`);
  expect((await awaitFinal(waitingId)).status).toBe('CANCELED');
});

it('past AGENTLINK_MAX_WAITING_RUNS, a run that needs its user fails with USER_ACTION_UNAVAILABLE', async () => {
  const first = await ask();
  const second = await ask();
  await untilStatus(first, 'NEEDS_USER');
  await untilStatus(second, 'NEEDS_USER');
  const third = await ask();
  const ended = await awaitFinal(third);
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_UNAVAILABLE' } });
  for (const id of [first, second]) await api(live, org, 'POST', `/api/agent-requests/${id}/cancel`);
  for (const id of [first, second]) expect((await awaitFinal(id)).status).toBe('CANCELED');
});
