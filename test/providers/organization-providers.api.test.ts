import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';
import {
  agentRequestBody,
  createOrg,
  del,
  exchange,
  expectError,
  get,
  type Headers,
  ORBIT_PROVIDER_ID,
  orbitUrl,
  post,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

const patch = (t: TestApp, path: string, headers: Headers, body: unknown) =>
  request(t.server)
    .patch(path)
    .set(headers)
    .send(body as object);

/** A declaration for a site on this machine (allowed in the sandbox only). */
const loopbackDeclaration = (overrides: Record<string, unknown> = {}) => ({
  name: 'Acme CRM',
  slug: 'acme-crm',
  category: 'developer',
  homeUrl: 'http://127.0.0.1:4555/',
  loginUrl: 'http://127.0.0.1:4555/login',
  allowedOrigins: ['127.0.0.1'],
  identityProviders: ['http://sso.localhost:4555'],
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
  signedIn: { cookies: ['acme_session'], urlPattern: '^http://127\\.0\\.0\\.1:4555/home', element: '#account-menu' },
  login: {
    usernameLabel: 'Email',
    form: { username: { label: 'Email' }, password: { label: 'Password' }, submit: { role: 'button', name: 'Sign in' } },
    success: [{ cookie: 'acme_session', pathNot: { pattern: '^/login' } }],
    invalidCredentials: [{ alert: { pattern: 'wrong password', flags: 'i' } }],
    locked: [],
  },
  ...overrides,
});

const publicDeclaration = (overrides: Record<string, unknown> = {}) =>
  loopbackDeclaration({
    homeUrl: 'https://crm.acme.example/',
    loginUrl: 'https://crm.acme.example/login',
    allowedOrigins: ['crm.acme.example', 'https://static.acme.example'],
    identityProviders: ['https://accounts.idp.example'],
    signedIn: { cookies: ['acme_session'] },
    ...overrides,
  });

/**
 * An organization's private providers (POST/GET/PATCH/DELETE /api/providers): visible to that organization and
 * environment only, checked field by field, refused in production when they point inwards, and used by link tokens
 * like a built-in one. Built-ins cannot be changed.
 */
describeEachStore('organization providers', (t) => {
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Provider Co');
    other = await createOrg(t, 'Other Co');
  });

  it('creates a private provider visible to its organization and environment only', async () => {
    const res = await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration());
    expect(res.status).toBe(201);
    const id = res.body.providerId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({
      name: 'Acme CRM',
      slug: 'acme-crm',
      environment: 'sandbox',
      source: 'organization',
      allowedOrigins: ['127.0.0.1'],
      identityProviders: ['http://sso.localhost:4555'],
      logo: expect.stringMatching(/^data:image\/svg\+xml;base64,/),
      declaration: expect.objectContaining({ slug: 'acme-crm', signedIn: loopbackDeclaration().signedIn }),
    });

    const mine = await get(t, '/api/providers', sandboxHeaders(org));
    expect(mine.body.providers.map((p: { providerId: string }) => p.providerId)).toEqual(expect.arrayContaining([ORBIT_PROVIDER_ID, id]));
    expect((await get(t, `/api/providers/${id}`, sandboxHeaders(org))).body.declaration.login.usernameLabel).toBe('Email');

    // Another organization, or the same one in production, never sees it.
    for (const headers of [sandboxHeaders(other), productionHeaders(org)]) {
      const list = await get(t, '/api/providers', headers);
      expect(list.body.providers.map((p: { providerId: string }) => p.providerId)).not.toContain(id);
      expectError(await get(t, `/api/providers/${id}`, headers), 'PROVIDER_NOT_FOUND', { message: /No provider/ });
      expectError(await patch(t, `/api/providers/${id}`, headers, { name: 'Mine now' }), 'PROVIDER_NOT_FOUND', { message: /No provider/ });
      expectError(await del(t, `/api/providers/${id}`, headers), 'PROVIDER_NOT_FOUND', { message: /No provider/ });
    }
    // Its actions catalogue resolves (no playbooks), for its organization only.
    expect((await get(t, `/api/providers/${id}/actions`, sandboxHeaders(org))).body).toEqual({ providerId: id, actions: [] });
    expectError(await get(t, `/api/providers/${id}/actions`, sandboxHeaders(other)), 'PROVIDER_NOT_FOUND', { message: /No provider/ });
  });

  it('link tokens name a private provider like a built-in one, for its organization only', async () => {
    const created = await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'acme-link' }));
    const id = created.body.providerId;
    const ok = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'u-1', providerId: id });
    expect(ok.status).toBe(200);
    expectError(await post(t, '/api/link-token', sandboxHeaders(other), { clientUserId: 'u-1', providerId: id }), 'UNKNOWN_PROVIDER', {
      message: /is not a sandbox provider/,
    });
  });

  it('agent requests on a connection to a private provider are fenced by its declaration', async () => {
    const id = (await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'acme-agent' }))).body.providerId;
    const created = await t.services.connections.create(
      { organizationId: org.organizationId, environment: 'sandbox' },
      { providerId: id, clientUserId: 'agent-user', session: { cookies: [], origins: [] } },
    );
    const accessToken = (await exchange(t, sandboxHeaders(org), created.publicToken)).body.access_token;
    const inside = await post(
      t,
      '/api/agent-requests',
      sandboxHeaders(org),
      agentRequestBody(t, accessToken, { startingUrl: 'http://127.0.0.1:4555/home' }),
    );
    expect(inside.status).toBe(202);
    const outside = await post(
      t,
      '/api/agent-requests',
      sandboxHeaders(org),
      agentRequestBody(t, accessToken, { startingUrl: orbitUrl(t, '/me') }),
    );
    expectError(outside, 'STARTING_URL_NOT_ALLOWED', { message: /is not one of Acme CRM's domains/, details: { field: 'startingUrl' } });
  });

  it('refuses a bad declaration with the path of each bad field', async () => {
    const res = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      loopbackDeclaration({
        slug: 'Not A Slug',
        allowedOrigins: ['127.0.0.1', 'https://host/with/path'],
        login: { ...loopbackDeclaration().login, invalidCredentials: [{ alert: { pattern: '(a+)+$' } }] },
        extra: true,
      }),
    );
    expectError(res, 'INVALID_FIELD', { message: /./, details: expect.any(Array) });
    const paths = res.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['slug', 'allowedOrigins[1]', 'login.invalidCredentials[0].alert.pattern']));
    expect(res.body.error.details.find((d: { path: string }) => d.path === 'login.invalidCredentials[0].alert.pattern').message).toMatch(
      /backtrack/,
    );

    // The home URL must be under its own allowed origins.
    const outside = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      loopbackDeclaration({ slug: 'outside', allowedOrigins: ['example.org'] }),
    );
    expectError(outside, 'INVALID_FIELD', {
      message: /./,
      details: expect.arrayContaining([expect.objectContaining({ path: 'homeUrl' })]),
    });

    // The server settles the id and the environment.
    const settled = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      loopbackDeclaration({ slug: 'settled', providerId: ORBIT_PROVIDER_ID, environment: 'production' }),
    );
    expectError(settled, 'PROVIDER_DECLARATION_INVALID', {
      message: 'providerId: is assigned by the server; leave it out',
      details: [
        { path: 'providerId', message: 'is assigned by the server; leave it out' },
        { path: 'environment', message: 'must be sandbox, the environment of the credentials' },
      ],
    });
  });

  it('refuses in production a declaration that points at non-public addresses, with each path', async () => {
    const inward = await post(
      t,
      '/api/providers',
      productionHeaders(org),
      publicDeclaration({
        slug: 'inward',
        allowedOrigins: ['crm.acme.example', '10.0.0.5', 'http://169.254.169.254', 'printer.local'],
        identityProviders: ['https://sso.corp.internal', 'http://[::1]:8080'],
      }),
    );
    expectError(inward, 'PROVIDER_DECLARATION_INVALID', {
      message: 'allowedOrigins[1]: 10.0.0.5 is not a public address (refused in production)',
      details: [
        { path: 'allowedOrigins[1]', message: '10.0.0.5 is not a public address (refused in production)' },
        { path: 'allowedOrigins[2]', message: '169.254.169.254 is not a public address (refused in production)' },
        { path: 'allowedOrigins[3]', message: 'printer.local is not a public address (refused in production)' },
        { path: 'identityProviders[0]', message: 'sso.corp.internal is not a public address (refused in production)' },
        { path: 'identityProviders[1]', message: '[::1] is not a public address (refused in production)' },
      ],
    });
    const loopback = await post(t, '/api/providers', productionHeaders(org), loopbackDeclaration({ slug: 'loopback' }));
    expectError(loopback, 'PROVIDER_DECLARATION_INVALID', {
      message: /^homeUrl: 127\.0\.0\.1 is not a public address/,
      details: expect.any(Array),
    });
    expect(loopback.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'homeUrl',
      'loginUrl',
      'allowedOrigins[0]',
      'identityProviders[0]',
    ]);

    const fine = await post(t, '/api/providers', productionHeaders(org), publicDeclaration());
    expect(fine.status).toBe(201);
    expect(fine.body).toMatchObject({ environment: 'production', source: 'organization' });
  });

  it('keeps slugs unique per environment: built-ins, and the organization’s own', async () => {
    expectError(await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'orbit' })), 'PROVIDER_SLUG_TAKEN', {
      message: 'slug: orbit is already taken (by a built-in or operator provider, or one of yours in sandbox).',
      details: [{ path: 'slug', message: 'is already taken' }],
    });
    // A built-in of the other environment too: playbooks are found by slug.
    expectError(await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'github' })), 'PROVIDER_SLUG_TAKEN', {
      message: /github is already taken/,
      details: expect.any(Array),
    });
    expect((await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'twice' }))).status).toBe(201);
    expectError(await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'twice' })), 'PROVIDER_SLUG_TAKEN', {
      message: /twice/,
      details: expect.any(Array),
    });
    // Another organization has its own namespace.
    expect((await post(t, '/api/providers', sandboxHeaders(other), loopbackDeclaration({ slug: 'twice' }))).status).toBe(201);
  });

  it('updates the given fields and checks the result whole', async () => {
    const id = (await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'editable' }))).body.providerId;
    const renamed = await patch(t, `/api/providers/${id}`, sandboxHeaders(org), {
      name: 'Acme CRM (staging)',
      signedIn: { element: '#me' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ providerId: id, name: 'Acme CRM (staging)', declaration: { signedIn: { element: '#me' } } });
    expect((await get(t, `/api/providers/${id}`, sandboxHeaders(org))).body.name).toBe('Acme CRM (staging)');

    // A login URL outside the stored allowed origins breaks the whole declaration.
    const broken = await patch(t, `/api/providers/${id}`, sandboxHeaders(org), { loginUrl: 'http://elsewhere.localhost:4555/login' });
    expectError(broken, 'PROVIDER_DECLARATION_INVALID', {
      message: 'loginUrl: elsewhere.localhost:4555 is not one of allowedOrigins',
      details: [{ path: 'loginUrl', message: 'elsewhere.localhost:4555 is not one of allowedOrigins' }],
    });
    expectError(await patch(t, `/api/providers/${id}`, sandboxHeaders(org), { slug: 'forgehub' }), 'PROVIDER_SLUG_TAKEN', {
      message: /forgehub/,
      details: expect.any(Array),
    });
    expectError(await patch(t, `/api/providers/${id}`, sandboxHeaders(org), { environment: 'production' }), 'INVALID_FIELD', {
      message: /environment/,
      details: expect.any(Array),
    });
  });

  it('never changes or deletes a built-in provider', async () => {
    const builtIn = await get(t, `/api/providers/${ORBIT_PROVIDER_ID}`, sandboxHeaders(org));
    expect(builtIn.body).toMatchObject({ providerId: ORBIT_PROVIDER_ID, source: 'built-in', declaration: null });
    const message = "Orbit (sandbox social network) is built in: only your organization's own providers can be changed or deleted.";
    expectError(await patch(t, `/api/providers/${ORBIT_PROVIDER_ID}`, sandboxHeaders(org), { name: 'Mine' }), 'PROVIDER_NOT_EDITABLE', {
      message,
    });
    expectError(await del(t, `/api/providers/${ORBIT_PROVIDER_ID}`, sandboxHeaders(org)), 'PROVIDER_NOT_EDITABLE', { message });
    expect((await get(t, `/api/providers/${ORBIT_PROVIDER_ID}`, sandboxHeaders(org))).body.name).toBe('Orbit (sandbox social network)');
  });

  it('refuses deleting a provider with live connections, and deletes it once they are revoked', async () => {
    const id = (await post(t, '/api/providers', sandboxHeaders(org), loopbackDeclaration({ slug: 'in-use' }))).body.providerId;
    const created = await t.services.connections.create(
      { organizationId: org.organizationId, environment: 'sandbox' },
      { providerId: id, clientUserId: 'in-use-user', session: { cookies: [], origins: [] } },
    );
    expectError(await del(t, `/api/providers/${id}`, sandboxHeaders(org)), 'PROVIDER_IN_USE', {
      message: 'in-use still has 1 connection(s) that are not revoked; revoke them first (DELETE /api/connections/{connectionId}).',
      details: { connections: 1 },
    });
    expect((await del(t, `/api/connections/${created.connection.id}`, sandboxHeaders(org))).status).toBe(200);
    const deleted = await del(t, `/api/providers/${id}`, sandboxHeaders(org));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ providerId: id, slug: 'in-use' });
    expectError(await get(t, `/api/providers/${id}`, sandboxHeaders(org)), 'PROVIDER_NOT_FOUND', { message: /No provider/ });
  });
});
