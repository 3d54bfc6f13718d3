import { describeEachStore } from '../support/app';
import { connectSandbox, createOrg, del, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * The connection events of the status model, as deliveries are made of them (SQLite and PostgreSQL): the new types can
 * be subscribed to; update mode on a LOGIN_REQUIRED connection is a recovery, on an ACTIVE one it is not; a renewal is
 * CONNECTION.SESSION_RENEWED (and a recovery too when the connection was LOGIN_REQUIRED); each body is the connection as
 * the API shows it, and only endpoints subscribed to a type get it.
 */
describeEachStore('connection health events', (t) => {
  let org: TestOrg;
  const caller = () => ({ organizationId: org.organizationId, environment: 'sandbox' as const });
  const session = { cookies: [], origins: [] };

  beforeAll(async () => {
    org = await createOrg(t, 'Events Co');
    const all = await post(t, '/api/webhooks', sandboxHeaders(org), {
      url: 'https://hooks.example.com/all',
      events: ['CONNECTION.LOGIN_REQUIRED', 'CONNECTION.SESSION_RENEWED', 'CONNECTION.RECOVERED', 'CONNECTION.REVOKED'],
    });
    expect(all.status).toBe(201);
    expect(all.body.events).toEqual([
      'CONNECTION.LOGIN_REQUIRED',
      'CONNECTION.SESSION_RENEWED',
      'CONNECTION.RECOVERED',
      'CONNECTION.REVOKED',
    ]);
    const recoveredOnly = await post(t, '/api/webhooks', sandboxHeaders(org), {
      url: 'https://hooks.example.com/recovered',
      events: ['CONNECTION.RECOVERED'],
    });
    expect(recoveredOnly.status).toBe(201);
  });

  /** Events of one connection, oldest first (each step below moves the clock, so the order is the order of events). */
  const eventsOf = async (connectionId: string) => {
    await t.services.webhookEvents.idle();
    const rows = await t.store.repos.webhookEvents.listOwned(caller());
    return rows
      .reverse()
      .map((r) => ({ id: r.id, ...(JSON.parse(r.payload) as { type: string; object: Record<string, unknown> }) }))
      .filter((e) => e.object.connectionId === connectionId);
  };

  it('update mode of a LOGIN_REQUIRED connection: CONNECTION.RECOVERED to the endpoints that want it; of an ACTIVE one: nothing', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'update-events' });
    expect((await t.services.connections.reauthenticate(caller(), connectionId, { session })).ok).toBe(true);
    expect(await eventsOf(connectionId)).toEqual([]);

    t.clock.advance(1000);
    await t.services.connections.markLoginRequired(connectionId);
    t.clock.advance(1000);
    const again = await t.services.connections.reauthenticate(caller(), connectionId, { session });
    expect(again.ok && again.value.connection.status).toBe('ACTIVE');
    const events = await eventsOf(connectionId);
    expect(events.map((e) => e.type)).toEqual(['CONNECTION.LOGIN_REQUIRED', 'CONNECTION.RECOVERED']);
    expect(events[1]!.object).toMatchObject({ connectionId, status: 'ACTIVE', lastCheckedAt: null, lastCheckOutcome: null });
    // The recovery went to both endpoints, the LOGIN_REQUIRED event only to the one subscribed to it.
    const deliveries = async (eventId: string) =>
      (await t.store.dataSource.getRepository('WebhookDelivery').findBy({ eventId })).map((d) => (d as { endpointId: string }).endpointId);
    expect(await deliveries(events[1]!.id)).toHaveLength(2);
    expect(await deliveries(events[0]!.id)).toHaveLength(1);
  });

  it('a renewal: SESSION_RENEWED; of a LOGIN_REQUIRED connection also RECOVERED; of a revoked one nothing', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'renew-events' });
    expect(await t.services.connections.sessionRenewed(connectionId, session)).toBe('renewed');
    t.clock.advance(1000);
    await t.services.connections.markLoginRequired(connectionId);
    t.clock.advance(1000);
    expect(await t.services.connections.sessionRenewed(connectionId, session)).toBe('recovered');
    expect((await eventsOf(connectionId)).map((e) => e.type).sort()).toEqual([
      'CONNECTION.LOGIN_REQUIRED',
      'CONNECTION.RECOVERED',
      'CONNECTION.SESSION_RENEWED',
      'CONNECTION.SESSION_RENEWED',
    ]);
    t.clock.advance(1000);
    await del(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(await t.services.connections.sessionRenewed(connectionId, session)).toBeNull();
    expect(await t.services.connections.recoverSession(connectionId, session)).toBe(false);
    expect((await eventsOf(connectionId)).map((e) => e.type).at(-1)).toBe('CONNECTION.REVOKED');
  });
});
