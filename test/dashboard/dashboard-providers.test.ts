import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import { csrfOf, signedUpWithOrg } from '../support/dashboard-session';

/**
 * The dashboard's providers page: an organization's own providers added, edited and deleted as a JSON declaration,
 * with the service's refusals shown by field path, and kept apart per environment.
 */

const declaration = (overrides: Record<string, unknown> = {}) => ({
  name: 'Staging CRM',
  slug: 'staging-crm',
  category: 'developer',
  homeUrl: 'http://127.0.0.1:4600/',
  loginUrl: 'http://127.0.0.1:4600/login',
  allowedOrigins: ['127.0.0.1'],
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"/>',
  signedIn: { cookies: ['sid'] },
  ...overrides,
});

describeEachStore('dashboard providers', (t: TestApp) => {
  it('adds, shows refusals by path, edits and deletes an organization’s own provider', async () => {
    const http = () => request(t.baseUrl);
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Providers Co');
    const base = `/dashboard/orgs/${orgId}/providers`;

    const page = await http().get(`${base}?env=sandbox`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No sandbox providers of your own yet.');
    expect(page.text).toContain('Orbit (sandbox social network)');
    const csrf = csrfOf(page.text);
    const submit = (path: string, body: Record<string, string>) =>
      http()
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf: csrf, ...body });

    // Refusals: not JSON; then each bad field by its path, the text kept in the form.
    const notJson = await submit(base, { env: 'sandbox', declaration: '{ nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.text).toContain('The declaration is not valid JSON');
    const bad = await submit(base, { env: 'sandbox', declaration: JSON.stringify(declaration({ slug: 'Bad Slug', allowedOrigins: [] })) });
    expect(bad.status).toBe(400);
    const issues = bad.text.slice(bad.text.indexOf('data-testid="declaration-issues"'));
    expect(issues).toContain('<code>slug</code>');
    expect(issues).toContain('<code>allowedOrigins</code>');
    expect(bad.text).toContain('Bad Slug');

    // Production refuses this machine's addresses.
    const inward = await submit(base, { env: 'production', declaration: JSON.stringify(declaration()) });
    expect(inward.status).toBe(400);
    expect(inward.text).toContain('<code>homeUrl</code>: 127.0.0.1 is not a public address (refused in production)');

    const added = await submit(base, { env: 'sandbox', declaration: JSON.stringify(declaration()) });
    expect(added.status).toBe(303);
    const providerPath = added.headers.location.replace(/\?saved=1$/, '');
    const providerId = providerPath.split('/').pop()!;
    const edit = await http().get(added.headers.location).set('Cookie', cookie);
    expect(edit.text).toContain('Saved.');
    expect(edit.text).toContain('&quot;slug&quot;: &quot;staging-crm&quot;');

    // Visible in sandbox only, and through the API's catalogue for this organization.
    expect((await http().get(`${base}?env=sandbox`).set('Cookie', cookie)).text).toContain(`data-provider-id="${providerId}"`);
    expect((await http().get(`${base}?env=production`).set('Cookie', cookie)).text).not.toContain(providerId);
    expect(await t.services.catalogue.find(providerId, { organizationId: orgId, environment: 'sandbox' })).toMatchObject({
      name: 'Staging CRM',
    });

    // Editing replaces the whole declaration (signedIn left out is removed).
    const { signedIn: _signedIn, ...withoutSignedIn } = declaration({ name: 'Staging CRM 2' });
    const saved = await submit(providerPath, { declaration: JSON.stringify(withoutSignedIn) });
    expect(saved.status).toBe(303);
    const after = await t.services.catalogue.find(providerId, { organizationId: orgId, environment: 'sandbox' });
    expect(after).toMatchObject({ name: 'Staging CRM 2' });
    expect(after?.signedIn).toBeUndefined();
    const broken = await submit(providerPath, { declaration: JSON.stringify(declaration({ loginUrl: 'http://other.localhost:4600/' })) });
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('<code>loginUrl</code>: other.localhost:4600 is not one of allowedOrigins');

    // Deleted; a built-in has no page here.
    expect((await submit(`${providerPath}/delete`, {})).status).toBe(303);
    expect(await t.services.catalogue.find(providerId, { organizationId: orgId, environment: 'sandbox' })).toBeUndefined();
    expect((await http().get(`${base}/5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11`).set('Cookie', cookie)).status).toBe(404);
  });
});
