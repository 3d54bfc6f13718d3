import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import { csrfOf, signedUpWithOrg } from '../support/dashboard-session';

/**
 * The dashboard's redirect URIs page: the same registry as /api/redirect-uris, per environment, with the service's
 * refusals shown on the form, removal, and nothing of another organization reachable.
 */

describeEachStore('dashboard redirect URIs', (t: TestApp) => {
  const http = () => request(t.baseUrl);

  it('adds, refuses with the rule, lists per environment and removes a redirect URI', async () => {
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Redirects Co');
    const base = `/dashboard/orgs/${orgId}/redirect-uris`;
    const page = await http().get(`${base}?env=sandbox`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('No sandbox redirect URIs yet.');
    expect(page.text).toContain('aria-current="page">Redirect URIs</a>');
    const csrf = csrfOf(page.text);
    const submit = (path: string, body: Record<string, string>) =>
      http()
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send({ _csrf: csrf, ...body });

    const refused = await submit(base, { env: 'sandbox', uri: 'http://app.example.com/done' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('uri must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1]).');
    expect(refused.text).toContain('value="http://app.example.com/done"');
    const empty = await submit(base, { env: 'sandbox', uri: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Enter an absolute URL of at most 2048 characters.');

    const added = await submit(base, { env: 'sandbox', uri: 'http://localhost:3000/agentlink/done?from=dashboard' });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe(`${base}?env=sandbox&added=1`);
    const listed = await http().get(added.headers.location).set('Cookie', cookie);
    expect(listed.text).toContain('Added.');
    expect(listed.text).toContain('<code>http://localhost:3000/agentlink/done?from=dashboard</code>');
    // The API sees the same registry; production has its own (a loopback http URI is refused there).
    const [uri] = await t.services.redirectUris.list({ organizationId: orgId, environment: 'sandbox' });
    expect(uri).toMatchObject({ uri: 'http://localhost:3000/agentlink/done?from=dashboard' });
    expect((await http().get(`${base}?env=production`).set('Cookie', cookie)).text).toContain('No production redirect URIs yet.');
    const prodRefused = await submit(base, { env: 'production', uri: 'http://localhost:3000/agentlink/done' });
    expect(prodRefused.text).toContain('uri must use https (production redirect URIs never use plain http).');

    // Another organization's member cannot remove it (404, and it stays).
    const stranger = await signedUpWithOrg(t.baseUrl, 'Stranger Co');
    const foreign = await http()
      .post(`/dashboard/orgs/${stranger.orgId}/redirect-uris/${uri.id}/delete`)
      .set('Cookie', stranger.cookie)
      .type('form')
      .send({ _csrf: stranger.csrf });
    expect(foreign.status).toBe(404);
    expect((await submit(`/dashboard/orgs/${stranger.orgId}/redirect-uris`, { env: 'sandbox', uri: 'https://x.example/' })).status).toBe(
      404,
    );
    expect(await t.services.redirectUris.list({ organizationId: orgId, environment: 'sandbox' })).toHaveLength(1);

    const removed = await submit(`${base}/${uri.id}/delete`, {});
    expect(removed.status).toBe(303);
    expect(removed.headers.location).toBe(`${base}?env=sandbox&removed=1`);
    expect(await t.services.redirectUris.list({ organizationId: orgId, environment: 'sandbox' })).toEqual([]);
    expect((await submit(`${base}/${uri.id}/delete`, {})).status).toBe(404);
  });
});
