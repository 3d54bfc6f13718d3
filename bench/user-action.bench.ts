/**
 * Runs that wait for their user (NEEDS_USER): how fast the person sees the run's page, what a waiting run costs, and
 * how many a process holds within its bounds.
 *
 *   npm run bench:user-action                     # 10 rounds, 8 waiting runs (AGENTLINK_MAX_WAITING_RUNS)
 *   npm run bench:user-action -- --rounds 20 --waiting 16
 *
 * A live AgentLink on 127.0.0.1 with its worker (its own Chromium holds the runs' pages, as in production); the runs are
 * user_stepup's first messages to someone new on the Orbit sandbox: the real orbit.send-message playbook pauses at
 * Orbit's "Confirm it's you" code step. The "people" are widget pages in a second Chromium.
 *   1. Time to first frame, per round: from the moment the API answers NEEDS_USER (GET …?waitMs returns at it) to the
 *      first frame of the run's page painted on the widget's canvas, the widget opened at once at userAction.url (so it
 *      includes loading the widget: what a person who taps the link at once waits). Also from userAction.since (the
 *      worker's pause) to that frame. Median and p95.
 *   1b. Resume, same rounds: the person submits Orbit's code on the run's page and presses Done in the widget at once;
 *      from the widget's Done request to the API showing the run RUNNING again (polled every 5 ms), and to COMPLETED
 *      (the playbook's remaining steps: the message checked as sent). A round whose run saw the step done on its own
 *      first (it looks every 500 ms; Done then answers 409) is counted, not timed.
 *   2. Memory held per waiting run: the server's Chromium (PSS, every process) and this Node process (heap used),
 *      before and with --waiting runs paused, divided by their number.
 *   3. Bounds: --waiting runs wait at once (AGENTLINK_MAX_WAITING_RUNS=--waiting, worker concurrency 2): every one is
 *      NEEDS_USER, two more that need their user end USER_ACTION_UNAVAILABLE at once, and a read request still runs to
 *      the end meanwhile (waiting runs hold no worker slot): its time is printed.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

import { type Browser, chromium } from 'playwright-core';

import { CHROMIUM_ARGS, resolveChromiumPath } from '../server/browser/chromium';
import { loadConfig } from '../server/config';
import { ORBIT_PROVIDER_ID } from '../server/integrations/orbit/orbit.provider';
import { SANDBOX_STEP_UP_CODE } from '../server/sandbox/test-users';
import { type LiveServer, startLiveServer } from '../test/support/live-server';
import { childProcesses, descendants, pssBytes } from './agent/process-tree';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: 'string', default: '10' }, waiting: { type: 'string', default: '8' } },
});
const ROUNDS = Math.max(3, Number(values.rounds));
const WAITING = Math.min(64, Math.max(2, Number(values.waiting)));
const WIDGET_MARK = '--agentlink-bench-widget';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** The server's Chromium (the worker's), not the widgets' one. */
function serverChromiumMb(): number {
  const mains = childProcesses(process.pid).filter((pid) => {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return /chrom/i.test(cmd) && !cmd.includes(WIDGET_MARK);
    } catch {
      return false;
    }
  });
  return pssBytes(mains.flatMap((pid) => [pid, ...descendants(pid)])) / 1024 / 1024;
}
const heapMb = () => process.memoryUsage().heapUsed / 1024 / 1024;
const settleHeap = async () => {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 500));
};

class Api {
  constructor(
    private readonly server: LiveServer,
    private readonly headers: Record<string, string>,
  ) {}
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.server.baseUrl}${path}`, {
      method,
      headers: this.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  /** The request once it leaves PENDING/RUNNING (waitMs answers at NEEDS_USER too). */
  async settled(id: string): Promise<Json> {
    for (;;) {
      const r = (await this.call('GET', `/api/agent-requests/${id}?waitMs=20000`)).body;
      if (r.status !== 'PENDING' && r.status !== 'RUNNING') return r;
    }
  }
  /** Polls (no long-poll answers at RUNNING) until the request's status is one of `statuses`. */
  async until(id: string, statuses: string[]): Promise<Json> {
    for (;;) {
      const r = (await this.call('GET', `/api/agent-requests/${id}`)).body;
      if (statuses.includes(r.status)) return r;
      await new Promise((res) => setTimeout(res, 5));
    }
  }
  async final(id: string): Promise<Json> {
    for (;;) {
      const r = await this.settled(id);
      if (r.status !== 'NEEDS_USER') return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  }
}

async function main() {
  const server = await startLiveServer({
    worker: true,
    env: {
      AGENTLINK_WORKER_CONCURRENCY: '2',
      AGENTLINK_MAX_WAITING_RUNS: String(WAITING),
      AGENTLINK_LIVE_MAX_SESSIONS: String(WAITING),
      AGENTLINK_USER_ACTION_TTL_SECONDS: '600',
    },
  });
  const widgets: Browser = await chromium.launch({
    executablePath: await resolveChromiumPath(loadConfig().browser.executablePath),
    headless: true,
    args: [...CHROMIUM_ARGS, WIDGET_MARK],
  });
  try {
    /** An organization with user_stepup connected (a fresh one asks for the code again: its sandbox is its own). */
    const account = async (name: string) => {
      const created = await server.services.organizations.create(name);
      const api = new Api(server, {
        'content-type': 'application/json',
        'x-client-id': created.clientId,
        'x-client-secret': created.sandboxSecret,
      });
      const pt = await api.call('POST', '/api/sandbox/public_token/create', {
        providerId: ORBIT_PROVIDER_ID,
        clientUserId: 'bench',
        username: 'user_stepup',
      });
      const ex = await api.call('POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
      const accessToken = ex.body.access_token as string;
      const askingRun = async (n: number) => {
        const res = await api.call('POST', '/api/agent-requests', {
          accessToken,
          action: `Send a message to Marcus Webb saying 'bench ${n}'`,
          startingUrl: server.siteUrl('orbit', '/'),
          responseFormat: { sent: 'boolean' },
        });
        if (res.status !== 202) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.requestId as string;
      };
      const cancel = async (id: string) => {
        await api.call('POST', `/api/agent-requests/${id}/cancel`);
        await api.final(id);
      };
      return { api, accessToken, askingRun, cancel };
    };
    const { api, accessToken, askingRun, cancel } = await account('Bench: runs that need their user');

    // ---- 1. NEEDS_USER → first frame in the widget
    const fromAnswer: number[] = [];
    const fromPause: number[] = [];
    const toRunning: number[] = [];
    const toCompleted: number[] = [];
    let sawItFirst = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const own = await account(`Bench: round ${round}`);
      const id = await own.askingRun(round);
      const waiting = await own.api.settled(id);
      const answeredAt = Date.now();
      if (waiting.status !== 'NEEDS_USER') throw new Error(`round ${round}: ${waiting.status} ${JSON.stringify(waiting.error)}`);
      const context = await widgets.newContext({ viewport: { width: 420, height: 860 } });
      const widget = await context.newPage();
      await widget.goto(waiting.userAction.url);
      await widget.waitForFunction(
        () => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1,
        undefined,
        {
          timeout: 30_000,
          polling: 'raf',
        },
      );
      const painted = Date.now();
      // 1b. The person enters the code on the run's page and presses Done.
      const page = server.services.handoffs.registry.find(id)?.page();
      if (!page) throw new Error(`round ${round}: the run's page is not open`);
      await page.fill('#confirm-code-input', SANDBOX_STEP_UP_CODE);
      let pressed = 0;
      widget.on('request', (r) => r.url().endsWith('/user-action') && (pressed ||= performance.now()));
      const answer = widget
        .waitForResponse((r) => r.url().endsWith('/user-action'))
        .then((r) => r.status())
        .catch(() => 0);
      await page.press('#confirm-code-input', 'Enter', { noWaitAfter: true });
      // Watched from before the press: the run goes on as the answer is taken, before the widget's call returns.
      const resumed = own.api.until(id, ['RUNNING', 'COMPLETED', 'FAILED']).then(() => performance.now());
      // The run may see the step done first (it looks every 500 ms): then Done is gone from the widget, and no call is made.
      await widget.click('#al-done', { timeout: 5_000 }).catch(() => undefined);
      const running = await resumed;
      const answered = pressed ? await answer : 0;
      const final = await own.api.final(id);
      const completed = performance.now();
      if (final.status !== 'COMPLETED') throw new Error(`round ${round}: ${final.status} ${JSON.stringify(final.error)}`);
      if (answered !== 200) sawItFirst++;
      if (round > 0) {
        // round 0 warms up the widget's assets and the browser
        fromAnswer.push(painted - answeredAt);
        fromPause.push(painted - Date.parse(waiting.userAction.since));
        if (answered === 200) {
          toRunning.push(running - pressed);
          toCompleted.push(completed - pressed);
        }
      }
      await context.close();
    }

    // ---- 2 and 3. WAITING runs at once: memory, and the bound
    await settleHeap();
    const before = { chromium: serverChromiumMb(), heap: heapMb() };
    const ids = await Promise.all(Array.from({ length: WAITING }, (_, i) => askingRun(100 + i)));
    const states = await Promise.all(ids.map((id) => api.settled(id)));
    const held = states.filter((s) => s.status === 'NEEDS_USER').length;
    await new Promise((r) => setTimeout(r, 1_000));
    await settleHeap();
    const withWaiting = { chromium: serverChromiumMb(), heap: heapMb() };
    const extra = await Promise.all([askingRun(900), askingRun(901)].map(async (p) => api.final(await p)));
    const refused = extra.filter((r) => r.status === 'FAILED' && r.error?.code === 'USER_ACTION_UNAVAILABLE').length;
    const readStarted = Date.now();
    const read = await api.call('POST', '/api/agent-requests', {
      accessToken,
      action: 'Read my profile',
      startingUrl: server.siteUrl('orbit', '/'),
      responseFormat: { name: 'string' },
    });
    const readDone = await api.final(read.body.requestId as string);
    const readMs = Date.now() - readStarted;
    await Promise.all(ids.map(cancel));

    const per = (a: number, b: number) => (b - a) / Math.max(1, held);
    const lines = [
      '',
      `Runs that wait for their user — ${ROUNDS} rounds, ${WAITING} waiting runs (Orbit step-up code, real playbook)`,
      '',
      '  NEEDS_USER → first frame in the widget (widget opened at once at userAction.url)',
      `    from the API's answer     median ${fmt(quantile(fromAnswer, 0.5))} ms   p95 ${fmt(quantile(fromAnswer, 0.95))} ms`,
      `    from userAction.since     median ${fmt(quantile(fromPause, 0.5))} ms   p95 ${fmt(quantile(fromPause, 0.95))} ms`,
      '',
      `  Resume: the code submitted on the run's page, then Done in the widget (${toRunning.length} timed, ${sawItFirst} seen by the run first)`,
      `    Done → RUNNING (API)      median ${fmt(quantile(toRunning, 0.5))} ms   p95 ${fmt(quantile(toRunning, 0.95))} ms`,
      `    Done → COMPLETED          median ${fmt(quantile(toCompleted, 0.5))} ms   p95 ${fmt(quantile(toCompleted, 0.95))} ms`,
      '',
      `  Memory held per waiting run (${held} waiting)`,
      `    server Chromium (PSS)     ${fmt(per(before.chromium, withWaiting.chromium), 1)} MB   (${fmt(before.chromium)} → ${fmt(withWaiting.chromium)} MB)`,
      `    Node heap                 ${fmt(per(before.heap, withWaiting.heap) * 1024, 0)} KB   (${fmt(before.heap, 1)} → ${fmt(withWaiting.heap, 1)} MB)`,
      '',
      `  Bounds (AGENTLINK_MAX_WAITING_RUNS=${WAITING}, worker concurrency 2)`,
      `    waiting at once           ${held} of ${WAITING}`,
      `    beyond the bound          ${refused} of 2 ended USER_ACTION_UNAVAILABLE at once`,
      `    a read meanwhile          ${readDone.status} in ${fmt(readMs)} ms (waiting runs hold no worker slot)`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await widgets.close();
    await server.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
