import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

import YAML from 'yaml';

import { freePort } from '../support/free-port';
import { installedPackage, requireFromApps, startProcess, tempDir, waitUntilServing } from './app-process';

const run = promisify(execFile);

/**
 * Verdaccio, the private npm registry (its React web UI): run from the install with a config of our own — no uplink
 * (it never reaches out), packages visible to signed-in users only, one user in an htpasswd file (bcrypt, as its
 * htpasswd plugin writes it), registration off — and a few packages published through its own registry API with
 * the real npm client, so the UI lists what a person published.
 */
export const VERDACCIO_USER = { username: 'ada', password: 'corpus-Verdaccio-7' };

/** What the registry holds: a scoped package at a pre-1.0 version (its UI prints `v0.9.0`), and two others. */
export const VERDACCIO_PACKAGES = [
  { name: '@acme/ledger-sync', version: '0.9.0', description: 'Syncs ledger entries between accounting systems' },
  { name: 'tiny-cron-parse', version: '2.4.1', description: 'Parses cron expressions into schedules' },
  { name: 'color-tokens', version: '1.12.0', description: 'Design tokens for colour palettes' },
];

export interface RunningVerdaccio {
  baseUrl: string;
  version: string;
  stop(): Promise<void>;
}

export async function startVerdaccio(): Promise<RunningVerdaccio> {
  const pkgDir = installedPackage('verdaccio');
  const version = (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = tempDir('verdaccio');
  const port = await freePort();
  const bcrypt = requireFromApps<{ hashSync(s: string, rounds: number): string }>('bcryptjs');
  fs.writeFileSync(path.join(dir, 'htpasswd'), `${VERDACCIO_USER.username}:${bcrypt.hashSync(VERDACCIO_USER.password, 10)}:autocreated\n`);
  const config = {
    storage: path.join(dir, 'storage'),
    auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: -1 } },
    uplinks: {},
    packages: { '**': { access: '$authenticated', publish: '$authenticated' } },
    web: { title: 'Acme packages', enable: true },
    listen: `127.0.0.1:${port}`,
    log: { type: 'stdout', format: 'json', level: 'warn' },
  };
  fs.writeFileSync(path.join(dir, 'config.yaml'), YAML.stringify(config));
  const proc = startProcess(process.execPath, [path.join(pkgDir, 'bin', 'verdaccio'), '--config', path.join(dir, 'config.yaml')], dir);
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(proc, `${baseUrl}/-/ping`);
    await publishPackages(baseUrl, dir);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, version, stop };
}

/** Signs in through the registry API (what `npm login` does), then publishes each package with the npm client. */
async function publishPackages(baseUrl: string, dir: string): Promise<void> {
  const login = await fetch(`${baseUrl}/-/user/org.couchdb.user:${VERDACCIO_USER.username}`, {
    method: 'PUT',
    // Signing in (not registering) is the same call with the user's Basic credentials, as `npm login --auth-type=legacy` sends.
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${VERDACCIO_USER.username}:${VERDACCIO_USER.password}`).toString('base64')}`,
    },
    body: JSON.stringify({ name: VERDACCIO_USER.username, password: VERDACCIO_USER.password }),
  });
  const { token } = (await login.json()) as { token?: string };
  if (!token) throw new Error(`verdaccio login: ${login.status}`);
  const npmrc = path.join(dir, '.npmrc');
  fs.writeFileSync(npmrc, `//${new URL(baseUrl).host}/:_authToken=${token}\n`);
  for (const p of VERDACCIO_PACKAGES) {
    const src = path.join(dir, 'src', p.name.replace('/', '__'));
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(
      path.join(src, 'package.json'),
      JSON.stringify({ name: p.name, version: p.version, description: p.description, license: 'MIT' }),
    );
    fs.writeFileSync(path.join(src, 'README.md'), `# ${p.name}\n\n${p.description}.\n`);
    fs.writeFileSync(path.join(src, 'index.js'), 'module.exports = {};\n');
    await run(
      'npm',
      ['publish', '--registry', `${baseUrl}/`, '--userconfig', npmrc, '--access', 'public', '--no-audit', '--ignore-scripts'],
      {
        cwd: src,
      },
    );
  }
}
