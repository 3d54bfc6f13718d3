import { randomBytes } from 'node:crypto';

import * as cookie from 'cookie';
import request from 'supertest';

import { PUBLIC_TENANT, tenantFor } from '../../server/sandbox/site-sessions';
import { TenantTokens } from '../../server/sandbox/tenant-tokens';
import { createTestApp, type TestApp } from '../support/app';
import { createOrg } from '../support/helpers';

/**
 * Sandbox tenancy (server/sandbox/tenant-tokens.ts, kit/site-app.ts): a sign-in lands in an organization's copy of a
 * simulated site only with a ticket this service signed for that site and that has not expired. Before, a `tenant`
 * form field (a plain hash of the organization id) was enough, so anyone who knew an org id used its sandbox data.
 * Real HTTP on loopback, with the site's Host header, through the site's own sign-in form.
 */
const HOST = 'orbit.sandbox.localhost';
let t: TestApp;
let victimOrgId: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  victimOrgId = (await createOrg(t, 'Victim Co')).organizationId;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Opens /login (with `query`), posts the form as user_good with `extra` fields, and returns the session's tenant. */
async function signIn(opts: { query?: string; extra?: Record<string, string>; useFormTicket?: boolean } = {}) {
  const agent = request.agent(t.server);
  const page = await agent.get(`/login${opts.query ?? ''}`).set('host', HOST);
  expect(page.status).toBe(200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  const formTicket = /name="tenant_token" value="([^"]*)"/.exec(page.text)![1];
  const res = await agent
    .post('/login')
    .set('host', HOST)
    .type('form')
    .send({
      _csrf: csrf,
      username: 'user_good',
      password: 'pass_good',
      ...(opts.useFormTicket === false ? {} : { tenant_token: formTicket }),
      ...opts.extra,
    });
  expect(res.status).toBe(303);
  const setCookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const sid = setCookies.map((c) => cookie.parse(c).orbit_sid).find(Boolean);
  const session = await t.services.siteSessions.resolve('orbit', sid);
  expect(session).not.toBeNull();
  return { tenant: session!.tenant, page: page.text, formTicket };
}

describe('sandbox: tenancy', () => {
  it("refuses a `tenant` form field naming another organization's copy", async () => {
    const { tenant } = await signIn({ extra: { tenant: tenantFor(victimOrgId) } });
    expect(tenant).toBe(PUBLIC_TENANT);
  });

  it('refuses a `tenant` query on the sign-in page (it is not carried into the form)', async () => {
    const { tenant, page, formTicket } = await signIn({ query: `?tenant=${tenantFor(victimOrgId)}` });
    expect(page).not.toContain(tenantFor(victimOrgId));
    expect(formTicket).toBe('');
    expect(tenant).toBe(PUBLIC_TENANT);
  });

  it('refuses a forged ticket (the tenant name with a made-up signature)', async () => {
    const far = Math.floor(Date.now() / 1000) + 3600 * 24 * 365;
    const forged = `${tenantFor(victimOrgId)}.${far}.${randomBytes(32).toString('base64url')}`;
    expect((await signIn({ extra: { tenant_token: forged }, useFormTicket: false })).tenant).toBe(PUBLIC_TENANT);
  });

  it("refuses the attacker's own valid ticket with the tenant swapped for the victim's", async () => {
    const attackerOrgId = (await createOrg(t, 'Attacker Co')).organizationId;
    const own = t.services.tenantTokens.issue(attackerOrgId, 'orbit');
    // Control: the attacker's own ticket does open the attacker's own copy (through the page, as the login engine does).
    expect((await signIn({ query: `?tenant_token=${own}` })).tenant).toBe(tenantFor(attackerOrgId));
    const swapped = own.replace(tenantFor(attackerOrgId), tenantFor(victimOrgId));
    expect((await signIn({ extra: { tenant_token: swapped }, useFormTicket: false })).tenant).toBe(PUBLIC_TENANT);
    expect((await signIn({ query: `?tenant_token=${swapped}` })).formTicket).toBe('');
  });

  it('refuses a ticket issued for another site', async () => {
    const forForgehub = t.services.tenantTokens.issue(victimOrgId, 'forgehub');
    expect((await signIn({ extra: { tenant_token: forForgehub }, useFormTicket: false })).tenant).toBe(PUBLIC_TENANT);
  });

  it("refuses a ticket signed with another deployment's key", async () => {
    const elsewhere = new TenantTokens(randomBytes(32), t.clock).issue(victimOrgId, 'orbit');
    expect((await signIn({ extra: { tenant_token: elsewhere }, useFormTicket: false })).tenant).toBe(PUBLIC_TENANT);
  });

  it('refuses an expired ticket (older than 15 minutes)', async () => {
    const old = t.services.tenantTokens.issue(victimOrgId, 'orbit');
    t.clock.advance(15 * 60 * 1000 + 1000);
    expect((await signIn({ extra: { tenant_token: old }, useFormTicket: false })).tenant).toBe(PUBLIC_TENANT);
  });
});
