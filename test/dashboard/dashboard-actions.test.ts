import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import { csrfOf, sessionCookie } from '../support/dashboard-session';

/** The action catalogue on the dashboard's connections page: what each provider can do without a model. */

describeEachStore('dashboard action catalogue', (t: TestApp) => {
  it('lists the sandbox providers with their actions, examples, parameters and result fields, escaped', async () => {
    const http = () => request(t.baseUrl);
    const anon = await http().get('/dashboard/sign-up');
    const signedUp = await http()
      .post('/dashboard/sign-up')
      .set('Cookie', sessionCookie(anon))
      .type('form')
      .send({ email: `actions-${Date.now()}@example.com`, password: 'correct horse battery staple', _csrf: csrfOf(anon.text) });
    expect(signedUp.status).toBe(303);
    const cookie = sessionCookie(signedUp);
    const orgs = await http().get('/dashboard/orgs').set('Cookie', cookie);
    const created = await http()
      .post('/dashboard/orgs')
      .set('Cookie', cookie)
      .type('form')
      .send({ name: 'Catalogue Co', _csrf: csrfOf(orgs.text) });
    const orgId = /\/dashboard\/orgs\/(org_[0-9a-f]+)/.exec(created.text)![1];

    const page = await http().get(`/dashboard/orgs/${orgId}/connections?env=sandbox`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    const section = page.text.slice(page.text.indexOf('data-testid="action-catalogue"'));
    expect(section).toContain('What you can ask without a model');
    expect(section).toContain('<code>orbit.send-message</code>');
    expect(section).toContain('<code>forgehub.star-repository</code>');
    // An example with quotes, escaped by the html template.
    expect(section).toContain('Send a message to Priya Nair saying &#39;Running late, sorry!&#39;');
    expect(section).toMatch(/<code>recipient<\/code> <small>\(or in the action\)<\/small>/);
    expect(section).toContain('<code>sentAt</code>');
    expect(section).toContain('GET /api/providers/{providerId}/actions');
  });
});
