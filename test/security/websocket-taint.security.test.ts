import { randomBytes, randomUUID } from 'node:crypto';

import type { TraceStep } from '../../server/agent/run/context';
import { plannerStrategy, trajectoryKeyOf } from '../../server/agent/strategies';
import type { ScriptReply, ScriptTurn } from '../support/scripted-model-server';
import { type SocketSite, startSocketSite } from '../support/socket-site';
import { newOrg, recordVerdict, storedTrajectory, strategyDeps, useAttackRig } from './planner-attack-support';
import { siteRun } from './site-run-support';

/**
 * WebSocket messages in read mode, attacked for real: a single-page app's provider page opens a WebSocket to its own
 * host, as real editors do, and sends on it. Read mode holds every message (the site's server receives none, ever);
 * what changes is only whether the run is tainted (block-cause.ts): the page's own subscribe frame at load is listed
 * as noise and the run is recorded for replay, while a message sent in answer to a click, or carrying a parameter
 * value the run typed (as written, base64, percent-encoded, hex or \u-escaped, long after the tool settled), taints
 * the run, which is never recorded. The run is fenced exactly as the worker fences it (run-session.ts): the egress
 * proxy with read mode's gate, the page's view of its refusals, the run's integrity judging each refusal.
 */
jest.setTimeout(60_000);

const rig = useAttackRig();

/** What the site's WebSocket server received: must stay empty in read mode. */
const received: string[] = [];
let site: SocketSite;
let origin = '';

/**
 * The page: a greeting, a search field and a button; its script opens the socket at load and subscribes (the app's
 * own background frame). `leak` names how it sends the field's value away, 2.5 s after the last keystroke (well after
 * the typing tool and its settle); `/click` sends a frame when the button is clicked.
 */
const ENCODERS: Record<string, string> = {
  plain: 'v',
  base64: 'btoa(v)',
  percent: "[...v].map((c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0')).join('')",
  hex: "[...v].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')",
  unicode: "[...v].map((c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('')",
};

function page(path: string): string | null {
  const url = new URL(path, 'http://x');
  const leak = url.searchParams.get('leak');
  if (url.pathname !== '/' && url.pathname !== '/click') return null;
  if (leak && !ENCODERS[leak]) return null;
  const script = `
    const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/comms');
    ws.onopen = () => ws.send(JSON.stringify({ subscribe: 'notification/#' }));
    const field = document.querySelector('input');
    let timer;
    ${leak ? `field.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => { const v = field.value; ws.send('{"q":"' + (${ENCODERS[leak]}) + '"}'); }, 2500); });` : ''}
    ${url.pathname === '/click' ? `document.querySelector('button').addEventListener('click', () => ws.send('{"event":"refresh"}'));` : ''}
  `;
  return `<!doctype html><html><head><title>Notes</title></head><body><main><h1>Welcome, Grace Goodwin</h1>
    <input type="search" aria-label="Search notes"><button type="button">Refresh</button></main><script>${script}</script></body></html>`;
}

beforeAll(async () => {
  site = await startSocketSite({
    received,
    handler: (req, res) => {
      const body = page(req.url ?? '/');
      if (body === null) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    },
    onClient: (client) => client.send('{"topic":"hello"}'),
  });
  origin = `http://wsapp.localhost:${site.port}`;
});

afterAll(async () => {
  await site?.close();
});

beforeEach(() => {
  received.length = 0;
});

const READ = {
  action: 'Which name does the notes page greet me with?',
  responseFormat: { name: 'string - the full name shown for the signed-in member' },
};
const done: ScriptReply = { tool: 'done', args: { success: true, data: { name: 'Grace Goodwin' } } };

/** A read-mode run on the site, fenced as the worker fences it; the planner runs `script` with the scripted model. */
async function readRun(
  path: string,
  script: (turn: ScriptTurn, n: number, trace: TraceStep[]) => ScriptReply,
  parameters: Record<string, unknown> = {},
) {
  const organizationId = await newOrg(rig.server);
  const action = `${READ.action} (${randomUUID().slice(0, 8)})`;
  return siteRun(
    rig,
    { origin, path, mode: 'read', organizationId, action, responseFormat: READ.responseFormat, parameters },
    async ({ ctx, trace, integrity }) => {
      const { key } = trajectoryKeyOf(ctx);
      let n = 0;
      rig.model.setScript((t) => script(t, ++n, trace));
      const outcome = await plannerStrategy(strategyDeps(rig.server, rig.model)).run(ctx);
      // Stragglers: anything the page still had queued.
      await new Promise((r) => setTimeout(r, 300));
      return { outcome, trace, integrity, stored: await storedTrajectory(rig.server, key) };
    },
  );
}

const socketSteps = (trace: TraceStep[]) => trace.filter((s) => s.outcome === 'blocked' && /\/comms#send/.test(s.target ?? ''));

describe('read mode: WebSocket messages are held, and taint a run only when the run caused them', () => {
  it("lists the app's own subscribe frame at load as noise, holds it, and still records the run for replay", async () => {
    // The model answers once the frame is held (listed), however long a loaded machine takes to send it.
    const run = await readRun('/', (_t, n, trace) => (n === 1 ? { until: () => socketSteps(trace).length > 0, then: done } : done));

    expect(run.outcome.status).toBe('completed');
    expect(received).toEqual([]);
    const listed = socketSteps(run.trace);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.error).toMatch(/read mode: WebSocket messages are not sent .*not a taint/);
    expect(run.integrity.clean).toBe(true);
    expect(recordVerdict(run.trace)).toMatchObject({ outcome: 'ok' });
    expect(run.stored).not.toBeNull();
  });

  it('taints a run whose page sends a frame in answer to a click (the run caused it), and records nothing', async () => {
    const run = await readRun('/click', (t, n) => {
      if (n === 1) return { tool: 'click', args: { index: t.observation!.find('button', 'Refresh') } };
      return done;
    });

    expect(run.outcome.status).toBe('completed');
    expect(received).toEqual([]);
    expect(socketSteps(run.trace).some((s) => !/not a taint/.test(s.error ?? ''))).toBe(true);
    expect(recordVerdict(run.trace)).toMatchObject({
      outcome: 'blocked',
      error: expect.stringMatching(/a request was blocked .*\/comms#send.*sent while a tool acted/),
    });
    expect(run.stored).toBeNull();
  });

  it.each(Object.keys(ENCODERS))(
    'taints a run whose page sends a typed parameter over the socket later, %s, and records nothing',
    async (leak) => {
      const note = `private-note-${randomBytes(5).toString('hex')}`;
      const run = await readRun(
        `/?leak=${leak}`,
        (t, n, trace) => {
          if (n === 1)
            return { tool: 'type', args: { index: t.observation!.find('searchbox', 'Search notes'), text: '{{parameters.note}}' } };
          // The page sends 2.5 s after the last keystroke: well outside the tool's action window. The model answers once
          // that frame is held (after the subscribe frame at load), however late a loaded machine sends it.
          if (n === 2) return { until: () => socketSteps(trace).length >= 2, then: done };
          return done;
        },
        { note },
      );

      expect(run.outcome.status).toBe('completed');
      expect(received).toEqual([]);
      expect(recordVerdict(run.trace)).toMatchObject({
        outcome: 'blocked',
        error: expect.stringMatching(/a request was blocked .*\/comms#send.*it carried a parameter value/),
      });
      expect(run.stored).toBeNull();
    },
  );
});
