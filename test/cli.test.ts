import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import request from 'supertest';

import { loadConfig } from '../server/config';
import { ManualClock } from '../server/domain/clock';
import { OrganizationService } from '../server/domain/organizations.service';
import { Store } from '../server/store';
import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from './support/app';
import { freePort } from './support/free-port';

const ROOT = path.resolve(__dirname, '..');
/** The package's `agentlink` bin (what `npx agentlink` runs): the TypeScript sources through tsx in a checkout. */
const BIN = path.join(ROOT, 'bin', 'agentlink.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `agentlink …` as a child process, with a clean environment pointing at `dataDir` (plus `extraEnv`). */
function cli(dataDir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: os.tmpdir(),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AGENTLINK_DATA_DIR: dataDir,
    ...extraEnv,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Each run starts a TypeScript process; give them room on a busy machine.
jest.setTimeout(120_000);

describe('agentlink CLI (bin/agentlink.js → server/main.ts)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-cli-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  let created: { organizationId: string; name: string; clientId: string; sandboxSecret: string; productionSecret: string };

  it('org create --name X --json prints the credentials once, as JSON', async () => {
    const run = await cli(dataDir, ['org', 'create', '--name', 'CLI Test Org', '--json']);
    expect(run.code).toBe(0);
    // A fresh data folder: the database is NEW, and stderr says so loudly (stdout stays the JSON alone).
    expect(run.stderr).toContain('WARNING: creating a NEW AgentLink database');
    created = JSON.parse(run.stdout);
    expect(created).toStrictEqual({
      organizationId: expect.stringMatching(/^org_[0-9a-f]{24}$/),
      name: 'CLI Test Org',
      clientId: expect.stringMatching(/^cli_[0-9a-f]{24}$/),
      sandboxSecret: expect.stringMatching(/^sk_sandbox_[A-Za-z0-9_-]{43}$/),
      productionSecret: expect.stringMatching(/^sk_production_[A-Za-z0-9_-]{43}$/),
      baseUrl: 'http://localhost:4000',
      dashboardUrl: 'http://localhost:4000/dashboard',
    });
    expect(fs.existsSync(path.join(dataDir, 'agentlink.sqlite'))).toBe(true);
  });

  it('org list --json lists it without secrets', async () => {
    const run = await cli(dataDir, ['org', 'list', '--json']);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout);
    expect(rows).toStrictEqual([
      {
        organizationId: created.organizationId,
        name: 'CLI Test Org',
        clientId: created.clientId,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(run.stdout).not.toContain(created.sandboxSecret);
    expect(run.stdout).not.toContain(created.productionSecret);
    expect(run.stdout).not.toContain('scrypt$');
  });

  it('org rotate-secret issues a new secret; the old one stops working', async () => {
    const run = await cli(dataDir, ['org', 'rotate-secret', '--org', created.clientId, '--env', 'sandbox', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toStrictEqual({
      organizationId: created.organizationId,
      clientId: created.clientId,
      environment: 'sandbox',
      secret: expect.stringMatching(/^sk_sandbox_[A-Za-z0-9_-]{43}$/),
    });
    // Check against the same database, in process.
    const config = loadConfig({ AGENTLINK_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const store = await Store.open(config.database);
    try {
      const orgs = new OrganizationService(store, new ManualClock());
      expect((await orgs.authenticate(created.clientId, out.secret)).ok).toBe(true);
      expect(await orgs.authenticate(created.clientId, created.sandboxSecret)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_CLIENT_CREDENTIALS' },
      });
      expect(await orgs.authenticate(created.clientId, created.productionSecret)).toMatchObject({
        ok: true,
        value: { environment: 'production' },
      });
    } finally {
      await store.close();
    }
  });

  it('exits 2 with a usage message on bad arguments', async () => {
    const badEnv = await cli(dataDir, ['org', 'rotate-secret', '--org', created.clientId, '--env', 'staging']);
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toMatch(/org rotate-secret needs --org <clientId\|orgId> and --env sandbox\|production/);
    expect(badEnv.stdout).toBe('');
    const badCmd = await cli(dataDir, ['nonsense']);
    expect(badCmd.code).toBe(2);
    expect(badCmd.stderr).toMatch(/^usage: agentlink <command>/);
  });

  it('exits 2 for an unknown organization', async () => {
    const unknownOrg = await cli(dataDir, ['org', 'rotate-secret', '--org', 'cli_000000000000000000000000', '--env', 'production']);
    expect(unknownOrg.code).toBe(2);
    expect(unknownOrg.stderr).toMatch(/no organization cli_000000000000000000000000/);
  });
});

describe('agentlink CLI: the URLs it prints, and organizations managed in the dashboard', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t?.close());
  const env = () => ({ AGENTLINK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });

  it('org create prints the base URL of the configuration it reads: AGENTLINK_PUBLIC_URL, else http://localhost:$PORT', async () => {
    const byPort = await cli(t.dataDir, ['org', 'create', '--name', 'Port Org'], { ...env(), PORT: '4567' });
    expect(byPort.code).toBe(0);
    expect(byPort.stdout).toContain('Base URL           http://localhost:4567');
    expect(byPort.stdout).toContain('AGENTLINK_BASE_URL=http://localhost:4567');
    expect(byPort.stdout).toContain('sign up at http://localhost:4567/dashboard/sign-up');
    // The follow-up command carries the configuration that differs from the defaults.
    expect(byPort.stdout).toMatch(
      new RegExp(
        `PORT=4567 AGENTLINK_DATA_DIR=${t.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} npx agentlink org add-member --org cli_[0-9a-f]{24} --email you@example.com --role owner`,
      ),
    );
    const byUrl = await cli(t.dataDir, ['org', 'create', '--name', 'URL Org', '--json'], {
      ...env(),
      PORT: '4567',
      AGENTLINK_PUBLIC_URL: 'https://agentlink.example.com/',
    });
    expect(JSON.parse(byUrl.stdout)).toMatchObject({
      baseUrl: 'https://agentlink.example.com',
      dashboardUrl: 'https://agentlink.example.com/dashboard',
    });
  });

  it('org add-member gives a dashboard account access to an organization created with the CLI', async () => {
    const created = JSON.parse((await cli(t.dataDir, ['org', 'create', '--name', 'Managed Org', '--json'], env())).stdout);
    const email = `Owner-${Date.now()}@Example.com`;

    const unknown = await cli(t.dataDir, ['org', 'add-member', '--org', created.clientId, '--email', email], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `No dashboard account has the email ${email}: sign up at http://localhost:4000/dashboard/sign-up first`,
    );

    // A person signs up in the dashboard (over HTTP): no organization yet.
    const signUpPage = await request(t.baseUrl).get('/dashboard/sign-up');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(signUpPage.text)![1];
    const signedUp = await request(t.baseUrl)
      .post('/dashboard/sign-up')
      .set('Cookie', cookieOf(signUpPage))
      .type('form')
      .send({ email, password: 'correct horse battery staple', _csrf: csrf });
    expect(signedUp.status).toBe(303);
    const session = cookieOf(signedUp);
    expect((await request(t.baseUrl).get(`/dashboard/orgs/${created.organizationId}`).set('Cookie', session)).status).toBe(404);

    const added = await cli(
      t.dataDir,
      ['org', 'add-member', '--org', created.clientId, '--email', email, '--role', 'owner', '--json'],
      env(),
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toStrictEqual({
      organizationId: created.organizationId,
      clientId: created.clientId,
      email: email.toLowerCase(),
      role: 'owner',
      dashboardUrl: `http://localhost:4000/dashboard/orgs/${created.organizationId}`,
    });
    const orgPage = await request(t.baseUrl).get(`/dashboard/orgs/${created.organizationId}`).set('Cookie', session);
    expect(orgPage.status).toBe(200);
    expect(orgPage.text).toContain('Managed Org');
    expect(orgPage.text).toContain(created.clientId);
    // Again: nothing changes, and the answer says so.
    const again = await cli(t.dataDir, ['org', 'add-member', '--org', created.organizationId, '--email', email], env());
    expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('is an owner of Managed Org') });
    expect((await cli(t.dataDir, ['org', 'add-member', '--org', created.clientId, '--email', email, '--role', 'admin'], env())).code).toBe(
      2,
    );
  });

  it('serve names the dashboard in its banner; GET / redirects to it', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--role', 'api'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: String(port),
        AGENTLINK_DATA_DIR: t.dataDir,
        ...env(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const until = Date.now() + 60_000;
      while (!out.includes('AgentLink is running') && Date.now() < until && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`  Dashboard http://localhost:${port}/dashboard`);
      expect(out).toContain(`PORT=${port} AGENTLINK_DATA_DIR=`);
      const root = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/dashboard');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});

function cookieOf(res: request.Response): string {
  const raw = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return raw.find((c) => c.startsWith('agentlink_dashboard='))!.split(';')[0];
}
