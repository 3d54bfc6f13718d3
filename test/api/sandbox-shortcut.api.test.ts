import { createHash } from 'node:crypto';

import { sessionAad } from '../../server/domain/connections.service';
import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { QUILL_PROVIDER_ID } from '../../server/integrations/quill/quill.provider';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { describeEachStore } from '../support/app';
import {
  createOrg,
  exchange,
  expectError,
  FORGEHUB_PROVIDER_ID,
  GITHUB_PROVIDER_ID,
  ORBIT_PROVIDER_ID,
  post,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

const PATH = '/api/sandbox/public_token/create';

describeEachStore('sandbox public token shortcut', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Sandbox Co');
  });

  it('connects user_good by default and returns a public token valid 30 minutes', async () => {
    const res = await post(t, PATH, sandboxHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-1' });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      publicToken: expect.stringMatching(/^public-sandbox-[A-Za-z0-9_-]{43}$/),
      expiration: new Date(t.clock.now().getTime() + 30 * 60_000).toISOString(),
    });
    const pt = await t.store.repos.publicTokens.findByHash(createHash('sha256').update(res.body.publicToken).digest('hex'));
    expect(pt).toMatchObject({ organizationId: org.organizationId, environment: 'sandbox', exchangedAt: null });
    const connection = await t.store.repos.connections.findById(pt!.connectionId);
    expect(connection).toMatchObject({ status: 'ACTIVE', providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-1', environment: 'sandbox' });

    // The connection holds a sealed, logged-in browser state of the simulated site, for this org's tenant.
    expect(connection!.sealedSession).toMatch(/^v1\./);
    expect(connection!.sealedSession).not.toContain('orbit_sid');
    const state = JSON.parse(t.services.vault.open(connection!.sealedSession!, sessionAad(connection!.id)));
    expect(state.cookies).toEqual([
      expect.objectContaining({ name: 'orbit_sid', domain: 'orbit.sandbox.localhost', path: '/', httpOnly: true }),
    ]);
    const session = await t.services.siteSessions.resolve('orbit', state.cookies[0].value);
    expect(session).toMatchObject({ username: 'user_good', site: 'orbit', tenant: tenantFor(org.organizationId) });
  });

  it('connects another test user and another sandbox provider', async () => {
    const res = await post(t, PATH, sandboxHeaders(org), { providerId: FORGEHUB_PROVIDER_ID, clientUserId: 'sb-2', username: 'user_mfa' });
    expect(res.status).toBe(200);
    const ex = await exchange(t, sandboxHeaders(org), res.body.publicToken);
    expect(ex.status).toBe(200);
    expect(ex.body).toMatchObject({ providerId: FORGEHUB_PROVIDER_ID, clientUserId: 'sb-2', status: 'ACTIVE' });
  });

  it('exists only for sandbox credentials (SANDBOX_ONLY)', async () => {
    expectError(await post(t, PATH, productionHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-3' }), 'SANDBOX_ONLY');
    expectError(await post(t, PATH, productionHeaders(org), { providerId: GITHUB_PROVIDER_ID, clientUserId: 'sb-3' }), 'SANDBOX_ONLY');
  });

  it('rejects a provider that is not a sandbox provider (UNKNOWN_PROVIDER)', async () => {
    expectError(await post(t, PATH, sandboxHeaders(org), { providerId: GITHUB_PROVIDER_ID, clientUserId: 'sb-4' }), 'UNKNOWN_PROVIDER');
    expectError(
      await post(t, PATH, sandboxHeaders(org), { providerId: '00000000-0000-4000-8000-000000000000', clientUserId: 'sb-4' }),
      'UNKNOWN_PROVIDER',
    );
  });

  it('rejects an unknown test user (UNKNOWN_TEST_USER)', async () => {
    expectError(
      await post(t, PATH, sandboxHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-5', username: 'user_nobody' }),
      'UNKNOWN_TEST_USER',
      {
        message: /user_nobody/,
      },
    );
  });

  it('cannot log in user_locked (SANDBOX_LOGIN_FAILED) and creates nothing', async () => {
    const before = await t.store.dataSource.query('SELECT COUNT(*) AS n FROM connections');
    expectError(
      await post(t, PATH, sandboxHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-6', username: 'user_locked' }),
      'SANDBOX_LOGIN_FAILED',
      {
        message: /locked/,
      },
    );
    const after = await t.store.dataSource.query('SELECT COUNT(*) AS n FROM connections');
    expect(Number(after[0].n)).toBe(Number(before[0].n));
  });

  it('POST /api/sandbox/reset answers for every sandbox provider, sandbox credentials only', async () => {
    const res = await post(t, '/api/sandbox/reset', sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body.reset).toBe(true);
    expect([...res.body.providerIds].sort()).toEqual(
      [FORGEHUB_PROVIDER_ID, LUMEN_PROVIDER_ID, ORBIT_PROVIDER_ID, QUILL_PROVIDER_ID].sort(),
    );
    expectError(await post(t, '/api/sandbox/reset', productionHeaders(org)), 'SANDBOX_ONLY');
  });

  it('validates the body', async () => {
    expectError(await post(t, PATH, sandboxHeaders(org), { clientUserId: 'sb-7' }), 'INVALID_FIELD', {
      message: 'providerId: Required',
      details: [{ path: 'providerId', message: 'Required' }],
    });
    expectError(
      await post(t, PATH, sandboxHeaders(org), { providerId: ORBIT_PROVIDER_ID, clientUserId: 'sb-7', password: 'pass_good' }),
      'INVALID_FIELD',
      {
        message: 'body: unknown field(s): password',
        details: [{ path: 'body', message: 'unknown field(s): password' }],
      },
    );
  });
});
