import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import request from 'supertest';

import { createTestApp, TEST_ENCRYPTION_KEY, type TestApp } from './support/app';

/**
 * `agentlink org remove-member | invite | disable | enable` against the database of a running app (the same data
 * directory): each is checked by what the API and the dashboard then answer.
 */
const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'agentlink.js');

function cli(dataDir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: os.tmpdir(),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    AGENTLINK_DATA_DIR: dataDir,
    AGENTLINK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

jest.setTimeout(180_000);

describe('agentlink org remove-member, invite, disable, enable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('removes a member but never the last owner', async () => {
    const owner = await t.services.dashboard.signUp(`owner-${Date.now()}@example.com`, 'correct horse battery staple', null);
    const member = await t.services.dashboard.signUp(`member-${Date.now()}@example.com`, 'correct horse battery staple', null);
    if (!owner.ok || !member.ok) throw new Error('no accounts');
    const { organization } = await t.services.dashboard.createOrganization(owner.value.user.id, 'CLI Members');
    await t.services.dashboard.addMember(organization.id, member.value.user.email);

    const removed = await cli(t.dataDir, [
      'org',
      'remove-member',
      '--org',
      organization.clientId,
      '--email',
      member.value.user.email,
      '--json',
    ]);
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toStrictEqual({
      organizationId: organization.id,
      clientId: organization.clientId,
      email: member.value.user.email,
      role: 'member',
      removed: true,
    });
    expect(await t.services.dashboard.roleIn(member.value.user.id, organization.id)).toBeNull();

    const lastOwner = await cli(t.dataDir, ['org', 'remove-member', '--org', organization.id, '--email', owner.value.user.email]);
    expect(lastOwner.code).toBe(2);
    expect(lastOwner.stderr).toContain('is the last owner');
    expect(await t.services.dashboard.roleIn(owner.value.user.id, organization.id)).toBe('owner');

    const notMember = await cli(t.dataDir, ['org', 'remove-member', '--org', organization.id, '--email', 'nobody@example.com']);
    expect(notMember.code).toBe(2);
    expect(notMember.stderr).toContain('not a member');
  });

  it('prints an invitation link that opens in the dashboard', async () => {
    const { organization } = await t.services.organizations.create('CLI Invite');
    const made = await cli(t.dataDir, ['org', 'invite', '--org', organization.clientId, '--role', 'owner', '--json']);
    expect(made.code).toBe(0);
    const out = JSON.parse(made.stdout) as { invitationUrl: string; role: string };
    expect(out.role).toBe('owner');
    expect(out.invitationUrl).toMatch(/^http:\/\/localhost:4000\/dashboard\/invitations\/inv_[A-Za-z0-9_-]{43}$/);
    const opened = await request(t.baseUrl).get(new URL(out.invitationUrl).pathname);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('Join CLI Invite');
  });

  it('disables an organization (its credentials refused with ORGANIZATION_DISABLED) and enables it again', async () => {
    const created = await t.services.organizations.create('CLI Disable');
    const call = () =>
      request(t.baseUrl).get('/api/providers').set('x-client-id', created.clientId).set('x-client-secret', created.sandboxSecret);
    expect((await call()).status).toBe(200);

    const disabled = await cli(t.dataDir, ['org', 'disable', '--org', created.clientId]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('CLI Disable');
    expect(disabled.stdout).toContain('is disabled');
    const refused = await call();
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('ORGANIZATION_DISABLED');

    const enabled = await cli(t.dataDir, ['org', 'enable', '--org', created.organization.id, '--json']);
    expect(JSON.parse(enabled.stdout)).toStrictEqual({
      organizationId: created.organization.id,
      clientId: created.clientId,
      disabled: false,
    });
    expect((await call()).status).toBe(200);

    expect((await cli(t.dataDir, ['org', 'disable', '--org', 'cli_nope'])).code).toBe(2);
  });
});
