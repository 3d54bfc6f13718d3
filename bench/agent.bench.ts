/**
 * Agent benchmark: how far the worker's playbook path is from the floor, and how long a request waits in
 * the queue with an idle worker.
 *
 *   npm run bench:agent                 # 15 measured runs of each (after 2 warm-up runs), 100 actions of throughput
 *   npm run bench:agent -- --runs 30 --actions 200
 *   npm run bench:agent -- --quick      # 5 runs, 1 warm-up, 20 actions of throughput (a smoke run)
 *
 * One process runs AgentLink as `agentlink serve` does by default (API + embedded worker, SQLite in a temp
 * dir, real Chromium) on 127.0.0.1, with an organization and a sandbox Orbit connection made through the
 * API. The action is Orbit's "Read my profile", asking for {name, followers}:
 *   - floor: a hand-written Playwright script doing the same steps on the same browser: a new context with
 *     the connection's session, open the starting URL, open /me, read the profile fields, close;
 *   - playbook: the worker's run of the same request (executionTimeMs: context with the unsealed session,
 *     network fence, starting URL, routing, playbook, result validation, session sealed back), and the
 *     whole request as a caller sees it (POST → COMPLETED, read with waitMs);
 *   - replay: the same request answered from a trajectory learned from one planner run (the planner is taught
 *     once by a scripted OpenAI-compatible model on loopback, test/support/scripted-model-server.ts; during
 *     the measured replays that model answers HTTP 500, so a replay provably makes zero model calls). The
 *     playbook is set aside while teaching and replaying, so the same action takes that path;
 *   - queue latency: accepted → RUNNING (startedAt − createdAt) with an idle worker;
 *   - throughput: N "read my profile" requests posted at once through the API (the playbook path), against the
 *     floor script run N times with the same parallelism as the worker (its concurrency), one after the other in
 *     the same run: actions per second of each, how many requests completed, and the peak resident memory of this
 *     process (API, worker, SQLite) plus its Chromium processes, sampled from /proc (bench/agent/process-tree.ts);
 *     and the floor script inside the fence a run works in (bench/agent/fenced-floor.ts: the connection's device, its
 *     own egress proxy, the page's view of its refusals, the session captured at the end), run the same way, so the API's ratio to it
 *     is the service's cost alone and the fenced floor's ratio to the floor is the fence's.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import type { BrowserContext, Page } from 'playwright-core';

import { createAgentWorker } from '../server/agent/worker/runtime';
import { WarmContexts } from '../server/agent/worker/warm-contexts';
import { createApp } from '../server/app';
import { loadConfig } from '../server/config';
import { systemClock } from '../server/domain/clock';
import { ORBIT_PROVIDER_ID } from '../server/integrations/orbit/orbit.provider';
import { createLogger } from '../server/logger';
import { buildServices } from '../server/services';
import { Store } from '../server/store';
import { loadVault } from '../server/vault/keyring';
import { startScriptedModelServer } from '../test/support/scripted-model-server';
import { fencedFloor } from './agent/fenced-floor';
import { addSample, StageCollector, type StageSamples, stageTable } from './agent/stages';
import { measureThroughput, throughputRows } from './agent/throughput';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string' },
    warmup: { type: 'string' },
    actions: { type: 'string' },
    quick: { type: 'boolean', default: false },
    /** Also print where the worker's time goes: the median duration of each trace step of the measured runs. */
    steps: { type: 'boolean', default: false },
  },
});
const QUICK = values.quick === true;
const RUNS = Math.max(1, Number(values.runs ?? (QUICK ? 5 : 15)));
const WARMUP = Math.max(0, Number(values.warmup ?? (QUICK ? 1 : 2)));
/** Requests of the throughput row (and runs of the floor script it is compared with). */
const ACTIONS = Math.max(1, Math.min(1000, Number(values.actions ?? (QUICK ? 20 : 100))));

/** An example of orbit.read-my-profile itself: the text search routes it to the playbook whenever it is registered. */
const ACTION = 'Read my profile';
const FORMAT = { name: 'string - full name', followers: 'integer - number of followers' };

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function p90(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)];
}
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0).padStart(6)} ms`;
const FINAL = new Set(['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELED']);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-agent-'));
  // The planner's model, only to teach the replay once: click "Me", then read the name and the follower count.
  const model = await startScriptedModelServer((t) => {
    const o = t.observation;
    if (!o) return { content: 'no observation' };
    if (!new URL(o.url).pathname.startsWith('/in/')) return { tool: 'click', args: { index: o.find('link', 'Me') } };
    const name = /^# (.+)$/m.exec(o.text)?.[1];
    const followers = Number(/^([\d,]+) followers?$/m.exec(o.text)?.[1]?.replace(/,/g, ''));
    return { tool: 'done', args: { success: true, data: { name, followers } } };
  });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    AGENTLINK_PUBLIC_URL: `http://localhost:${port}`,
    AGENTLINK_DATA_DIR: dataDir,
    AGENTLINK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AGENTLINK_MODEL_BASE_URL: model.baseUrl,
    AGENTLINK_MODEL: 'scripted-bench-model',
    AGENTLINK_MODEL_API_KEY: 'bench',
    ...(process.env.AGENTLINK_CHROMIUM_PATH ? { AGENTLINK_CHROMIUM_PATH: process.env.AGENTLINK_CHROMIUM_PATH } : {}),
    // The worker's warm contexts are the bench's own pool below (open for the default rows, closed for arm B).
    ...(process.env.AGENTLINK_WARM_CONTEXT_SECONDS ? { AGENTLINK_WARM_CONTEXT_SECONDS: process.env.AGENTLINK_WARM_CONTEXT_SECONDS } : {}),
  });
  const store = await Store.open(config.database);
  const { vault } = loadVault(config);
  const services = buildServices({ config, store, clock: systemClock, vault });
  server.on('request', createApp(services, createLogger('silent')));
  // The worker's stage marks of each run (server/agent/run/stages.ts), for the per-stage table.
  const stageLog = new StageCollector(services.agentRunTelemetry);
  // The default deployment's rows: a context prepared ahead for the connection's next run (warm-contexts.ts, fresh mode),
  // the pool open for those runs; arm B's rows run with it closed (AGENTLINK_WARM_CONTEXT_SECONDS=0).
  const prepared = new WarmContexts({ idleMs: 60_000, max: 8, mode: 'fresh' });
  const worker = createAgentWorker(services, createLogger('silent'), { telemetry: stageLog, warm: prepared });
  await worker.start();
  await prepared.close();

  const org = await services.organizations.create('Bench');
  const headers = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${port}`;
  const send = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as any };
  };
  const call = async (method: string, p: string, body?: unknown) => (await send(method, p, body)).body;
  const pt = await call('POST', '/api/sandbox/public_token/create', { providerId: ORBIT_PROVIDER_ID, clientUserId: 'bench-user' });
  const ex = await call('POST', '/api/connections/public_token/exchange', { publicToken: pt.publicToken });
  const orbitHome = services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!.homeUrl;
  const startingUrl = orbitHome;

  // ---------- the floor: the same steps by hand ----------
  const floorSteps = async (page: Page, navigated: () => void = () => undefined) => {
    await page.goto(startingUrl, { waitUntil: 'domcontentloaded' });
    navigated();
    await page.goto(new URL('/me', orbitHome).toString(), { waitUntil: 'domcontentloaded' });
    const profile = page.locator('section[aria-label="Profile"]');
    const name = await profile.locator('h1').innerText();
    const counts = await profile.locator('ul[aria-label="Audience"] li').allInnerTexts();
    const result = { name, followers: parseInt(counts[0].replace(/,/g, ''), 10) };
    if (!result.name || Number.isNaN(result.followers)) throw new Error('floor could not read the profile');
  };
  const floorOnce = async () => {
    const connection = await services.connections.findForRun(ex.connectionId);
    const storageState = services.connections.openSession(connection!)!;
    const t0 = performance.now();
    const context: BrowserContext = await services.browsers.newContext({ storageState, viewport: { width: 1280, height: 900 } });
    let read: number;
    const stages: Record<string, number> = {};
    try {
      const page = await context.newPage();
      stages.context = performance.now() - t0;
      await floorSteps(page, () => (stages.navigation = performance.now() - t0 - stages.context));
      read = performance.now() - t0;
      stages.steps = read - stages.context - stages.navigation;
    } finally {
      await context.close();
    }
    const closed = performance.now() - t0;
    stages.release = closed - read;
    stages.whole = closed;
    return { closed, read, stages };
  };

  // ---------- the playbook, through the API and the worker ----------
  const request = { accessToken: ex.access_token, action: ACTION, startingUrl, responseFormat: FORMAT };
  const runOnce = async (method: 'PLAYBOOK' | 'REPLAY' | 'PLANNER') => {
    const t0 = performance.now();
    const created = await call('POST', '/api/agent-requests', request);
    const accept = performance.now() - t0;
    const record = await call('GET', `/api/agent-requests/${created.requestId}?waitMs=30000`);
    const wall = performance.now() - t0;
    // The same clock as the worker's (one process): from the outcome's write to the caller holding the answer.
    const answer = Date.now() - new Date(record.completedAt).getTime();
    if (record.status !== 'COMPLETED' || record.method !== method) {
      throw new Error(`${method} run ended ${record.status} by ${record.method}: ${JSON.stringify(record.error)}`);
    }
    const steps = (record.trace as { tool: string; target?: string; durationMs: number }[]).map((s) => ({
      step: `${s.tool}${s.target ? ` ${s.target.slice(0, 40)}` : ''}`,
      ms: s.durationMs,
    }));
    return {
      wall,
      steps,
      execution: record.executionTimeMs as number,
      stages: { ...withRest(stageLog.take(created.requestId), record.executionTimeMs as number, wall), accept, answer },
      queue: new Date(record.startedAt).getTime() - new Date(record.createdAt).getTime(),
    };
  };

  // The worker's stages, with what executionTimeMs holds outside any stage and the whole request as the caller sees it.
  function withRest(stages: Record<string, number | undefined>, execution: number, wall: number) {
    const inside = ['device', 'context', 'session_restore', 'navigation', 'steps', 'session_seal', 'release'];
    const staged = inside.reduce((sum, k) => sum + (stages[k] ?? 0), 0);
    return { ...stages, rest: execution - staged, whole: wall };
  }

  // Teach the replay: one planner run (the playbook set aside), then the model goes away.
  const playbook = services.playbooks.list('orbit').find((p) => p.name === 'orbit.read-my-profile')!;
  // Registering or setting aside a playbook drops the provider's text index, which the next routing rebuilds: done
  // here, outside the timed runs, since a running service never toggles its playbooks.
  const setPlaybook = (on: boolean) => {
    if (on) services.playbooks.register(playbook);
    else services.playbooks.unregister(playbook.name);
    services.playbooks.rank(playbook.providerSlug, ACTION);
  };
  setPlaybook(false);
  await runOnce('PLANNER');
  const modelCalls = model.calls;
  model.setScript(() => ({ status: 500 }));

  process.stdout.write(`Warming up (${WARMUP} run${WARMUP === 1 ? '' : 's'} each) …\n`);
  const withPlaybook = async <T>(fn: () => Promise<T>) => {
    setPlaybook(true);
    try {
      return await fn();
    } finally {
      setPlaybook(false);
    }
  };
  for (let i = 0; i < WARMUP; i++) {
    await floorOnce();
    await withPlaybook(() => runOnce('PLAYBOOK'));
    await runOnce('REPLAY');
  }
  const floor: number[] = [];
  const floorRead: number[] = [];
  const exec: number[] = [];
  const wall: number[] = [];
  const replayExec: number[] = [];
  const replayWall: number[] = [];
  const queue: number[] = [];
  const stageSamples: Record<'floor' | 'playbook' | 'replay' | 'playbookB' | 'replayB', StageSamples> = {
    floor: new Map(),
    playbook: new Map(),
    replay: new Map(),
    playbookB: new Map(),
    replayB: new Map(),
  };
  const arms = { execB: [] as number[], wallB: [] as number[], replayExecB: [] as number[], replayWallB: [] as number[] };
  const stepTimes = { playbook: new Map<string, number[]>(), replay: new Map<string, number[]>() };
  const addSteps = (into: Map<string, number[]>, steps: { step: string; ms: number }[]) => {
    for (const s of steps) into.set(s.step, [...(into.get(s.step) ?? []), s.ms]);
  };
  /**
   * Each measured run starts on an idle worker, as the floor does (it returns once its context closed): the run before
   * it has closed its context (a run closes it just after its answer), and contexts prepared ahead (arm B) are open.
   */
  const idle = async () => {
    for (const until = Date.now() + 5_000; services.browsers.openContexts > prepared.size && Date.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  process.stdout.write(`Measuring ${RUNS} runs each, interleaved …\n`);
  for (let i = 0; i < RUNS; i++) {
    await idle();
    const f0 = await floorOnce();
    floor.push(f0.closed);
    floorRead.push(f0.read);
    addSample(stageSamples.floor, f0.stages);
    // The default deployment: a context prepared ahead for the connection's next run (warm contexts, fresh mode); one
    // unmeasured run prepares the first.
    prepared.open();
    await runOnce('REPLAY');
    await idle();
    const r = await withPlaybook(() => runOnce('PLAYBOOK'));
    exec.push(r.execution);
    addSteps(stepTimes.playbook, r.steps);
    addSample(stageSamples.playbook, r.stages);
    wall.push(r.wall);
    queue.push(r.queue);
    await idle();
    const rp = await runOnce('REPLAY');
    replayExec.push(rp.execution);
    addSteps(stepTimes.replay, rp.steps);
    addSample(stageSamples.replay, rp.stages);
    replayWall.push(rp.wall);
    await prepared.close();
    // Arm B, the same requests with no context kept (AGENTLINK_WARM_CONTEXT_SECONDS=0): each run opens its own.
    await idle();
    const rB = await withPlaybook(() => runOnce('PLAYBOOK'));
    arms.execB.push(rB.execution);
    arms.wallB.push(rB.wall);
    addSample(stageSamples.playbookB, rB.stages);
    await idle();
    const rpB = await runOnce('REPLAY');
    arms.replayExecB.push(rpB.execution);
    arms.replayWallB.push(rpB.wall);
    addSample(stageSamples.replayB, rpB.stages);
  }
  if (model.calls !== modelCalls) throw new Error(`replays called the model ${model.calls - modelCalls} times`);

  const f = median(floor);
  const row = (label: string, xs: number[], ratio = true) =>
    `  ${label.padEnd(50)} ${ms(median(xs))}  p90 ${ms(p90(xs))}${ratio ? `   ${(median(xs) / f).toFixed(2)} x floor` : ''}`;
  const lines = [
    '',
    `Agent benchmark: Orbit "${ACTION}" → {name, followers}, ${RUNS} runs each, median and p90 (${os.cpus().length} CPUs, node ${process.version})`,
    row('floor: hand-written Playwright script', floor, false),
    // The worker answers before its context is closed (it closes while the outcome is written): the floor's own time to
    // its answer, for comparison; the ratios stay on the floor's whole time, close included, as before.
    row('floor: the same, until the profile is read', floorRead),
    row('playbook: worker run (executionTimeMs)', exec),
    row('playbook: whole request (POST → COMPLETED)', wall),
    row('replay: worker run (executionTimeMs), 0 model calls', replayExec),
    row('replay: whole request (POST → COMPLETED)', replayWall),
    row('queue latency: accepted → RUNNING, idle worker', queue, false),
    '  B: the same, with no context kept for the next run (AGENTLINK_WARM_CONTEXT_SECONDS=0): each run opens its own:',
    row('B playbook: worker run (executionTimeMs)', arms.execB),
    row('B playbook: whole request (POST → COMPLETED)', arms.wallB),
    row('B replay: worker run (executionTimeMs), 0 model calls', arms.replayExecB),
    row('B replay: whole request (POST → COMPLETED)', arms.replayWallB),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(`\n  Where the time goes, per stage (server/agent/run/stages.ts; the floor's own stages timed alike):\n`);
  const table = stageTable(stageSamples.floor, [
    { label: 'playbook', samples: stageSamples.playbook },
    { label: 'replay', samples: stageSamples.replay },
    { label: 'B playbook', samples: stageSamples.playbookB },
    { label: 'B replay', samples: stageSamples.replayB },
  ]);
  process.stdout.write(`${table.join('\n')}\n`);
  if (values.steps) {
    for (const [label, map] of Object.entries(stepTimes)) {
      process.stdout.write(`\n  ${label}: median of each trace step (the rest of executionTimeMs is outside any step)\n`);
      for (const [step, xs] of map) process.stdout.write(`    ${step.padEnd(60)} ${ms(median(xs))}\n`);
    }
  }

  // ---------- throughput: N at once through the API vs the floor script with the worker's parallelism ----------
  const parallel = config.worker.concurrency;
  process.stdout.write(
    `\nThroughput: ${ACTIONS} actions each; the floor ${parallel} at a time (the worker's concurrency), half before and half after the API burst …\n`,
  );
  const burst = async (n: number) => {
    setPlaybook(true);
    try {
      const created = await Promise.all(Array.from({ length: n }, () => send('POST', '/api/agent-requests', request)));
      return await Promise.all(
        created.map(async (c) => {
          if (c.status !== 202) return `HTTP ${c.status} ${c.body?.code ?? ''}`.trim();
          for (;;) {
            const r = await send('GET', `/api/agent-requests/${c.body.requestId}?waitMs=30000`);
            if (r.status !== 200) return `GET HTTP ${r.status} ${r.body?.code ?? ''}`.trim();
            if (FINAL.has(r.body.status))
              return r.body.status === 'COMPLETED' ? `COMPLETED ${r.body.method}` : `${r.body.status} ${r.body.error?.code}`;
          }
        }),
      );
    } finally {
      setPlaybook(false);
    }
  };
  const tp = await measureThroughput({
    actions: ACTIONS,
    parallel,
    floorOnce,
    fencedOnce: fencedFloor(services, ex.connectionId, ORBIT_PROVIDER_ID, floorSteps),
    burst,
    expected: 'COMPLETED PLAYBOOK',
  });
  process.stdout.write(`${[...throughputRows(tp, ACTIONS), ''].join('\n')}\n`);

  await worker.stop({ graceMs: 0 });
  await services.queue.stop();
  await services.browsers.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
  await model.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
