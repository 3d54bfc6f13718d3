
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks/registry';
import { freePort } from '../support/free-port';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type RemoteChromium, startRemoteChromium } from '../support/remote-chromium';
import { awaitRequest, connectOrbit, createRequest, eventually, type LiveOrg, liveOrg } from './agent-support';

/**
 * The scale-out path: the worker drives a remote Chromium through BROWSER_WS_ENDPOINT (a Chromium with its DevTools
 * port on loopback, at a fixed port as a browser sidecar has), completes agent requests on it, and loses none when
 * that browser is killed mid-run and comes back: runs that had changed nothing run again on the new browser; a run
 * whose page had already sent a change is not repeated and fails with BROWSER_LOST, saying why.
 */
jest.setTimeout(120_000);

let port: number;
let chromium: RemoteChromium | undefined;
let live: LiveServer;
let org: LiveOrg;
let accessToken: string;

/** Requests the hold playbooks are holding (they wait until `released`), by request id. */
const holding = new Set<string>();
let released = false;

const hold = async (ctx: Parameters<Playbook['run']>[0]) => {
  holding.add(ctx.requestId);
  // Waits on the page itself, so a dead browser ends the wait at once.
  while (!released) await ctx.page.waitForTimeout(100);
  holding.delete(ctx.requestId);
  return { heading: (await ctx.page.locator('h1').first().textContent())?.trim() ?? '' };
};
const testPlaybook = (name: string, run: Playbook['run']): Playbook => ({
  providerSlug: 'orbit',
  name,
  description: `test playbook ${name}`,
  writes: false,
  examples: [`test: ${name}`],
  resultFields: { heading: 'string' },
  parameters: z.unknown(),
  run,
});

beforeAll(async () => {
  port = await freePort();
  chromium = await startRemoteChromium(30_000, port);
  live = await startLiveServer({
    worker: true,
    env: {
      BROWSER_WS_ENDPOINT: `http://127.0.0.1:${port}`,
      AGENTLINK_WORKER_CONCURRENCY: '3',
      AGENTLINK_WORKER_POLL_MS: '100',
      AGENTLINK_WORKER_MAX_ATTEMPTS: '2',
    },
  });
  org = await liveOrg(live);
  ({ accessToken } = await connectOrbit(live, org));
  live.services.playbooks.register(testPlaybook('test.hold', hold));
  live.services.playbooks.register(
    testPlaybook('test.post-then-hold', async (ctx) => {
      // A change the page sends (its answer does not matter: it left the browser).
      await ctx.page.evaluate(() => fetch('/api/likes', { method: 'POST', body: '{}' }).catch(() => null));
      return hold(ctx);
    }),
  );
});

afterAll(async () => {
  released = true;
  await live?.close();
  await chromium?.kill();
});

const body = (playbook?: string) => ({
  accessToken,
  action: playbook ? `test: ${playbook}` : 'Read my profile',
  startingUrl: live.siteUrl('orbit', '/feed'),
  responseFormat: playbook ? { heading: 'string' } : { name: 'string - full name', followers: 'integer' },
  ...(playbook ? { playbook } : {}),
});

async function devtoolsPages(): Promise<string[]> {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`);
  return ((await res.json()) as { type: string; url: string }[]).filter((t) => t.type === 'page').map((t) => t.url);
}

it('completes agent requests on the remote browser', async () => {
  const ids = await Promise.all([createRequest(live, org, body()), createRequest(live, org, body())]);
  for (const id of ids) {
    expect(await awaitRequest(live, org, id)).toMatchObject({
      status: 'COMPLETED',
      method: 'PLAYBOOK',
      result: { name: 'Grace Goodwin', followers: expect.any(Number) },
    });
  }
});

it('loses no request when the remote browser dies mid-run: unchanged runs run again on the restarted browser, a run that sent a change fails with BROWSER_LOST', async () => {
  const repo = live.services.store.repos.agentRequests;
  const again1 = await createRequest(live, org, body('test.hold'));
  const again2 = await createRequest(live, org, body('test.hold'));
  const changed = await createRequest(live, org, body('test.post-then-hold'));
  await eventually(
    async () => holding.size,
    (n) => n === 3,
    30_000,
  );
  // The runs' pages are in the remote browser, at the provider.
  expect((await devtoolsPages()).filter((u) => u.startsWith(live.siteUrl('orbit', '/')))).toHaveLength(3);

  await chromium!.kill();
  const killedAt = Date.now();
  // The first retries find no browser at the address: given back uncounted, while the worker backs off.
  await new Promise((r) => setTimeout(r, 500));
  chromium = await startRemoteChromium(30_000, port);
  released = true;

  const [a, b, c] = await Promise.all([again1, again2, changed].map((id) => awaitRequest(live, org, id, 30_000)));
  expect(a).toMatchObject({ status: 'COMPLETED', result: { heading: expect.any(String) } });
  expect(b).toMatchObject({ status: 'COMPLETED', result: { heading: expect.any(String) } });
  expect(c).toMatchObject({
    status: 'FAILED',
    error: { code: 'BROWSER_LOST', message: expect.stringContaining('had already sent 1 request(s) that may have changed something') },
  });
  expect(Date.now() - killedAt).toBeLessThan(40_000);
  // Each re-run was the request's second attempt; the one that was not repeated used one.
  expect((await repo.findById(again1))!.attempts).toBe(2);
  expect((await repo.findById(again2))!.attempts).toBe(2);
  expect((await repo.findById(changed))!.attempts).toBe(1);

  // And the restarted browser serves new requests as the first one did.
  expect(await awaitRequest(live, org, await createRequest(live, org, body()))).toMatchObject({ status: 'COMPLETED' });
});
