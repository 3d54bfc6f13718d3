/**
 * How soon a run ends when it must: the latencies the worker tests no longer bound (they measured the machine, and
 * failed on a busy one), measured here instead.
 *
 *   npm run bench:lifecycle                   # 8 rounds each
 *   npm run bench:lifecycle -- --rounds 20 --timeout-ms 8000
 *
 * A live AgentLink on 127.0.0.1 with its worker and Chromium, the Orbit sandbox connected; a test playbook that hangs
 * stands in for a run that never finishes by itself. Per round, each printed as median and p95:
 *   1. Timeout: a hanging run with timeoutMs = --timeout-ms ends TIMED_OUT; how far past its timeoutMs it ended
 *      (executionTimeMs − timeoutMs, the run's own clock) and from create to TIMED_OUT seen by the API.
 *   2. Cancel: a hanging run, once its playbook started, is canceled; from the cancel's answer to CANCELED seen by the
 *      API (polled every 5 ms), and the run's executionTimeMs after its start.
 *   3. Nothing to run it with: no playbook covers the action and no model is configured; from create to
 *      FAILED MODEL_NOT_CONFIGURED seen by the API.
 * A crashed worker's recovery is the lease running out (AGENTLINK_WORKER_LEASE_SECONDS) plus a sweep: the
 * worker-crash test shows it happens; its duration is that setting.
 */
import { parseArgs } from 'node:util';

import { api, connectOrbit, createRequest, type Json, type LiveOrg, liveOrg, testPlaybook } from '../test/agent/agent-support';
import { type LiveServer, startLiveServer } from '../test/support/live-server';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: 'string', default: '8' }, 'timeout-ms': { type: 'string', default: '5000' } },
});
const ROUNDS = Math.max(3, Number(values.rounds));
const TIMEOUT_MS = Math.max(5000, Number(values['timeout-ms'])); // the API's least timeoutMs

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const row = (label: string, xs: number[]) =>
  `    ${label.padEnd(34)} median ${quantile(xs, 0.5).toFixed(0).padStart(5)} ms   p95 ${quantile(xs, 0.95).toFixed(0).padStart(5)} ms`;

/**
 * The request once it reaches one of `statuses`, read as a caller does: the long poll (`?waitMs`) answers as the outcome
 * is written. (Polling every 5 ms, as this bench did, ran into the API's rate limit of 100 requests a second.)
 */
async function until(live: LiveServer, org: LiveOrg, id: string, statuses: string[]): Promise<Json> {
  for (;;) {
    const r = await api(live, org, 'GET', `/api/agent-requests/${id}?waitMs=30000`);
    if (r.status !== 200) throw new Error(`GET ${id}: ${r.status} ${JSON.stringify(r.body)}`);
    if (statuses.includes(r.body.status)) return r.body;
  }
}

async function main() {
  const live = await startLiveServer({ worker: true });
  const started = new Set<string>();
  live.services.playbooks.register(
    testPlaybook('bench.hang', 'bench: hang forever', async (ctx) => {
      started.add(ctx.requestId);
      return new Promise(() => undefined);
    }),
  );
  try {
    const org = await liveOrg(live, 'Bench: run lifecycle');
    const conn = await connectOrbit(live, org);
    const body = (action: string, extra: Record<string, unknown> = {}) => ({
      accessToken: conn.accessToken,
      action,
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: { ok: 'boolean' },
      ...extra,
    });
    const FINAL = ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'];
    const overshoot: number[] = [];
    const timeoutWall: number[] = [];
    const cancelToFinal: number[] = [];
    const canceledRunMs: number[] = [];
    const failFast: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const warm = round === 0; // round 0 warms the browser and the paths up

      // 1. Timeout
      let t0 = performance.now();
      const timed = await createRequest(live, org, body('bench: hang forever', { timeoutMs: TIMEOUT_MS }));
      const t = await until(live, org, timed, FINAL);
      if (t.status !== 'TIMED_OUT') throw new Error(`timeout round ${round}: ${t.status}`);
      if (!warm) {
        timeoutWall.push(performance.now() - t0);
        overshoot.push(t.executionTimeMs - TIMEOUT_MS);
      }

      // 2. Cancel
      const id = await createRequest(live, org, body('bench: hang forever'));
      while (!started.has(id)) await new Promise((res) => setTimeout(res, 5));
      const canceled = await api(live, org, 'POST', `/api/agent-requests/${id}/cancel`);
      if (canceled.status !== 200) throw new Error(`cancel round ${round}: ${canceled.status}`);
      t0 = performance.now();
      const c = await until(live, org, id, FINAL);
      if (c.status !== 'CANCELED') throw new Error(`cancel round ${round}: ${c.status}`);
      if (!warm) {
        cancelToFinal.push(performance.now() - t0);
        canceledRunMs.push(c.executionTimeMs);
      }

      // 3. Nothing to run it with
      t0 = performance.now();
      const none = await createRequest(
        live,
        org,
        body('Read my profile and my latest posts', { responseFormat: { name: 'string', posts: [{ text: 'string' }] } }),
      );
      const n = await until(live, org, none, FINAL);
      if (n.error?.code !== 'MODEL_NOT_CONFIGURED') throw new Error(`fail-fast round ${round}: ${n.status} ${JSON.stringify(n.error)}`);
      if (!warm) failFast.push(performance.now() - t0);
    }
    const lines = [
      '',
      `A run's end when it must — ${ROUNDS} rounds (Orbit sandbox, a hanging test playbook, real worker and Chromium)`,
      '',
      `  Timeout (timeoutMs ${TIMEOUT_MS})`,
      row('past its timeoutMs (run clock)', overshoot),
      row('create → TIMED_OUT (API)', timeoutWall),
      '',
      '  Cancel (once the playbook started)',
      row("cancel's answer → CANCELED (API)", cancelToFinal),
      row('the canceled run, executionTimeMs', canceledRunMs),
      '',
      '  No playbook and no model',
      row('create → MODEL_NOT_CONFIGURED', failFast),
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await live.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
