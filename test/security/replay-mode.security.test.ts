import { randomUUID } from 'node:crypto';

import { parameterSlots } from '../../server/agent/planner/placeholders';
import { replayTrajectory } from '../../server/agent/replay/replayer';
import type { Trajectory, TrajectoryMode } from '../../server/agent/replay/trajectory';
import type { RunContext, TraceStep } from '../../server/agent/run/context';
import { plannerStrategy, replayStrategy, trajectoryKeyOf } from '../../server/agent/strategies';
import { eventually } from '../agent/agent-support';
import type { ScriptReply, ScriptTurn } from '../support/scripted-model-server';
import { type SocketSite, startSocketSite } from '../support/socket-site';
import { newOrg, recordVerdict, storedTrajectory, strategyDeps, useAttackRig } from './planner-attack-support';
import { siteRun } from './site-run-support';

/**
 * A trajectory replays only for requests of the mode it was recorded in. The attack: in read mode the egress proxy
 * holds every WebSocket message, and one the page sends well after a tool's action, carrying nothing of the run, is
 * listed as the page's noise and does not taint the run (block-cause.ts). So a read run on a page whose "Refresh"
 * button sends `{"op":"purge-notes"}` 1.5 s after the click is clean and recorded; replayed for a read_write request of
 * the same action, the same click would let that message out. The run is fenced as the worker fences it
 * (run-session.ts): the egress proxy with the mode's gate, the page's view of its refusals, the run's integrity judging each refusal.
 */
jest.setTimeout(90_000);

const rig = useAttackRig();

/** What the site's WebSocket server received: the purge frame must never reach it from a read request. */
const received: string[] = [];
let site: SocketSite;
let origin = '';

const PURGE = '{"op":"purge-notes"}';
const PAGE = `<!doctype html><html><head><title>Notes</title></head><body><main><h1>Welcome, Grace Goodwin</h1>
  <button type="button">Refresh</button></main><script>
  const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/comms');
  document.querySelector('button').addEventListener('click', () => setTimeout(() => ws.send('${PURGE}'), 1500));
</script></body></html>`;

beforeAll(async () => {
  site = await startSocketSite({
    received,
    handler: (req, res) => {
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    },
  });
  origin = `http://notesapp.localhost:${site.port}`;
});

afterAll(async () => {
  await site?.close();
});

beforeEach(() => {
  received.length = 0;
});

const FORMAT = { name: 'string - the full name shown for the signed-in member' };
const done: ScriptReply = { tool: 'done', args: { success: true, data: { name: 'Grace Goodwin' } } };
/**
 * The planner's run: click Refresh, then answer once the page's frame (1.5 s after the click, past the settle window)
 * went out or was held: waited for, not timed, so a loaded machine cannot end the run before the page sends it.
 */
const clickThenAnswer = (t: ScriptTurn, n: number, frameSent: () => boolean): ScriptReply => {
  if (n === 1) return { tool: 'click', args: { index: t.observation!.find('button', 'Refresh') } };
  if (n === 2) return { until: frameSent, then: done };
  return done;
};
/** The purge frame of this run: held by the fence (read mode, in the trace) or received by the site (read_write). */
const frameHeld = (trace: TraceStep[]) => trace.some((s) => s.outcome === 'blocked' && /\/comms#send/.test(s.target ?? ''));
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request of `mode` on the site, fenced as the worker fences it; `use` runs strategies on its context. */
function request<T>(
  mode: TrajectoryMode,
  o: { organizationId: string; action: string },
  use: (ctx: RunContext, trace: TraceStep[]) => Promise<T>,
): Promise<T> {
  return siteRun(rig, { origin, mode, ...o, responseFormat: FORMAT }, ({ ctx, trace }) => use(ctx, trace));
}

/** A planner run of `mode` that clicks Refresh, then answers; it must be clean and recorded. */
async function learn(mode: TrajectoryMode, o: { organizationId: string; action: string }) {
  return request(mode, o, async (ctx, trace) => {
    let n = 0;
    rig.model.setScript((t) => clickThenAnswer(t, ++n, () => received.includes(PURGE) || frameHeld(trace)));
    expect(await plannerStrategy(strategyDeps(rig.server, rig.model)).run(ctx)).toMatchObject({ status: 'completed' });
    expect(recordVerdict(trace)).toMatchObject({ outcome: 'ok' });
    const row = await storedTrajectory(rig.server, trajectoryKeyOf(ctx).key);
    expect(row).not.toBeNull();
    return row!.trajectory as unknown as Trajectory;
  });
}

const freshRequest = async () => ({
  organizationId: await newOrg(rig.server),
  action: `Which name does the notes page greet me with? (${randomUUID().slice(0, 8)})`,
});

describe('a trajectory replays only for requests of the mode it was recorded in', () => {
  it('the attack: recorded in read mode (the held frame was noise), a read_write request is not answered by replay', async () => {
    const o = await freshRequest();
    const learned = await learn('read', o);
    expect(learned.mode).toBe('read');
    expect(learned.steps.map((s) => s.tool)).toEqual(['click']);
    expect(received).toEqual([]);

    // What the key prevents: these steps, repeated with read_write's fence, send the purge frame.
    await request('read_write', o, async (ctx) => {
      const replayed = await replayTrajectory(ctx, learned, { slots: parameterSlots({}) });
      expect(replayed).toEqual({ ok: true, result: { name: 'Grace Goodwin' } });
      // The page sends its frame 1.5 s after the click: waited for (while the context is open), not timed.
      await eventually(
        async () => received.length,
        (n) => n > 0,
      ).catch(() => undefined);
    });
    expect(received).toEqual([PURGE]);
    received.length = 0;

    // The read_write request finds no trajectory: it goes to the planner, which answers without clicking.
    await request('read_write', o, async (ctx, trace) => {
      const replay = await replayStrategy(strategyDeps(rig.server, rig.model)).run(ctx);
      expect(replay).toEqual({ status: 'not_applicable', reason: 'no trajectory was recorded for this action in this mode yet' });
      expect(trace.filter((s) => s.tool === 'click')).toEqual([]);
      const calls = rig.model.calls;
      rig.model.setScript(() => done);
      expect(await plannerStrategy(strategyDeps(rig.server, rig.model)).run(ctx)).toMatchObject({
        status: 'completed',
        result: { name: 'Grace Goodwin' },
      });
      expect(rig.model.calls).toBeGreaterThan(calls);
      await settle(2_000);
    });
    expect(received).toEqual([]);

    // A read request still replays, with zero model calls, and the frame is held again.
    await request('read', o, async (ctx, trace) => {
      const calls = rig.model.calls;
      expect(await replayStrategy(strategyDeps(rig.server, rig.model)).run(ctx)).toMatchObject({
        status: 'completed',
        result: { name: 'Grace Goodwin' },
      });
      expect(rig.model.calls).toBe(calls);
      expect(trace.map((s) => [s.tool, s.outcome])).toEqual([
        ['click', 'ok'],
        ['extract', 'ok'],
      ]);
      await eventually(async () => frameHeld(trace), Boolean).catch(() => undefined);
      expect(frameHeld(trace)).toBe(true);
    });
    expect(received).toEqual([]);
  });

  it('the reverse: recorded in read_write, a read request is not answered by replay; a read_write request is', async () => {
    const o = await freshRequest();
    const learned = await learn('read_write', o);
    expect(learned.mode).toBe('read_write');
    // read_write lets the page's frame out: that is the mode the steps were learned in.
    await eventually(
      async () => received.length,
      (n) => n > 0,
    ).catch(() => undefined);
    expect(received).toEqual([PURGE]);
    received.length = 0;

    await request('read', o, async (ctx) => {
      const replay = await replayStrategy(strategyDeps(rig.server, rig.model)).run(ctx);
      expect(replay).toEqual({ status: 'not_applicable', reason: 'no trajectory was recorded for this action in this mode yet' });
    });

    await request('read_write', o, async (ctx) => {
      const calls = rig.model.calls;
      expect(await replayStrategy(strategyDeps(rig.server, rig.model)).run(ctx)).toMatchObject({
        status: 'completed',
        result: { name: 'Grace Goodwin' },
      });
      expect(rig.model.calls).toBe(calls);
    });
  });
});
