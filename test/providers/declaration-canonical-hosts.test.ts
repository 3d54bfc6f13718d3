import { ProviderDeclarationSchema } from '../../contract/provider-declaration';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { addressIssues, compileDeclaration } from '../../server/providers/declaration';
import { createTestApp, type TestApp } from '../support/app';
import { createOrg, expectError, post, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * Declared hosts are judged as the egress policy reads them (WHATWG URL): production refuses numeric and encoded forms
 * of non-public addresses (test/security/declaration-addresses.security.test.ts); the sandbox, where the simulated
 * sites live on this machine, still accepts loopback however it is written. A host WHATWG URL cannot read is refused
 * everywhere, with its path: no egress policy could be built from it.
 */
const sandboxDeclaration = (overrides: Record<string, unknown> = {}) => ({
  name: 'Local CRM',
  slug: 'local-crm',
  category: 'developer',
  homeUrl: 'http://127.0.0.1:4555/',
  loginUrl: 'http://127.0.0.1:4555/login',
  allowedOrigins: ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '*.0x7f000001', 'http://0177.0.0.1:4556'],
  identityProviders: ['0x7f000001'],
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
  ...overrides,
});

describe('declared hosts, read as the egress policy reads them', () => {
  it('the sandbox accepts loopback under any encoding, and the egress policy reads each entry as loopback', () => {
    const d = ProviderDeclarationSchema.parse(sandboxDeclaration());
    expect(addressIssues(d, 'sandbox')).toEqual([]);
    const provider = compileDeclaration(d, { providerId: '00000000-0000-4000-8000-000000000002', environment: 'sandbox' });
    const hosts = EgressPolicy.forSignIn(provider, 'sandbox').origins.map((o) => o.host);
    expect(hosts).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1', '::ffff:7f00:1', '.127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });

  it('production refuses every one of them, with its path and what it reads as', () => {
    const d = ProviderDeclarationSchema.parse(sandboxDeclaration());
    expect(addressIssues(d, 'production')).toEqual([
      { path: 'homeUrl', message: '127.0.0.1 is not a public address (refused in production)' },
      { path: 'loginUrl', message: '127.0.0.1 is not a public address (refused in production)' },
      { path: 'allowedOrigins[0]', message: '127.0.0.1 is not a public address (refused in production)' },
      { path: 'allowedOrigins[1]', message: '2130706433 is not a public address (it reads as 127.0.0.1) (refused in production)' },
      { path: 'allowedOrigins[2]', message: '0x7f.1 is not a public address (it reads as 127.0.0.1) (refused in production)' },
      { path: 'allowedOrigins[3]', message: '127.1 is not a public address (it reads as 127.0.0.1) (refused in production)' },
      {
        path: 'allowedOrigins[4]',
        message: '[::ffff:127.0.0.1] is not a public address (it reads as ::ffff:7f00:1) (refused in production)',
      },
      { path: 'allowedOrigins[5]', message: '*.0x7f000001 is not a public address (it reads as 127.0.0.1) (refused in production)' },
      { path: 'allowedOrigins[6]', message: '127.0.0.1 is not a public address (refused in production)' },
      { path: 'identityProviders[0]', message: '0x7f000001 is not a public address (it reads as 127.0.0.1) (refused in production)' },
    ]);
  });

  it('refuses a host WHATWG URL cannot read in either environment, with its path', () => {
    const d = ProviderDeclarationSchema.parse(
      sandboxDeclaration({ allowedOrigins: ['127.0.0.1', '999.1.1.1'], identityProviders: ['a.1'] }),
    );
    const issues = [
      { path: 'allowedOrigins[1]', message: '999.1.1.1 is not a host name or address a browser can read' },
      { path: 'identityProviders[0]', message: 'a.1 is not a host name or address a browser can read' },
    ];
    expect(addressIssues(d, 'sandbox')).toEqual(issues);
    expect(addressIssues(d, 'production')).toEqual(expect.arrayContaining(issues));
  });

  describe('through the API (sandbox credentials)', () => {
    let t: TestApp;
    let org: TestOrg;
    beforeAll(async () => {
      t = await createTestApp('sqlite');
      org = await createOrg(t, 'Sandbox Declaring Co');
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('accepts numeric loopback forms in the sandbox', async () => {
      const res = await post(t, '/api/providers', sandboxHeaders(org), sandboxDeclaration());
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ environment: 'sandbox', allowedOrigins: sandboxDeclaration().allowedOrigins });
    });

    it('refuses an unreadable host in the sandbox with its path', async () => {
      const res = await post(
        t,
        '/api/providers',
        sandboxHeaders(org),
        sandboxDeclaration({ slug: 'unreadable', allowedOrigins: ['127.0.0.1', '1.2.3.4.5'] }),
      );
      expectError(res, 'PROVIDER_DECLARATION_INVALID', {
        message: 'allowedOrigins[1]: 1.2.3.4.5 is not a host name or address a browser can read',
        details: [{ path: 'allowedOrigins[1]', message: '1.2.3.4.5 is not a host name or address a browser can read' }],
      });
    });
  });
});
