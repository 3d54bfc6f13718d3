/** The bench's child servers: AgentLink and the floor, each in its own process on 127.0.0.1. */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { ServerMessage } from '../servers/protocol';

export interface ChildServer {
  name: string;
  child: ChildProcess;
  base: string;
  ready: Extract<ServerMessage, { type: 'ready' }>;
}

export const pending = new Set<ChildProcess>();
let tempDir: string | undefined;

/** The temp folder both servers keep their data in; removed by cleanup(). */
export function makeTempDir(): string {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-'));
  return tempDir;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The child's environment: the parent's, minus anything that would take AgentLink off the embedded default. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('AGENTLINK_') || k.startsWith('BENCH_')) continue;
    if (['DATABASE_URL', 'BROWSER_WS_ENDPOINT', 'PORT', 'HOST', 'LOG_LEVEL'].includes(k)) continue;
    env[k] = v;
  }
  return { ...env, NODE_ENV: 'production', ...extra };
}

export async function startServer(name: string, entry: string, env: Record<string, string>, execArgv: string[] = []): Promise<ChildServer> {
  const port = await freePort();
  const child = fork(path.join(__dirname, '..', 'servers', entry), [], {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: childEnv({ ...env, BENCH_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  pending.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const ready = await new Promise<Extract<ServerMessage, { type: 'ready' }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 120 s\n${output}`)), 120_000);
    child.on('message', (m: ServerMessage) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === 'fatal') {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start:\n${m.message}\n${output}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})\n${output}`));
    });
  });
  const server: ChildServer = { name, child, base: `http://127.0.0.1:${ready.port}`, ready };
  child.on('exit', (code, signal) => {
    if (!shuttingDown) process.stderr.write(`\n${name} server exited unexpectedly (code ${code}, signal ${signal})\n${output}\n`);
  });
  return server;
}

export let shuttingDown = false;

export async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function cleanup() {
  shuttingDown = true;
  await Promise.all([...pending].map((c) => stopChild(c).catch(() => undefined)));
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}
