import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { z } from 'zod';

import { createAgentWorker } from '../../server/agent/worker/runtime';
import type { AgentWorker } from '../../server/agent/worker/worker';
import { createLogger } from '../../server/logger';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { awaitRequest, connectOrbit, createRequest, eventually, type LiveOrg, liveOrg } from './agent-support';

/**
 * A worker in a separate process claims two requests, then dies by SIGKILL mid-run. Another worker (this
 * process) recovers them once their leases run out: the one with an attempt left is run again and
 * completes; the one already on its last attempt fails with WORKER_LOST. Nothing stays RUNNING.
 */
jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');
// Short, so the dead worker's requests come back soon; not shorter: the two processes share one SQLite file and a busy
// machine, and a live child's renewal that waited on the other process's write (or on a starved event loop) longer than
// the lease lost its own lease; its sweep then failed the request as WORKER_LOST before its run began. Seen with 2 s
// beside three jest workers, and with 5 s beside four jest workers and a CPU burner on each core.
const LEASE_SECONDS = 10;
const ENV = {
  AGENTLINK_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  AGENTLINK_LEASE_SECONDS: String(LEASE_SECONDS),
  AGENTLINK_WORKER_POLL_MS: '100',
  AGENTLINK_WORKER_MAX_ATTEMPTS: '2',
};

let live: LiveServer;
let org: LiveOrg;
let child: ChildProcess | undefined;
let worker: AgentWorker | undefined;

beforeAll(async () => {
  live = await startLiveServer({ env: ENV });
  org = await liveOrg(live);
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await worker?.stop({ graceMs: 0 });
  await live?.services.browsers.close();
  await live?.close();
});

function startChildWorker(): { proc: ChildProcess; lines: string[] } {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/agent/fixtures/crash-worker.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: String(live.port),
      AGENTLINK_PUBLIC_URL: live.baseUrl,
      AGENTLINK_DATA_DIR: live.dataDir,
      AGENTLINK_WORKER_CONCURRENCY: '2',
      ...ENV,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  proc.stdout!.on('data', (d: Buffer) => lines.push(...d.toString('utf8').split('\n').filter(Boolean)));
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  proc.on('exit', (code, signal) => {
    if (code !== null && code !== 0) lines.push(`EXIT ${code} ${stderr.slice(-2000)}`);
    void signal;
  });
  return { proc, lines };
}

it('recovers the requests of a worker killed with SIGKILL: re-run once, else WORKER_LOST, within a bounded time', async () => {
  const conn = await connectOrbit(live, org);
  const body = {
    accessToken: conn.accessToken,
    action: 'test: slow',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { ok: 'boolean' },
  };
  const rerun = await createRequest(live, org, body);
  const lost = await createRequest(live, org, body);
  // `lost` already used one attempt on a worker that died before: this is its last.
  await live.services.store.dataSource.query('UPDATE agent_requests SET attempts = 1 WHERE id = ?', [lost]);

  const { proc, lines } = startChildWorker();
  child = proc;
  const repo = live.services.store.repos.agentRequests;
  // The rows' states ride along, so a wait that runs out says where each request was.
  const states = async () => [(await repo.findById(rerun))?.status, (await repo.findById(lost))?.status];
  await eventually(
    async () => ({ lines: lines.slice(), states: await states() }),
    ({ lines: l }) => l.some((x) => x.startsWith('EXIT')) || (l.includes(`CLAIMED ${rerun}`) && l.includes(`CLAIMED ${lost}`)),
    // A child process that starts from TypeScript: on a busy machine its start alone has taken most of 30 s.
    60_000,
  );
  expect(lines).toEqual(expect.arrayContaining([`CLAIMED ${rerun}`, `CLAIMED ${lost}`]));
  expect((await repo.findById(rerun))?.status).toBe('RUNNING');

  proc.kill('SIGKILL');
  await new Promise((resolve) => proc.once('exit', resolve));

  // The surviving worker knows "test: slow" as a quick routine.
  live.services.playbooks.register({
    providerSlug: 'orbit',
    name: 'test.slow',
    description: 'finishes at once in this process',
    writes: false,
    examples: ['test: slow'],
    resultFields: { ok: 'boolean' },
    parameters: z.unknown(),
    run: async () => ({ ok: true }),
  });
  worker = createAgentWorker(live.services, createLogger('silent'));
  await worker.start();

  const [done, failed] = await Promise.all([awaitRequest(live, org, rerun), awaitRequest(live, org, lost)]);
  expect(done).toMatchObject({ status: 'COMPLETED', result: { ok: true }, method: 'PLAYBOOK' });
  expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'WORKER_LOST', message: expect.stringMatching(/2 attempts/) } });
  expect((await repo.findById(rerun))?.attempts).toBe(2);
  // The API says how many attempts there were, and its trace which worker ran each: the dead one, then this one.
  type Step = { tool: string; target?: string; outcome: string; error?: string };
  const attemptsOf = (r: { trace: Step[] }) => r.trace.filter((s) => s.tool === 'attempt');
  expect(done.attempts).toBe(2);
  const [first, second] = attemptsOf(done);
  expect(first).toMatchObject({
    target: expect.stringMatching(/^attempt 1 on worker \S+:\d+:[0-9a-f]{8}$/),
    outcome: 'error',
    error: expect.stringMatching(/stopped renewing its lease/),
  });
  expect(second).toMatchObject({ target: expect.stringMatching(/^attempt 2 on worker /), outcome: 'ok' });
  expect(first!.target!.replace(/^attempt 1/, '')).not.toBe(second!.target!.replace(/^attempt 2/, ''));
  expect(failed.attempts).toBe(2);
  // (It was put on its last attempt by hand, so only the dead worker's attempt is on record.)
  expect(attemptsOf(failed).at(-1)).toMatchObject({ outcome: 'error', error: expect.stringMatching(/stopped responding/) });
  expect((await repo.findById(lost))?.attempts).toBe(2);
  // How soon after the kill is the machine's speed: the lease running out (the first attempt's error above) is what
  // recovers the runs, and awaitRequest's bound is only how long the test waits for it.
});
