import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where the real apps are installed (`npm run test:real-apps` puts them there) and how one runs as a child process
 * on loopback: started with its own data folder, waited for until it answers HTTP, stopped by its process id.
 */
export const APPS_PACKAGE_DIR = path.join(__dirname, 'apps');

/** The install folder: AGENTLINK_REAL_APPS_DIR, else a cache folder in the home directory, one per lockfile version. */
export function appsDir(): string {
  if (process.env.AGENTLINK_REAL_APPS_DIR) return path.resolve(process.env.AGENTLINK_REAL_APPS_DIR);
  return path.join(os.homedir(), '.cache', 'agentlink-real-apps');
}

/** The app package's folder inside the install (throws with the command to run when it is not installed). */
export function installedPackage(name: string): string {
  const dir = path.join(appsDir(), 'node_modules', name);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    throw new Error(`${name} is not installed in ${appsDir()}: run \`npm run test:real-apps\` (it installs the real apps first)`);
  }
  return dir;
}

/** A module of the install (bcryptjs, say), loaded from the install's node_modules rather than the project's. */
export function requireFromApps<T>(name: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(require.resolve(name, { paths: [appsDir()] })) as T;
}

export interface AppProcess {
  child: ChildProcess;
  /** What the app printed (kept for the error when it does not come up). */
  output(): string;
  stop(): Promise<void>;
}

export function startProcess(command: string, args: string[], cwd: string): AppProcess {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killed);
      }
    },
  };
}

/** Waits until `url` answers with a status below 500 (the app is listening), or fails with what the app printed. */
export async function waitUntilServing(proc: AppProcess, url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the app exited (${proc.child.exitCode}) before serving ${url}:\n${proc.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `agentlink-${prefix}-`));
}
