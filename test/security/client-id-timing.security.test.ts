import { randomBytes } from 'node:crypto';

import * as secrets from '../../server/domain/secrets';
import { createTestApp, type TestApp } from '../support/app';
import { createOrg, type TestOrg } from '../support/helpers';

/**
 * Client credentials (server/domain/organizations.service.ts): an unknown client id must not answer faster than a
 * known one with a wrong secret, or timing tells which client ids exist. The secret presented with an unknown id is
 * verified against a decoy hash of the same scrypt parameters, under the same failure budgets
 * (server/domain/auth-failures.ts) as a known id: those count both alike, as they did before.
 * The dashboard's sign-in (server/dashboard/accounts.service.ts) is held to the same rule for unknown emails.
 *
 * What makes the two take as long is checked as what it is, not by a stopwatch (which measures the machine as much as
 * the code, and at the test's scrypt cost barely sees a skipped hash): each answer comes after exactly one scrypt,
 * finished before it, at the same cost (N, r, p) for an unknown id as for a known one.
 * The app trusts X-Forwarded-For, so the calls each come from a fresh address (no budget is near).
 */
const PER_CLIENT_ID = 3;
const PER_ADDRESS = 5;
const SAMPLES = 3;

let t: TestApp;
let org: TestOrg;
let verifySpy: jest.SpyInstance;
/** The cost (`scrypt$N$r$p`) of each scrypt that finished, in order. */
const hashed: string[] = [];

beforeAll(async () => {
  t = await createTestApp('sqlite', {
    AGENTLINK_TRUST_PROXY: 'true',
    AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: String(PER_CLIENT_ID),
    AGENTLINK_AUTH_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  });
  org = await createOrg(t, 'Timing Co');
  const verify = secrets.verifySecret;
  verifySpy = jest.spyOn(secrets, 'verifySecret').mockImplementation(async (secret: string, stored: string) => {
    const matches = await verify(secret, stored);
    hashed.push(stored.split('$').slice(0, 4).join('$'));
    return matches;
  });
}, 60_000);

afterAll(async () => {
  verifySpy?.mockRestore();
  await t?.close();
});

let addressCounter = 0;
/** A fresh documentation address (TEST-NET-2) per call site, so budgets start empty. */
const freshAddress = () => `198.51.100.${++addressCounter}`;
const wrongSecret = () => `sk_sandbox_${randomBytes(32).toString('base64url')}`;
const unknownId = () => `cli_${randomBytes(12).toString('hex')}`;

/** One failed sign-in with a wrong secret; `paid`: the cost of each scrypt that had finished when it was answered. */
async function call(clientId: string, address: string): Promise<{ status: number; body: unknown; paid: string[] }> {
  hashed.length = 0;
  const res = await fetch(`${t.baseUrl}/api/providers`, {
    headers: { 'x-client-id': clientId, 'x-client-secret': wrongSecret(), 'x-forwarded-for': address },
  });
  const paid = [...hashed];
  const body = (await res.json()) as { error: Record<string, unknown> };
  delete body.error.requestId;
  return { status: res.status, body, paid };
}

/** Each answer came after exactly one scrypt, at the same cost for the unknown case as for the known one. */
function expectSamePrice(known: string[][], unknown: string[][]) {
  const price = known[0]![0];
  expect(price).toMatch(/^scrypt\$\d+\$\d+\$\d+$/);
  expect({ known, unknown }).toEqual({ known: known.map(() => [price]), unknown: unknown.map(() => [price]) });
}

describe('client credentials: timing', () => {
  it('an unknown client id takes as long as a known one with a wrong secret (both pay one scrypt)', async () => {
    const known: string[][] = [];
    const unknown: string[][] = [];
    const answers = new Set<string>();
    for (let i = 0; i < SAMPLES; i += 1) {
      const k = await call(org.clientId, freshAddress());
      const u = await call(unknownId(), freshAddress());
      expect([k.status, u.status]).toEqual([401, 401]);
      known.push(k.paid);
      unknown.push(u.paid);
      answers.add(JSON.stringify(k.body)).add(JSON.stringify(u.body));
    }
    expect([...answers].map((a) => JSON.parse(a) as unknown)).toEqual([
      { error: expect.objectContaining({ code: 'INVALID_CLIENT_CREDENTIALS' }) },
    ]);
    expectSamePrice(known, unknown);
  });

  it('counts the failures of an unknown client id and of a known one alike: per client id, per address, no hash once over', async () => {
    for (const clientId of [org.clientId, unknownId()]) {
      const address = freshAddress();
      verifySpy.mockClear();
      const statuses: number[] = [];
      for (let i = 0; i < PER_CLIENT_ID + 2; i += 1) statuses.push((await call(clientId, address)).status);
      // The client id's budget (from one address): PER_CLIENT_ID plain 401s, each after one hash; then 429, no hash.
      expect({ clientId, statuses }).toEqual({ clientId, statuses: [...Array(PER_CLIENT_ID).fill(401), 429, 429] });
      expect(verifySpy).toHaveBeenCalledTimes(PER_CLIENT_ID);
      // The same client id from another address starts with a fresh budget (client ids are not secret).
      expect((await call(clientId, freshAddress())).status).toBe(401);
    }
    // The address's budget takes known and unknown client ids alike.
    const address = freshAddress();
    const spread = [org.clientId, unknownId(), org.clientId, unknownId(), unknownId(), org.clientId, unknownId()];
    const statuses: number[] = [];
    for (const clientId of spread) statuses.push((await call(clientId, address)).status);
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429, 429]);
  });

  it('the dashboard: an unknown email takes as long as a known one with a wrong password', async () => {
    const accounts = t.services.dashboard;
    const password = 'correct horse battery';
    const emails: string[] = [];
    // Fresh accounts: 5 failures lock an email (without a hash), so each is tried once or twice only.
    for (let i = 0; i <= SAMPLES; i += 1) {
      const email = `timing-${i}-${randomBytes(4).toString('hex')}@example.com`;
      const created = await accounts.signUp(email, password, null);
      expect(created.ok).toBe(true);
      emails.push(email);
    }
    const signIn = async (email: string) => {
      hashed.length = 0;
      const result = await accounts.signIn(email, 'wrong password!', null);
      const paid = [...hashed];
      expect(result).toMatchObject({ ok: false, code: 'INVALID_LOGIN' });
      return paid;
    };
    const known: string[][] = [];
    const unknown: string[][] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      known.push(await signIn(emails[i]!));
      unknown.push(await signIn(`nobody-${i}-${randomBytes(4).toString('hex')}@example.com`));
    }
    expectSamePrice(known, unknown);
  }, 30_000);
});
