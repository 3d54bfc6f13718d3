import { randomUUID } from 'node:crypto';
import type net from 'node:net';

import type { BrowserContext, BrowserContextOptions } from 'playwright-core';

import type { TraceStep } from '../../server/agent/run/context';
import { ContextWiring } from '../../server/agent/run/context-wiring';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { type BlockedRequest, changeGate, fromProxy, judgeUnfinishedMessages } from '../../server/agent/run/network-guard';
import { plannerStrategy, trajectoryKeyOf } from '../../server/agent/strategies';
import { WarmContexts } from '../../server/agent/worker/warm-contexts';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type ContextSource, type FenceOptions, openFencedContext } from '../../server/egress/fenced-context';
import { maskedFrame } from '../../server/egress/websocket-frames';
import type { ScriptReply } from '../support/scripted-model-server';
import { openProxiedSocket, type SocketSite, startSocketSite } from '../support/socket-site';
import { newOrg, recordVerdict, storedTrajectory, strategyDeps, useAttackRig } from './planner-attack-support';
import { siteRun } from './site-run-support';

/**
 * A run whose page begins a WebSocket message and keeps the socket open without finishing it, attacked end to end:
 * real Chromium in a context fenced as the worker fences it (run-session.ts: the egress proxy with read mode's gate,
 * the page's view of its refusals, the run's integrity judging each refusal, and judged only once the fence reported what its sockets
 * left unfinished), the real planner with the scripted model, and the real trajectory store. The unfinished message
 * is written below the browser, on a socket of the context's own egress proxy (Chromium's WebSocket API writes whole
 * frames); from the proxy's side it is the page's socket. Its tail, which would carry the run's parameter, never comes
 * while the run lasts: the socket closes only with the context, after the run was recorded. So the run must be judged
 * with the message reported unreadable, tainted, and never recorded for replay.
 */
jest.setTimeout(60_000);

const rig = useAttackRig();

const received: string[] = [];
let site: SocketSite;
let host = '';

const PAGE = `<!doctype html><html><head><title>Notes</title></head><body><main><h1>Welcome, Grace Goodwin</h1></main>
  <script>const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/comms');
  ws.onopen = () => ws.send(JSON.stringify({ subscribe: 'notification/#' }));</script></body></html>`;

beforeAll(async () => {
  site = await startSocketSite({ received, handler: (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE) });
  host = `wsapp.localhost:${site.port}`;
});

afterAll(async () => {
  await site?.close();
});

const READ = {
  action: 'Which name does the notes page greet me with?',
  responseFormat: { name: 'string - the full name shown for the signed-in member' },
};
const done: ScriptReply = { tool: 'done', args: { success: true, data: { name: 'Grace Goodwin' } } };

/** A context fenced by `fence`, and the port its egress proxy listens on (told by the browser's source, as the worker's). */
async function readContext(fence: FenceOptions): Promise<{ context: BrowserContext; proxyPort: number }> {
  let proxyServer = '';
  const source: ContextSource = {
    newContext: (options?: BrowserContextOptions) => {
      proxyServer = options?.proxy?.server ?? '';
      return rig.browser.newContext(options);
    },
  };
  const context = await openFencedContext(source, fence);
  return { context, proxyPort: Number(new URL(proxyServer).port) };
}

/**
 * A read-mode planner run on the site whose parameter is `note`; `duringRun` runs once its page has loaded, before the
 * planner starts, with the port of the context's own egress proxy, and gives back the socket it opened there.
 */
async function readRun(duringRun: (proxyPort: number, note: string) => Promise<net.Socket>) {
  const note = `private-note-${randomUUID().slice(0, 8)}`;
  const organizationId = await newOrg(rig.server);
  const action = `${READ.action} (${randomUUID().slice(0, 8)})`;
  /** Whether the page's socket was still open when the run was judged for replay. */
  let openWhenJudged: boolean | null = null;
  let socket: net.Socket | undefined;
  const onStep = (s: TraceStep) => {
    if (s.tool === 'record-trajectory') openWhenJudged = !!socket && !socket.destroyed;
  };
  const o = { origin: `http://${host}`, mode: 'read' as const, organizationId, action, responseFormat: READ.responseFormat };
  return siteRun(rig, { ...o, parameters: { note }, onStep }, async ({ ctx, trace, proxyPort }) => {
    socket = await duringRun(proxyPort, note);
    const { key } = trajectoryKeyOf(ctx);
    rig.model.setScript(() => done);
    const outcome = await plannerStrategy(strategyDeps(rig.server, rig.model)).run(ctx);
    return { outcome, trace, openWhenJudged, stored: await storedTrajectory(rig.server, key) };
  });
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('read mode: a WebSocket message the page leaves unfinished, its socket open past the run', () => {
  it('control: a socket kept open after whole messages leaves the run clean, and it is recorded for replay', async () => {
    const run = await readRun(async (proxyPort) => {
      const socket = await openProxiedSocket(proxyPort, host);
      socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
      await settle(200);
      return socket;
    });

    expect(run.outcome.status).toBe('completed');
    expect(run.openWhenJudged).toBe(true);
    expect(received).toEqual([]);
    expect(recordVerdict(run.trace)).toMatchObject({ outcome: 'ok' });
    expect(run.stored).not.toBeNull();
  });

  it('a message begun and never finished taints the run, which is not recorded, though its socket is still open', async () => {
    const run = await readRun(async (proxyPort, note) => {
      const socket = await openProxiedSocket(proxyPort, host);
      // The frame's header and a harmless head; its tail (the parameter) would come after the run.
      const leak = maskedFrame(1, Buffer.from(`{"event":"autosave","pad":"${'x'.repeat(200)}","note":"${note}"}`));
      socket.write(leak.subarray(0, 60));
      await settle(200);
      return socket;
    });

    expect(run.outcome.status).toBe('completed');
    // Judged while the page still held the socket open: the unfinished message was reported unreadable.
    expect(run.openWhenJudged).toBe(true);
    expect(received).toEqual([]);
    expect(recordVerdict(run.trace)).toMatchObject({
      outcome: 'blocked',
      error: expect.stringMatching(/not recorded for replay: .*\/comms#send.*its message could not be read whole/),
    });
    expect(run.stored).toBeNull();
  });

  it.each([
    ['whole messages only: the run is clean and its context kept', false],
    ['a message left unfinished: reported to the run holding the context as its pages close; the context is closed', true],
  ])('a context kept warm between runs, %s', async (_name, unfinished) => {
    const pool = new WarmContexts({ idleMs: 10_000, max: 4 });
    const policy = EgressPolicy.forProvider({ name: 'Notes', homeUrl: `http://${host}/`, allowedOrigins: ['wsapp.localhost'] }, 'sandbox');
    const wiring = new ContextWiring(changeGate('read'));
    const { context, proxyPort } = await readContext({
      policy,
      onBlocked: wiring.onBlocked,
      gate: wiring,
      onChangeSent: wiring.onChangeSent,
    });
    // The run holding the context, wired as run-session.ts wires it.
    const integrity = new RunIntegrity({});
    const heard: BlockedRequest[] = [];
    wiring.attach({
      onBlocked: (b) => {
        heard.push(fromProxy(b));
        integrity.blockedRequest(fromProxy(b));
      },
      onChangeSent: () => undefined,
      report: () => undefined,
      mainFrame: () => undefined,
    });
    judgeUnfinishedMessages(integrity, context);
    await (await context.newPage()).goto(`http://${host}/`);
    const socket = await openProxiedSocket(proxyPort, host);
    const frame = maskedFrame(1, Buffer.from(`{"event":"autosave","pad":"${'x'.repeat(200)}"}`));
    socket.write(unfinished ? frame.subarray(0, 60) : frame);
    await settle(300);

    const closed = new Promise<boolean>((resolve) => context.once('close', () => resolve(true)));
    // As releaseRunBrowser keeps it: its pages closed, then the run is judged, while it still holds the fence.
    let openWhenJudged = false;
    await pool.keep({ context, wiring, key: 'key' }, 'd', () => {
      openWhenJudged = !socket.destroyed;
      return integrity.clean;
    });
    expect(openWhenJudged).toBe(true);
    expect(pool.size).toBe(unfinished ? 0 : 1);
    expect(heard.filter((b) => b.bodyCut)).toHaveLength(unfinished ? 1 : 0);
    if (unfinished) expect(await closed).toBe(true);
    await pool.close();
    await context.close().catch(() => undefined);
  });
});
