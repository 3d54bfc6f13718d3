import request from 'supertest';

import { createTestApp, type TestApp } from '../support/app';
import { createOrg, expectError, get, type Headers, post, productionHeaders, type TestOrg } from '../support/helpers';

/**
 * Provider declarations (POST/PATCH /api/providers, `addressIssues` in server/providers/declaration.ts) under numeric
 * and encoded forms of non-public hosts. Before, the validator judged the text as written: `2130706433`, `0x7f000001`,
 * `0177.0.0.1`, `127.1`, `0` and `0xa9fea9fe` are no IP literal and no local name, so a production declaration naming
 * them answered 201, while the egress policy (canonicalHostName, WHATWG URL) reads them as 127.0.0.1, 0.0.0.0 and
 * 169.254.169.254. Now every host is judged as the egress policy reads it. Real HTTP on loopback, production credentials.
 */
let t: TestApp;
let org: TestOrg;
let headers: Headers;
let slugs = 0;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  org = await createOrg(t, 'Declaring Co');
  headers = productionHeaders(org);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const patch = (path: string, body: unknown) =>
  request(t.server)
    .patch(path)
    .set(headers)
    .send(body as object);

/** A declaration of a public site; `overrides` put one non-public host into it. */
const declaration = (overrides: Record<string, unknown> = {}) => ({
  name: 'Public CRM',
  slug: `public-crm-${++slugs}`,
  category: 'developer',
  homeUrl: 'https://public.example.com/',
  loginUrl: 'https://public.example.com/login',
  allowedOrigins: ['public.example.com'],
  identityProviders: ['https://accounts.idp.example'],
  logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8"/></svg>',
  signedIn: { cookies: ['crm_session'] },
  ...overrides,
});

const refusal = (shown: string, reads?: string) =>
  `${shown} is not a public address${reads ? ` (it reads as ${reads})` : ''} (refused in production)`;

/** The answer must be 400 PROVIDER_DECLARATION_INVALID naming exactly these fields. */
function expectRefused(res: request.Response, details: { path: string; message: string }[]) {
  expect(res.status).toBe(400);
  expectError(res, 'PROVIDER_DECLARATION_INVALID', { message: `${details[0].path}: ${details[0].message}`, details });
}

/** POST with `allowedOrigins: ['public.example.com', entry]`: refused at allowedOrigins[1]. */
async function expectOriginRefused(entry: string, shown: string, reads?: string) {
  const res = await post(t, '/api/providers', headers, declaration({ allowedOrigins: ['public.example.com', entry] }));
  expectRefused(res, [{ path: 'allowedOrigins[1]', message: refusal(shown, reads) }]);
}

describe('declarations: numeric and encoded non-public hosts', () => {
  it('control: a public declaration is still accepted in production', async () => {
    const res = await post(
      t,
      '/api/providers',
      headers,
      declaration({ allowedOrigins: ['public.example.com', '*.cdn.example.com', 'https://api.example.com:8443', '8.8.8.8'] }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ environment: 'production', source: 'organization' });
  });

  it('refuses loopback as a decimal integer: allowedOrigins 2130706433', async () => {
    await expectOriginRefused('2130706433', '2130706433', '127.0.0.1');
  });

  it('refuses loopback as a hexadecimal integer: allowedOrigins 0x7f000001', async () => {
    await expectOriginRefused('0x7f000001', '0x7f000001', '127.0.0.1');
  });

  it('refuses loopback with an octal part: allowedOrigins 0177.0.0.1', async () => {
    await expectOriginRefused('0177.0.0.1', '0177.0.0.1', '127.0.0.1');
  });

  it('refuses loopback in short form: allowedOrigins 127.1', async () => {
    await expectOriginRefused('127.1', '127.1', '127.0.0.1');
  });

  it('refuses the unspecified address as a bare 0: allowedOrigins 0', async () => {
    await expectOriginRefused('0', '0', '0.0.0.0');
  });

  it('refuses the metadata service as a decimal integer: allowedOrigins 2852039166', async () => {
    await expectOriginRefused('2852039166', '2852039166', '169.254.169.254');
  });

  it('refuses the metadata service as a hexadecimal integer: allowedOrigins 0xa9fea9fe', async () => {
    await expectOriginRefused('0xa9fea9fe', '0xa9fea9fe', '169.254.169.254');
  });

  it('refuses loopback in hexadecimal short form as an identity provider: identityProviders 0x7f.1', async () => {
    const res = await post(t, '/api/providers', headers, declaration({ identityProviders: ['0x7f.1'] }));
    expectRefused(res, [{ path: 'identityProviders[0]', message: refusal('0x7f.1', '127.0.0.1') }]);
  });

  it('refuses a PATCH that sets an allowed origin to 0x7f000001 (the merged declaration is checked)', async () => {
    const created = await post(t, '/api/providers', headers, declaration());
    expect(created.status).toBe(201);
    const id = created.body.providerId;
    const res = await patch(`/api/providers/${id}`, { allowedOrigins: ['public.example.com', '0x7f000001'] });
    expectRefused(res, [{ path: 'allowedOrigins[1]', message: refusal('0x7f000001', '127.0.0.1') }]);
    expect((await get(t, `/api/providers/${id}`, headers)).body.allowedOrigins).toEqual(['public.example.com']);
  });

  it('refuses a PATCH that adds an octal integer identity provider: identityProviders 017700000001', async () => {
    const id = (await post(t, '/api/providers', headers, declaration())).body.providerId;
    const res = await patch(`/api/providers/${id}`, { identityProviders: ['https://accounts.idp.example', '017700000001'] });
    expectRefused(res, [{ path: 'identityProviders[1]', message: refusal('017700000001', '127.0.0.1') }]);
    expect((await get(t, `/api/providers/${id}`, headers)).body.identityProviders).toEqual(['https://accounts.idp.example']);
  });

  it('refuses IPv4-mapped IPv6 loopback in dotted form: allowedOrigins [::ffff:127.0.0.1]', async () => {
    await expectOriginRefused('[::ffff:127.0.0.1]', '[::ffff:127.0.0.1]', '::ffff:7f00:1');
  });

  it('refuses IPv4-mapped IPv6 loopback in hexadecimal form: allowedOrigins [::ffff:7f00:1]', async () => {
    await expectOriginRefused('[::ffff:7f00:1]', '[::ffff:7f00:1]');
  });

  it('refuses the metadata service as IPv4-mapped IPv6: allowedOrigins [::ffff:a9fe:a9fe]', async () => {
    await expectOriginRefused('[::ffff:a9fe:a9fe]', '[::ffff:a9fe:a9fe]');
  });

  it('refuses a private address as a decimal integer: allowedOrigins 3232235777 (192.168.1.1)', async () => {
    await expectOriginRefused('3232235777', '3232235777', '192.168.1.1');
  });

  it('refuses a wildcard over a numeric loopback: allowedOrigins *.2130706433', async () => {
    await expectOriginRefused('*.2130706433', '*.2130706433', '127.0.0.1');
  });

  it('refuses a full origin with a hexadecimal host and a port: allowedOrigins http://0x7f000001:8080', async () => {
    await expectOriginRefused('http://0x7f000001:8080', '127.0.0.1');
  });

  it('refuses a full origin with a percent-encoded hexadecimal host: allowedOrigins http://%30x7f000001', async () => {
    await expectOriginRefused('http://%30x7f000001', '127.0.0.1');
  });

  it('refuses the metadata service as a dotted-hexadecimal identity provider origin: https://0xa9.0xfe.0xa9.0xfe', async () => {
    const res = await post(t, '/api/providers', headers, declaration({ identityProviders: ['https://0xa9.0xfe.0xa9.0xfe'] }));
    expectRefused(res, [{ path: 'identityProviders[0]', message: refusal('169.254.169.254') }]);
  });

  it('refuses a home URL on a decimal-integer loopback: homeUrl http://2130706433/', async () => {
    const res = await post(
      t,
      '/api/providers',
      headers,
      declaration({
        homeUrl: 'http://2130706433/',
        allowedOrigins: ['https://public.example.com', 'http://2130706433'],
      }),
    );
    expectRefused(res, [
      { path: 'homeUrl', message: refusal('127.0.0.1') },
      { path: 'allowedOrigins[1]', message: refusal('127.0.0.1') },
    ]);
  });

  it('refuses, with its path and without throwing, a host WHATWG URL cannot read: allowedOrigins 1.2.3.4.5', async () => {
    const res = await post(t, '/api/providers', headers, declaration({ allowedOrigins: ['public.example.com', '1.2.3.4.5'] }));
    expectRefused(res, [{ path: 'allowedOrigins[1]', message: '1.2.3.4.5 is not a host name or address a browser can read' }]);
  });
});
