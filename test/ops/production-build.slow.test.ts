import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The production path, as the Dockerfile runs it: a clean copy of the repository (its git files), built with
 * `npm run build` (TypeScript from the dev dependencies), then `npm ci --omit=dev` and `npm run start:prod`
 * (node dist/server/main.js serve): no tsx, no TypeScript, no dev dependency. It must answer /healthz and /readyz
 * (browser included), serve its runtime assets from dist/, create an organization with the CLI, and run an agent
 * request end to end in real Chromium. Slow: `npm ci` compiles sqlite3 from source (no prebuilt downloads here).
 */
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const TIMEOUT_MS = 35 * 60_000;
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
  const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, maxBuffer: 64 << 20 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    const source = path.join(ROOT, file);
    if (file === 'node_modules' || !fs.existsSync(source) || fs.lstatSync(source).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.copyFileSync(source, path.join(to, file));
  }
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

let dir: string;
let server: ChildProcess | undefined;

beforeAll(() => {
  // Named like the other test folders, so global-setup sweeps it if a run is killed.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-test-${process.pid}-prod-`));
});

afterAll(async () => {
  if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`\n[production build] seconds per phase: ${JSON.stringify(timings)}\n`);
});

it(
  'builds, installs without dev dependencies, starts with npm run start:prod, and serves the API, the CLI and agent runs',
  async () => {
    await timed('copy', () => copyRepository(dir));

    // Build stage: the dev dependencies of this checkout (TypeScript, @types), then nothing of them is kept.
    fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
    await timed('build', () => run('npm', ['run', 'build'], { cwd: dir, env: baseEnv(), timeout: 5 * 60_000 }));
    fs.unlinkSync(path.join(dir, 'node_modules'));
    expect(fs.existsSync(path.join(dir, 'dist/server/main.js'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'dist/server/connect/widget/widget.html'))).toBe(true);

    // Runtime stage: production dependencies only, install scripts run (sqlite3 builds its native module).
    await timed('npm ci --omit=dev', () =>
      run('npm', ['ci', '--omit=dev', '--ignore-scripts=false', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: dir,
        env: baseEnv(),
        // sqlite3's compile alone takes 2 CPU-minutes, and far longer on a machine shared with other builds.
        timeout: 25 * 60_000,
        maxBuffer: 64 << 20,
      }),
    );
    for (const devOnly of ['tsx', 'typescript', 'jest', 'ts-jest', 'esbuild', '@types/node']) {
      expect({ devOnly, installed: fs.existsSync(path.join(dir, 'node_modules', devOnly)) }).toEqual({ devOnly, installed: false });
    }

    const port = await freePort();
    const dataDir = path.join(dir, 'data');
    const env = {
      ...baseEnv(),
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      AGENTLINK_PUBLIC_URL: `http://localhost:${port}`,
      AGENTLINK_DATA_DIR: dataDir,
      AGENTLINK_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    };
    const base = `http://localhost:${port}`;
    let output = '';
    await timed('start', async () => {
      server = spawn('npm', ['run', 'start:prod'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      server.stdout!.on('data', (d: Buffer) => (output = (output + d.toString('utf8')).slice(-20_000)));
      server.stderr!.on('data', (d: Buffer) => (output = (output + d.toString('utf8')).slice(-20_000)));
      const until = Date.now() + 60_000;
      while (!output.includes('AgentLink is running')) {
        if (server.exitCode !== null || Date.now() > until) throw new Error(`start:prod did not start:\n${output}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    expect(output).toContain('> node dist/server/main.js serve');

    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await timed('readyz', () => fetch(`${base}/readyz`));
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { database: { status: 'ok' }, queue: { status: 'ok' }, browser: { status: 'ok' } } },
    });
    // Runtime assets found from dist/ and from node_modules.
    for (const asset of ['/link/widget.js', '/link/widget.css', '/link', '/dashboard/assets/pico.min.css', '/openapi.json', '/docs/']) {
      expect({ asset, status: (await fetch(`${base}${asset}`)).status }).toEqual({ asset, status: 200 });
    }

    // The CLI of the built server, against the same data.
    const cli = await timed('org create', () =>
      run(process.execPath, ['dist/server/main.js', 'org', 'create', '--name', 'Production Org', '--json'], { cwd: dir, env }),
    );
    const org = JSON.parse(cli.stdout) as { clientId: string; sandboxSecret: string };
    const headers = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret, 'content-type': 'application/json' };
    const api = async (method: string, urlPath: string, body?: unknown) => {
      const res = await fetch(`${base}${urlPath}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    // An agent run in the built worker: compiled playbook, real Chromium.
    await timed('agent request', async () => {
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
      const done = await api('GET', `/api/agent-requests/${created.body.requestId}?waitMs=60000`);
      expect(done.body).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { username: 'user_good' } });
    });

    // SIGTERM: a graceful stop.
    await timed('stop', async () => {
      const exited = new Promise<void>((resolve) => server!.once('exit', () => resolve()));
      process.kill(-server!.pid!, 'SIGTERM');
      await Promise.race([
        exited,
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no exit after SIGTERM:\n${output}`)), 30_000)),
      ]);
    });
    expect(output).not.toContain('unhandled error');
  },
  TIMEOUT_MS,
);
