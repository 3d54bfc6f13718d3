import request, { type Response } from 'supertest';

import { createTestApp, type TestApp } from '../support/app';
import { createOrg, expectError, type Headers, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * Deeply nested JSON bodies (server/http/json-body.ts): refused with 400 INVALID_FIELD by the body guard's one
 * iterative walk, before validation or the idempotency fingerprint (an iterative canonical JSON) touch them. Before,
 * a body 5,000 deep with an Idempotency-Key overflowed the recursive fingerprint and answered 500.
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  org = await createOrg(t, 'Deep Co');
}, 60_000);

afterAll(async () => {
  await t?.close();
});

let keyCounter = 0;
function postRaw(path: string, body: string, headers: Headers = {}): Promise<Response> {
  return request(t.server)
    .post(path)
    .set({ ...sandboxHeaders(org), 'content-type': 'application/json', 'idempotency-key': `deep-${++keyCounter}`, ...headers })
    .send(body);
}

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

function expectTooDeep(res: Response, path: string) {
  expectError(res, 'INVALID_FIELD', {
    message: `${path}: must be nested at most 64 levels deep`,
    details: [{ path, message: 'must be nested at most 64 levels deep' }],
  });
}

describe('request bodies: nesting depth', () => {
  it('refuses a body nested 5,000 deep with an Idempotency-Key (400, not 500)', async () => {
    expectTooDeep(await postRaw('/api/link-token', `{"clientUserId":"u","x":${nestedArrays(5_000)}}`), 'x');
  });

  it('refuses objects nested 20,000 deep', async () => {
    expectTooDeep(await postRaw('/api/link-token', `{"clientUserId":"u","x":${nestedObjects(20_000)}}`), 'x');
  });

  it('refuses a top-level array nested 100,000 deep (as deep as the 256 KiB limit allows)', async () => {
    expectTooDeep(await postRaw('/api/link-token', nestedArrays(100_000)), '[0]');
  });

  it('refuses deep nesting inside agent request parameters before validation walks it', async () => {
    const body = `{"accessToken":"access-sandbox-${'A'.repeat(43)}","action":"x","parameters":{"p":${nestedObjects(10_000)}}}`;
    expectTooDeep(await postRaw('/api/agent-requests', body), 'parameters');
  });

  it('refuses a deep body carrying a __proto__ key as well, without a 500', async () => {
    const res = await postRaw('/api/link-token', `{"clientUserId":"u","x":${'['.repeat(8_000)}{"__proto__":{}}${']'.repeat(8_000)}}`);
    expect(res.status).toBe(400);
    expect(['FORBIDDEN_PROPERTY_NAME', 'INVALID_FIELD']).toContain(res.body.error.code);
  });

  it('refuses the same deep body again with the same Idempotency-Key (nothing was stored, still 400)', async () => {
    const body = `{"clientUserId":"u","x":${nestedArrays(6_000)}}`;
    const headers = { 'idempotency-key': 'deep-repeat' };
    expectTooDeep(await postRaw('/api/link-token', body, headers), 'x');
    expectTooDeep(await postRaw('/api/link-token', body, headers), 'x');
  });
});
