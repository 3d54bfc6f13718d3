import { Writable } from 'node:stream';

import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { createLogger } from '../../server/logger';
import { api, connectOrbit, createRequest, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { LiveClient, requestWhen } from '../agent-handoff/handoff-support';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * What the attacks on a paused run's widget share (user-action*.security.test.ts): a real AgentLink with its worker
 * (its log captured), a victim and an attacker organization each with an Orbit connection, and a test playbook that
 * puts a code box (and a note field) on the run's own page and asks the person. `useUserActionServer()` starts it for
 * the calling file; the bindings below are set once its beforeAll ran.
 */
export const CODE = '135790';
export const CODE2 = '864200';

export let live: LiveServer;
export let victim: LiveOrg;
export let victimConn: { accessToken: string; connectionId: string };
export let attacker: LiveOrg;
export let attackerConn: { accessToken: string; connectionId: string };
export const logLines: string[] = [];
const sockets: LiveClient[] = [];
/** Runs held in their working phase (between the asks) until the test lets them go on. */
export const holds = new Map<string, () => void>();

const askPlaybook: Playbook<{ hold?: boolean; twice?: boolean }> = {
  providerSlug: 'orbit',
  name: 'test.security-ask',
  description: 'test playbook: asks its user for a code, works on, and may ask again',
  writes: false,
  examples: ['test: security ask'],
  resultFields: { code: 'string', note: 'string', code2: 'string' },
  parameters: z.object({ hold: z.boolean().optional(), twice: z.boolean().optional() }),
  run: async (ctx) => {
    await ctx.page.setContent(
      '<main><h1>Confirm it is you</h1><p><label>Code <input id="code" autocomplete="off"></label></p>' +
        '<p><label>Note <input id="note" autocomplete="off"></label></p>' +
        '<p><label>Second code <input id="code2" autocomplete="off"></label></p></main>',
    );
    await ctx.needsUser({
      reason: 'CODE',
      message: 'Enter the code Orbit sent to your phone.',
      done: async () => (await ctx.page.inputValue('#code')) === CODE,
    });
    if (ctx.params.hold) {
      // Working: the run holds its page here until the test lets it go on (at most 60 s).
      await new Promise<void>((resolve) => {
        holds.set(ctx.requestId, resolve);
        setTimeout(resolve, 60_000).unref();
      });
    }
    if (ctx.params.twice) {
      await ctx.needsUser({
        reason: 'CODE',
        message: 'Enter the second code.',
        done: async () => (await ctx.page.inputValue('#code2')) === CODE2,
      });
    }
    return {
      code: await ctx.page.inputValue('#code'),
      note: await ctx.page.inputValue('#note'),
      code2: await ctx.page.inputValue('#code2'),
    };
  },
};

/** Starts the server for the calling test file, registers the test playbook and the two organizations; closes it after. */
export function useUserActionServer(): void {
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    live = await startLiveServer({
      worker: true,
      logger: createLogger('debug', sink),
      env: { AGENTLINK_WORKER_CONCURRENCY: '2', AGENTLINK_MAX_WAITING_RUNS: '6', AGENTLINK_USER_ACTION_TTL_SECONDS: '120' },
    });
    live.services.playbooks.register(askPlaybook);
    victim = await liveOrg(live, 'Victim Org');
    victimConn = await connectOrbit(live, victim, 'victim-user');
    attacker = await liveOrg(live, 'Attacker Org');
    attackerConn = await connectOrbit(live, attacker, 'attacker-user');
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
    for (const release of holds.values()) release();
    holds.clear();
  });

  afterAll(async () => {
    await live?.close();
  });
}

export interface Paused {
  requestId: string;
  linkToken: string;
  url: string;
  record: Json;
}

/** Starts a run of the test playbook for `org` and waits until it pauses for its user. */
export async function pausedRun(
  org: LiveOrg = victim,
  conn = victimConn,
  params: { hold?: boolean; twice?: boolean } = {},
): Promise<Paused> {
  const requestId = await createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'test: security ask',
    playbook: 'test.security-ask',
    parameters: params,
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { code: 'string', note: 'string', code2: 'string' },
  });
  const record = await requestWhen(live, org, requestId, ['NEEDS_USER']);
  return { requestId, linkToken: record.userAction.linkToken, url: record.userAction.url, record };
}

export async function cancel(org: LiveOrg, requestId: string): Promise<Json> {
  await api(live, org, 'POST', `/api/agent-requests/${requestId}/cancel`);
  return requestWhen(live, org, requestId, ['CANCELED', 'FAILED', 'COMPLETED']);
}

export function socket(linkSessionId: string, origin?: string): LiveClient {
  const s = new LiveClient(live, linkSessionId, origin);
  sockets.push(s);
  return s;
}

/** The ask the run waits on now (null while it works or once it ended). */
export const currentAsk = (requestId: string) => live.services.handoffs.registry.find(requestId)?.current ?? null;

/**
 * A socket refused after its hello: closed with LIVE_UNAUTHORIZED (4401), never a frame of the page. `over`: the token
 * is the run's own, its ask over: the widget is told only that the run works on (so it ends its part), nothing else.
 */
export async function expectRefusedView(s: LiveClient, opts: { over?: boolean } = {}): Promise<void> {
  const closed = await Promise.race([
    s.closed,
    new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000).unref()),
  ]);
  expect(closed).toEqual({ code: 4401, reason: 'LIVE_UNAUTHORIZED' });
  expect(s.frames).toBe(0);
  const states = s.messages.filter((m) => m.type === 'run');
  expect(states).toEqual(opts.over ? [{ type: 'run', state: 'working', ask: null }] : []);
  expect(s.messages.filter((m) => m.type === 'viewport')).toEqual([]);
}
