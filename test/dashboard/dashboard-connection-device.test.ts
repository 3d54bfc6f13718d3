import request, { type Response } from 'supertest';

import { chooseDevice } from '../../server/browser/device-profile';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { describeEachStore, type TestApp } from '../support/app';

/** The dashboard's connection page shows the connection's device and exit (the exit's label, never its credentials). */
const COOKIE = 'agentlink_dashboard';
const sessionCookie = (res: Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${COOKIE}=`))!
    .split(';')[0]!;
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

describeEachStore('dashboard connection device', (t: TestApp) => {
  it('shows the device every run presents and the exit label, escaped, without the proxy credentials', async () => {
    const http = () => request(t.baseUrl);
    const anon = await http().get('/dashboard/sign-up');
    const signedUp = await http()
      .post('/dashboard/sign-up')
      .set('Cookie', sessionCookie(anon))
      .type('form')
      .send({ email: `device-${Date.now()}@example.com`, password: 'correct horse battery staple', _csrf: csrfOf(anon.text) });
    const cookie = sessionCookie(signedUp);
    const orgs = await http().get('/dashboard/orgs').set('Cookie', cookie);
    const created = await http()
      .post('/dashboard/orgs')
      .set('Cookie', cookie)
      .type('form')
      .send({ name: 'Device Co', _csrf: csrfOf(orgs.text) });
    const orgId = /\/dashboard\/orgs\/(org_[0-9a-f]+)/.exec(created.text)![1];
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
