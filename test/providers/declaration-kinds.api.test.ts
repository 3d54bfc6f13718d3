import { PROVIDER_CATEGORIES } from '../../contract/provider-declaration';
import { identityProviderIssues } from '../../server/egress/identity-provider-check';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { isBuiltInSandbox, letterMark } from '../../server/providers/provider';
import { describeEachStore } from '../support/app';
import { createOrg, expectError, get, patch, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * Declarations people actually write: no logo (a letter mark instead), a helpdesk or a shop as the category, an
 * identity provider the sign-in's egress policy would block refused when it is declared (with the policy's reason).
 */
const declaration = (overrides: Record<string, unknown> = {}) => ({
  name: 'Zendesk (Acme)',
  slug: 'acme-helpdesk',
  category: 'helpdesk',
  homeUrl: 'http://127.0.0.1:4655/',
  loginUrl: 'http://127.0.0.1:4655/login',
  allowedOrigins: ['127.0.0.1'],
  ...overrides,
});

describeEachStore('provider declarations: logo, category, identity providers', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Declarations Co');
  });

  it('takes a declaration without a logo and shows a letter mark of its name', async () => {
    const res = await post(t, '/api/providers', sandboxHeaders(org), declaration());
    expect(res.status).toBe(201);
    expect(res.body.logo).toBe(letterMark('Zendesk (Acme)'));
    expect(Buffer.from(res.body.logo.split(',')[1], 'base64').toString()).toContain('>Z</text>');
    expect(res.body.category).toBe('helpdesk');
  });

  it('accepts every known category and refuses others with the list', async () => {
    for (const [i, category] of PROVIDER_CATEGORIES.entries()) {
      const res = await post(t, '/api/providers', sandboxHeaders(org), declaration({ slug: `cat-${i}`, category }));
      expect({ category, status: res.status }).toEqual({ category, status: 201 });
    }
    const bad = await post(t, '/api/providers', sandboxHeaders(org), declaration({ slug: 'cat-bad', category: 'gaming' }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toMatch(/category.*'social' \| 'developer' \| 'productivity'/);
  });

  it('takes an identity provider on another loopback port (a local Keycloak beside the app), and refuses one the sign-in would block', async () => {
    // Before: 400 "would be blocked during sign-in … only 127.0.0.1:4655 may be local". The declared port is now the one allowed.
    const local = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      declaration({ slug: 'idp-port', identityProviders: ['https://accounts.idp.example', 'http://127.0.0.1:4656'] }),
    );
    expect(local.status).toBe(201);
    expect(local.body.identityProviders).toEqual(['https://accounts.idp.example', 'http://127.0.0.1:4656']);
    // The same host and port as the site itself, or a public one: accepted.
    const fine = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      declaration({ slug: 'idp-ok', identityProviders: ['http://sso.localhost:4655', 'https://accounts.idp.example'] }),
    );
    expect(fine.status).toBe(201);
    // A private address stays refused for an organization's sandbox provider, with the policy's reason.
    const privateIdp = await post(
      t,
      '/api/providers',
      sandboxHeaders(org),
      declaration({ slug: 'idp-lan', identityProviders: ['http://10.0.0.5:8080'] }),
    );
    const reason =
      "http://10.0.0.5:8080 would be blocked during sign-in: 10.0.0.5:8080: private: an organization's sandbox provider may reach loopback only (the operator allows private networks with AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow)";
    expectError(privateIdp, 'PROVIDER_DECLARATION_INVALID', {
      message: `identityProviders[0]: ${reason}`,
      details: [{ path: 'identityProviders[0]', message: reason }],
    });
    // A change that would add a blocked one is refused too, and changes nothing.
    const changed = await patch(t, `/api/providers/${fine.body.providerId}`, sandboxHeaders(org), {
      identityProviders: ['http://169.254.169.254'],
    });
    expect(
      expectError(changed, 'PROVIDER_DECLARATION_INVALID', {
        message: /^identityProviders\[0\]: http:\/\/169\.254\.169\.254 would be blocked/,
        details: expect.any(Array),
      }).code,
    ).toBe('PROVIDER_DECLARATION_INVALID');
    expect((await get(t, `/api/providers/${fine.body.providerId}`, sandboxHeaders(org))).body.identityProviders).toEqual([
      'http://sso.localhost:4655',
      'https://accounts.idp.example',
    ]);
  });

  it('refuses an identity provider on one of this service’s own ports (the policy’s tenant rule)', () => {
    const issues = identityProviderIssues(
      {
        name: 'Tenant',
        homeUrl: 'http://app.localhost:4700/',
        allowedOrigins: ['app.localhost'],
        identityProviders: ['http://app.localhost:4000'],
        source: 'organization',
      },
      'sandbox',
      { network: { ownPorts: [4000], privateNetwork: false } },
    );
    expect(issues).toEqual([{ index: 0, entry: 'http://app.localhost:4000', reason: expect.stringContaining("AgentLink's own") }]);
  });

  it('says which providers are the built-in sandbox sites (the only ones with the test-user hint)', async () => {
    const orbit = t.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!;
    expect(isBuiltInSandbox(orbit)).toBe(true);
    const own = (await t.services.catalogue.listFor({ organizationId: org.organizationId, environment: 'sandbox' })).find(
      (p) => p.slug === 'acme-helpdesk',
    )!;
    expect(isBuiltInSandbox(own)).toBe(false);
    expect(isBuiltInSandbox({ environment: 'sandbox', source: 'operator' })).toBe(false);
    expect(isBuiltInSandbox({ environment: 'production' })).toBe(false);
  });
});
