import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CHROMIUM_ARGS, resolveChromiumPath, sharedMemoryLaunchOptions } from '../../server/browser/chromium';

/** A Chromium with its DevTools endpoint on loopback, as a remote browser (BROWSER_WS_ENDPOINT) of a worker. */
export interface RemoteChromium {
  wsEndpoint: string;
  process: ChildProcess;
  /** SIGKILL, as a crash or a lost browser machine would end it; resolves once the process is gone. */
  kill(): Promise<void>;
}

/** `port`: a fixed DevTools port, so a restarted browser answers at the same http:// address (as a sidecar does). */
export async function startRemoteChromium(timeoutMs = 30_000, port = 0, opts: { agentlinkFlags?: boolean } = {}): Promise<RemoteChromium> {
  const executable = await resolveChromiumPath();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-test-chromium-'));
  const proc = spawn(
    executable,
    [
      '--headless=new',
      // The flags AgentLink launches its own Chromium with, as the compose file's sidecar has them (unless a test asks for a bare one).
      ...(opts.agentlinkFlags === false ? ['--no-sandbox'] : CHROMIUM_ARGS),
      // Shared memory in files where /dev/shm is small (a container's 64 MB), as AgentLink's own launch does.
      ...sharedMemoryLaunchOptions().args,
      '--remote-debugging-address=127.0.0.1',
      `--remote-debugging-port=${port}`,
      // As a browser sidecar runs: no throttling of pages that are not visible.
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  void exited.then(() => fs.rmSync(profile, { recursive: true, force: true }));
  const wsEndpoint = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`Chromium printed no DevTools endpoint within ${timeoutMs} ms: ${stderr.slice(-500)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-10_000);
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        proc.stderr!.off('data', onData);
        resolve(m[1]);
      }
    };
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before listening: ${stderr.slice(-500)}`));
    });
  });
  proc.stderr!.resume();
  return {
    wsEndpoint,
    process: proc,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}
