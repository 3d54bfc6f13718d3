import request from 'supertest';

import { ConnectionHealthService, type SessionProbe } from '../../server/domain/connection-health.service';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { describeEachStore, type TestApp } from '../support/app';
import { csrfOf, signedUpWithOrg } from '../support/dashboard-session';

/**
 * Connection health on the dashboard: the connections list shows each connection's last check, and a connection's
 * page shows its last and next check and checks it now (the same check as the API's, behind the session's CSRF
 * token), saying what it found or why it was refused. The browser part of the check is a scripted probe here.
 */

describeEachStore('dashboard: connection health', (t: TestApp) => {
  let cookie: string;
  let orgId: string;
  let connectionId: string;
  const http = () => request(t.baseUrl);
  const probe: SessionProbe = { check: async () => ({ kind: 'signed_in', session: { cookies: [], origins: [] } }) };

  beforeAll(async () => {
    const s = t.services;
    s.connectionHealth = new ConnectionHealthService(
      {
        store: t.store,
        clock: t.clock,
        connections: s.connections,
        catalogue: s.catalogue,
        settings: s.connectionSettings,
        probe,
        ownerId: 'test:dashboard',
      },
      { budgetMs: 2000, concurrency: 1 },
    );
    ({ cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Health Co'));
    const connection = await s.connections.create(
      { organizationId: orgId, environment: 'sandbox' },
      { providerId: ORBIT_PROVIDER_ID, clientUserId: 'dash-user', session: { cookies: [], origins: [] } },
    );
    connectionId = connection.connection.id;
  });

  const detail = () => http().get(`/dashboard/orgs/${orgId}/connections/${connectionId}`).set('Cookie', cookie);
  const checkNow = async (csrf: string) =>
    http().post(`/dashboard/orgs/${orgId}/connections/${connectionId}/check`).set('Cookie', cookie).type('form').send({ _csrf: csrf });

  it('the list has a Last check column, empty before the first check', async () => {
    const page = await http().get(`/dashboard/orgs/${orgId}/connections?env=sandbox`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<th>Last check</th>');
    const row = page.text.slice(page.text.indexOf(`data-connection-id="${connectionId}"`));
    expect(row).toMatch(/data-label="Last check"[^>]*>—<\/td>/);
  });

  it('"Check the session now" checks it, and the pages show the outcome; asked again at once it is refused', async () => {
    const before = await detail();
    expect(before.text).toContain('Check the session now');
    expect((await checkNow('not-the-token')).status).toBe(403);

    const done = await checkNow(csrfOf(before.text));
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/orgs/${orgId}/connections/${connectionId}?checked=SIGNED_IN`);
    const after = await http().get(done.headers.location).set('Cookie', cookie);
    expect(after.text).toContain('Checked: SIGNED_IN.');
    expect(after.text).toMatch(/data-testid="last-check"><span class="status check-SIGNED_IN">SIGNED_IN<\/span>/);
    const list = await http().get(`/dashboard/orgs/${orgId}/connections?env=sandbox`).set('Cookie', cookie);
    expect(list.text).toContain('<span class="status check-SIGNED_IN">SIGNED_IN</span>');

    const again = await checkNow(csrfOf(after.text));
    expect(again.headers.location).toContain('refused=CONNECTION_CHECK_RATE_LIMITED');
    expect((await http().get(again.headers.location).set('Cookie', cookie)).text).toContain('was checked moments ago');
    // Only known values from the URL are ever shown.
    const forged = await http()
      .get(`/dashboard/orgs/${orgId}/connections/${connectionId}?checked=<b>x</b>&refused=NOPE`)
      .set('Cookie', cookie);
    expect(forged.text).not.toContain('Checked:');
    expect(forged.text).not.toContain('<b>x</b>');
  });
});
