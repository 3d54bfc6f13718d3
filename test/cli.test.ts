import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadConfig } from '../server/config';
import { ManualClock } from '../server/domain/clock';
import { OrganizationService } from '../server/domain/organizations.service';
import { Store } from '../server/store';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tsx server/main.ts …` as a child process, with a clean environment pointing at `dataDir`. */
function cli(dataDir: string, args: string[]): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'test', LOG_LEVEL: 'silent', AGENTLINK_DATA_DIR: dataDir };
  return new Promise((resolve) => {
    execFile(TSX, ['server/main.ts', ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Each run starts a TypeScript process; give them room on a busy machine.
jest.setTimeout(120_000);

describe('agentlink CLI (server/main.ts)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-cli-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  let created: { organizationId: string; name: string; clientId: string; sandboxSecret: string; productionSecret: string };

  it('org create --name X --json prints the credentials once, as JSON', async () => {
    const run = await cli(dataDir, ['org', 'create', '--name', 'CLI Test Org', '--json']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    created = JSON.parse(run.stdout);
    expect(created).toStrictEqual({
      organizationId: expect.stringMatching(/^org_[0-9a-f]{24}$/),
      name: 'CLI Test Org',
      clientId: expect.stringMatching(/^cli_[0-9a-f]{24}$/),
      sandboxSecret: expect.stringMatching(/^sk_sandbox_[A-Za-z0-9_-]{43}$/),
      productionSecret: expect.stringMatching(/^sk_production_[A-Za-z0-9_-]{43}$/),
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
