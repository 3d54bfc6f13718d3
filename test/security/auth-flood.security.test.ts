import { randomBytes } from 'node:crypto';

import request, { type Response } from 'supertest';

import * as secrets from '../../server/domain/secrets';
import { createTestApp, type TestApp } from '../support/app';
import { createOrg, expectError, type Headers, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * Failed-authentication floods (server/domain/auth-failures.ts, organizations.service.ts): bad secrets are counted per
 * client id (from one source address) and per source address and, over budget, answered 429 AUTHENTICATION_THROTTLED with Retry-After before
 * any scrypt; an unknown client id costs the same hash as a known one (against a decoy). Timing is measured by `npm run bench:auth-flood`, not here.
 * The app trusts X-Forwarded-For so that "another address" can be played on loopback.
 */
const PER_CLIENT_ID = 3;
const PER_ADDRESS = 5;
const WINDOW_SECONDS = 60;

let t: TestApp;
let verifySpy: jest.SpyInstance;

beforeAll(async () => {
  t = await createTestApp('sqlite', {
    AGENTLINK_TRUST_PROXY: 'true',
    AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: String(PER_CLIENT_ID),
    AGENTLINK_AUTH_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
    AGENTLINK_AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
  });
  verifySpy = jest.spyOn(secrets, 'verifySecret');
}, 60_000);

afterAll(async () => {
  verifySpy?.mockRestore();
  await t?.close();
});

let addressCounter = 0;
/** A fresh documentation address (TEST-NET-3) per test, so each test's per-address budget starts empty. */
const freshAddress = () => `203.0.113.${++addressCounter}`;
const badSecret = () => `sk_sandbox_${randomBytes(32).toString('base64url')}`;

function call(headers: Headers, address: string): Promise<Response> {
  return request(t.server).get('/api/providers').set(headers).set('x-forwarded-for', address);
}

function expectThrottled(res: Response) {
  const error = expectError(res, 'AUTHENTICATION_THROTTLED', {
    message: /^Too many failed authentications; retry after \d+ second\(s\)\.$/,
    details: { retryAfterSeconds: expect.any(Number) },
  });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
  expect((error.details as { retryAfterSeconds: number }).retryAfterSeconds).toBe(retryAfter);
}

/** `n` sequential bad secrets against a client id from an address; returns the statuses. */
async function flood(clientId: string, address: string, n: number): Promise<Response[]> {
  const out: Response[] = [];
  for (let i = 0; i < n; i += 1) out.push(await call({ 'x-client-id': clientId, 'x-client-secret': badSecret() }, address));
  return out;
}

describe('auth: failed-authentication flood', () => {
  let victim: TestOrg;
  beforeAll(async () => {
    victim = await createOrg(t, 'Flooded Co');
  });

  it('blocks bad secrets against one client id after its budget, with 429 and Retry-After, before any hash', async () => {
    const org = await createOrg(t, 'Budget Co');
    // PER_CLIENT_ID < PER_ADDRESS: the client id's budget (per source address) is what answers here.
    const address = freshAddress();
    const results = await flood(org.clientId, address, PER_CLIENT_ID + 1);
    for (const res of results.slice(0, PER_CLIENT_ID)) expectError(res, 'INVALID_CLIENT_CREDENTIALS');
    verifySpy.mockClear();
    const after = await flood(org.clientId, address, 1);
    for (const res of [...results.slice(PER_CLIENT_ID), ...after]) expectThrottled(res);
    expect(verifySpy).not.toHaveBeenCalled();
  });

  it('refuses to let a stranger lock a client id out: its budget is per source address (client ids are not secret)', async () => {
    const org = await createOrg(t, 'Lockout Co');
    const attacker = freshAddress();
    expectThrottled((await flood(org.clientId, attacker, PER_CLIENT_ID + 1)).at(-1)!);
    // The owner's secret, never verified in this process, from the owner's own address: verified normally.
    expect((await call(sandboxHeaders(org), freshAddress())).status).toBe(200);
  });

  it('blocks parallel guesses too: at most the budget of them reach scrypt', async () => {
    const org = await createOrg(t, 'Parallel Co');
    verifySpy.mockClear();
    const address = freshAddress();
    const results = await Promise.all(
      Array.from({ length: 24 }, () => call({ 'x-client-id': org.clientId, 'x-client-secret': badSecret() }, address)),
    );
    // Exactly the budget (the spy does see the hashes: it is not vacuous).
    expect(verifySpy).toHaveBeenCalledTimes(PER_CLIENT_ID);
    expect(results.filter((r) => r.status === 401)).toHaveLength(PER_CLIENT_ID);
    for (const res of results.filter((r) => r.status !== 401)) expectThrottled(res);
  });

  it('blocks one address spreading bad secrets over many client ids', async () => {
    const orgs = await Promise.all([createOrg(t, 'Spread 1'), createOrg(t, 'Spread 2')]);
    const clientIds = [
      ...orgs.map((o) => o.clientId),
      ...Array.from({ length: PER_ADDRESS }, () => `cli_${randomBytes(12).toString('hex')}`),
    ];
    const address = freshAddress();
    const results: Response[] = [];
    for (const clientId of clientIds) results.push(...(await flood(clientId, address, 1)));
    for (const res of results.slice(0, PER_ADDRESS)) expectError(res, 'INVALID_CLIENT_CREDENTIALS');
    for (const res of results.slice(PER_ADDRESS)) expectThrottled(res);
  });

  it('spends one hash on an unknown client id, as on a known one (timing does not tell them apart), and none on malformed input', async () => {
    verifySpy.mockClear();
    const unknown = `cli_${randomBytes(12).toString('hex')}`;
    const first = await call({ 'x-client-id': unknown, 'x-client-secret': badSecret() }, freshAddress());
    const again = await call({ 'x-client-id': unknown, 'x-client-secret': badSecret() }, freshAddress());
    expectError(first, 'INVALID_CLIENT_CREDENTIALS');
    expectError(again, 'INVALID_CLIENT_CREDENTIALS');
    // Each against the decoy hash (test/security/client-id-timing.security.test.ts measures the time).
    expect(verifySpy).toHaveBeenCalledTimes(2);
    expect(verifySpy.mock.calls[1]![1]).toBe(await secrets.decoySecretHash());
    verifySpy.mockClear();
    // Malformed secrets and over-long ids are refused without a hash, whatever the client id.
    const org = await createOrg(t, 'Malformed Co');
    expectError(
      await call({ 'x-client-id': org.clientId, 'x-client-secret': 'sk_sandbox_short' }, freshAddress()),
      'INVALID_CLIENT_CREDENTIALS',
    );
    expectError(
      await call({ 'x-client-id': 'x'.repeat(5000), 'x-client-secret': badSecret() }, freshAddress()),
      'INVALID_CLIENT_CREDENTIALS',
    );
    expect(verifySpy).not.toHaveBeenCalled();
  });

  it("blocks the flood without touching another organization's good secret, from another address or the same one", async () => {
    const other = await createOrg(t, 'Bystander Co');
    const floodAddress = freshAddress();
    // Over the address's budget: the victim's client id and made-up ones, from one address.
    const results = await flood(victim.clientId, floodAddress, PER_CLIENT_ID);
    for (let i = 0; i < PER_ADDRESS - PER_CLIENT_ID + 2; i += 1) {
      results.push(...(await flood(`cli_${randomBytes(12).toString('hex')}`, floodAddress, 1)));
    }
    expectThrottled(results[results.length - 1]);
    expectThrottled(await call({ 'x-client-id': `cli_${randomBytes(12).toString('hex')}`, 'x-client-secret': badSecret() }, floodAddress));
    // A secret never seen before, from another address: verified normally.
    expect((await call(sandboxHeaders(other), freshAddress())).status).toBe(200);
    // A secret already verified is not judged against any budget, even from the flooding address.
    expect((await call(sandboxHeaders(other), floodAddress)).status).toBe(200);
  });

  it("refuses to lock the flooded client id's owner out when their secret was already verified", async () => {
    const owner = await createOrg(t, 'Owner Co');
    expect((await call(sandboxHeaders(owner), freshAddress())).status).toBe(200);
    const floodAddress = freshAddress();
    const results = await flood(owner.clientId, floodAddress, PER_CLIENT_ID + 2);
    expectThrottled(results[results.length - 1]);
    // Even from the flooding address: a verified secret is not judged against any budget.
    expect((await call(sandboxHeaders(owner), floodAddress)).status).toBe(200);
  });

  it('blocks even the right secret while a client id is throttled, and lets it through once the window has passed', async () => {
    const org = await createOrg(t, 'Window Co');
    const address = freshAddress();
    await flood(org.clientId, address, PER_CLIENT_ID);
    // The owner's secret, never verified in this process, from that address: the budget applies to it as well.
    expectThrottled(await call(sandboxHeaders(org), address));
    t.clock.advance((WINDOW_SECONDS + 1) * 1000);
    expect((await call(sandboxHeaders(org), address)).status).toBe(200);
    // And the success cleared the client id's count there: a mistake right after is a plain 401, not a 429.
    expectError(await call({ 'x-client-id': org.clientId, 'x-client-secret': badSecret() }, address), 'INVALID_CLIENT_CREDENTIALS');
  });
});
