import fs from 'node:fs';
import path from 'node:path';

import { freePort } from '../support/free-port';
import { installedPackage, requireFromApps, startProcess, tempDir, waitUntilServing } from './app-process';

/**
 * Node-RED, the low-code flow editor: run from the install with a settings file of our own — the editor behind its
 * own sign-in (adminAuth, one user with a bcrypt hash, as `node-red admin hash-pw` makes), listening on 127.0.0.1 —
 * and a flows file with three flows (editor tabs), so a signed-in person sees a real workspace. Its palette manager
 * still asks its vendor's catalogue host in the background, as it does out of the box.
 */
export const NODE_RED_USER = { username: 'grace', password: 'corpus-NodeRed-7' };

/** The flows (editor tabs) and the description each shows in the editor's info panel. */
export const NODE_RED_FLOWS = [
  { label: 'Invoice sync', info: 'Copies paid invoices to the ledger every hour.' },
  { label: 'Sensor alerts', info: 'Pages the on-call engineer when a reading crosses its threshold.' },
  { label: 'Nightly backup', info: 'Archives the flow files to cold storage at 02:00.' },
];

export interface RunningNodeRed {
  baseUrl: string;
  version: string;
  stop(): Promise<void>;
}

/** The flows file: one tab per flow, each with an inject → debug pair so the canvas has nodes on it. */
function flows(): unknown[] {
  return NODE_RED_FLOWS.flatMap(({ label, info }, i) => {
    const tab = `tab${i + 1}`;
    return [
      { id: tab, type: 'tab', label, disabled: false, info },
      {
        id: `${tab}-in`,
        type: 'inject',
        z: tab,
        name: `Start ${label}`,
        repeat: '3600',
        once: false,
        x: 150,
        y: 80,
        wires: [[`${tab}-out`]],
      },
      { id: `${tab}-out`, type: 'debug', z: tab, name: `${label} log`, active: true, complete: 'payload', x: 400, y: 80, wires: [] },
    ];
  });
}

export async function startNodeRed(): Promise<RunningNodeRed> {
  const pkgDir = installedPackage('node-red');
  const version = (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = tempDir('node-red');
  const port = await freePort();
  const bcrypt = requireFromApps<{ hashSync(s: string, rounds: number): string }>('bcryptjs');
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    userDir: dir,
    flowFile: 'flows.json',
    credentialSecret: false,
    adminAuth: {
      type: 'credentials',
      users: [{ username: NODE_RED_USER.username, password: bcrypt.hashSync(NODE_RED_USER.password, 8), permissions: '*' }],
    },
    logging: { console: { level: 'warn', metrics: false, audit: false } },
    editorTheme: { tours: false },
    telemetry: { enabled: false },
  };
  fs.writeFileSync(path.join(dir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows(), null, 2));
  const proc = startProcess(process.execPath, [path.join(pkgDir, 'red.js'), '--settings', path.join(dir, 'settings.js')], dir);
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(proc, `${baseUrl}/auth/login`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, version, stop };
}
