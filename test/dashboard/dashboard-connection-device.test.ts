import request from 'supertest';

import { chooseDevice } from '../../server/browser/device-profile';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { describeEachStore, type TestApp } from '../support/app';
import { signedUpWithOrg } from '../support/dashboard-session';

/** The dashboard's connection page shows the connection's device and exit (the exit's label, never its credentials). */

describeEachStore('dashboard connection device', (t: TestApp) => {
  it('shows the device every run presents and the exit label, escaped, without the proxy credentials', async () => {
    const http = () => request(t.baseUrl);
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Device Co');
    const caller = { organizationId: orgId, environment: 'sandbox' as const };
    const { connection } = await t.services.connections.create(caller, {
      providerId: ORBIT_PROVIDER_ID,
      clientUserId: 'dash-device',
      session: { cookies: [], origins: [] },
    });
    const page = () => http().get(`/dashboard/orgs/${orgId}/connections/${connection.id}`).set('Cookie', cookie);

    const before = await page();
    expect(before.status).toBe(200);
    expect(before.text).toMatch(/data-testid="connection-device">None yet \(chosen at its next run\)</);
    expect(before.text).toMatch(/data-testid="connection-exit">Direct</);

    const device = { ...chooseDevice(connection.id, '143.0.7499.0'), platform: 'macOS' as const, timezoneId: 'Europe/Paris' };
    await t.services.connections.keepDevice(connection.id, device);
    await t.services.connections.setExitProxy(caller, connection.id, {
      url: 'http://127.0.0.1:3128',
      username: 'acct',
      password: 'dash-secret',
      label: 'Paris <office>',
    });
    const after = await page();
    expect(after.text).toContain('macOS · ');
    expect(after.text).toContain('Europe/Paris');
    expect(after.text).toContain('Upstream proxy: Paris &lt;office&gt;');
    expect(after.text).not.toContain('dash-secret');
    expect(after.text).not.toContain('127.0.0.1:3128');
  });
});
