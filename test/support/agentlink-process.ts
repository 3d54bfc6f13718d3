import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

import { freePort } from './free-port';

/**
 * `agentlink <command>` as a child process on 127.0.0.1 (another API or worker process of the same service, for the
 * multi-process tests): started with only the environment given (plus PATH and HOME), ready once /healthz answers.
 */
export interface AgentlinkProcess {
  proc: ChildProcess;
  base: string;
  port: number;
  /** The last few KB of its stderr (for failure messages). */
  stderr(): string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');

export async function startAgentlinkProcess(args: string[], env: Record<string, string>): Promise<AgentlinkProcess> {
  const port = await freePort();
  let stderr = '';
  const proc = spawn(process.execPath, [path.join(ROOT, 'bin/agentlink.js'), ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  proc.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-5_000)));
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > until || proc.exitCode !== null) throw new Error(`agentlink ${args.join(' ')} did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    proc,
    base,
    port,
    stderr: () => stderr,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((resolve) => proc.once('exit', resolve));
    },
  };
}
