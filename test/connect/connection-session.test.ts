import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { describeEachStore } from '../support/app';

/**
 * Provider sessions on a connection, on SQLite and PostgreSQL: the connection service seals and opens them,
 * and writes one back only while the connection is ACTIVE, in the same statement as the check (a revoke or
 * LOGIN_REQUIRED that lands between a worker's read and its write wins).
 */
describeEachStore('connection sessions', (t) => {
  const caller = { organizationId: 'org_session_test', environment: 'sandbox' as const };
  const session = (value: string) => ({
    cookies: [
      {
        name: 'sid',
        value,
        domain: 'orbit.sandbox.localhost',
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: 'Lax' as const,
      },
    ],
    origins: [],
  });
  const connect = async (clientUserId: string) =>
    (
      await t.services.connections.create(caller, {
        providerId: ORBIT_PROVIDER_ID,
        clientUserId,
        session: session('first'),
        credentials: { username: 'user_good', password: 'pass_good' },
      })
    ).connection;

  it('seals a fresh session onto an ACTIVE connection and opens it again; a finished run marks it used', async () => {
    const connection = await connect('fresh');
    expect(t.services.connections.openSession(connection)).toEqual(session('first'));
    t.clock.advance(1000);
    expect(await t.services.connections.saveSession(connection.id, session('second'))).toBe(true);
    const renewed = (await t.services.connections.findForRun(connection.id))!;
    expect(renewed.sealedSession).not.toContain('second');
    expect(t.services.connections.openSession(renewed)).toEqual(session('second'));
    expect(renewed.lastUsedAt).toBeNull();
    expect(await t.services.connections.saveSession(connection.id, session('third'), { used: true })).toBe(true);
    expect((await t.services.connections.findForRun(connection.id))!.lastUsedAt).toEqual(t.clock.now());
  });

  it('writes nothing onto a connection revoked after it was read', async () => {
    const connection = await connect('revoked');
    const read = (await t.services.connections.findForRun(connection.id))!;
    expect(read.status).toBe('ACTIVE');
    expect((await t.services.connections.revoke(caller, connection.id)).ok).toBe(true);
    expect(await t.services.connections.saveSession(read.id, session('live'), { used: true })).toBe(false);
    expect(await t.store.repos.connections.findById(connection.id)).toMatchObject({
      status: 'REVOKED',
      sealedSession: null,
      sealedCredentials: null,
      lastUsedAt: null,
    });
  });

  it('writes nothing onto a connection that became LOGIN_REQUIRED (the dead session stays as it was)', async () => {
    const connection = await connect('logged-out');
    const before = (await t.services.connections.findForRun(connection.id))!;
    await t.services.connections.markLoginRequired(connection.id);
    expect(await t.services.connections.saveSession(connection.id, session('live'))).toBe(false);
    const after = (await t.store.repos.connections.findById(connection.id))!;
    expect(after.status).toBe('LOGIN_REQUIRED');
    expect(after.sealedSession).toBe(before.sealedSession);
  });

  it('has no session to open when none was stored', async () => {
    const created = await t.services.connections.create(caller, { providerId: ORBIT_PROVIDER_ID, clientUserId: 'no-session' });
    expect(t.services.connections.openSession(created.connection)).toBeNull();
  });
});
