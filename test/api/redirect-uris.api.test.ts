import { REDIRECT_URI_LIMITS } from '../../contract/redirect-uri-schemas';
import { describeEachStore } from '../support/app';
import { createOrg, del, expectError, get, post, productionHeaders, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * The allowed redirect URIs (/api/redirect-uris): where hosted links may send the browser when they end. Registered
 * per organization and environment, checked by rule (https, loopback http in the sandbox only, no fragment, no
 * credentials, bounded), at most 20 per organization and environment, invisible to any other organization.
 */
const URI = 'https://app.example.com/agentlink/done?tenant=acme';

describeEachStore('redirect URIs API', (t) => {
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    org = await createOrg(t, 'Redirects Org');
    other = await createOrg(t, 'Other Redirects Org');
  });

  const create = (o: TestOrg, uri: unknown, headers = sandboxHeaders(o)) => post(t, '/api/redirect-uris', headers, { uri });

  it('is protected by client credentials', async () => {
    expectError(await get(t, '/api/redirect-uris'), 'MISSING_CLIENT_CREDENTIALS');
    expectError(await post(t, '/api/redirect-uris', {}, { uri: URI }), 'MISSING_CLIENT_CREDENTIALS');
    expectError(await del(t, '/api/redirect-uris/ruri_x'), 'MISSING_CLIENT_CREDENTIALS');
  });

  it('registers, lists and removes a URI, exactly as written', async () => {
    const created = await create(org, URI);
    expect(created.status).toBe(201);
    expect(created.body).toStrictEqual({
      redirectUriId: expect.stringMatching(/^ruri_[0-9a-f]{24}$/),
      uri: URI,
      environment: 'sandbox',
      createdAt: t.clock.now().toISOString(),
    });
    // Exact match: another spelling of the same address is another entry (nothing is normalised). Listed oldest first.
    t.clock.advance(1000);
    const upper = await create(org, 'https://APP.example.com/agentlink/done?tenant=acme');
    expect(upper.status).toBe(201);

    const listed = await get(t, '/api/redirect-uris', sandboxHeaders(org));
    expect(listed.status).toBe(200);
    expect(listed.body).toStrictEqual({ data: [created.body, upper.body] });

    const removed = await del(t, `/api/redirect-uris/${created.body.redirectUriId}`, sandboxHeaders(org));
    expect(removed.status).toBe(200);
    expect(removed.body).toStrictEqual(created.body);
    expectError(await del(t, `/api/redirect-uris/${created.body.redirectUriId}`, sandboxHeaders(org)), 'REDIRECT_URI_NOT_FOUND', {
      message: `No redirect URI ${created.body.redirectUriId}.`,
    });
    expect((await get(t, '/api/redirect-uris', sandboxHeaders(org))).body).toStrictEqual({ data: [upper.body] });
    await del(t, `/api/redirect-uris/${upper.body.redirectUriId}`, sandboxHeaders(org));
  });

  it('refuses a URI twice in one environment, with the id of the first', async () => {
    const first = await create(org, 'https://app.example.com/twice');
    expectError(await create(org, 'https://app.example.com/twice'), 'REDIRECT_URI_ALREADY_REGISTERED', {
      message: `https://app.example.com/twice is already registered (${first.body.redirectUriId}).`,
      details: { field: 'uri', redirectUriId: first.body.redirectUriId },
    });
    // The other environment has its own list.
    expect((await create(org, 'https://app.example.com/twice', productionHeaders(org))).status).toBe(201);
  });

  it('refuses each broken rule with its own rule name, the error whole', async () => {
    const refused = async (uri: string, rule: string, message: string, headers = sandboxHeaders(org)) =>
      expectError(await create(org, uri, headers), 'REDIRECT_URI_INVALID', { message, details: { field: 'uri', rule } });
    await refused(
      'http://app.example.com/done',
      'HTTPS_REQUIRED',
      'uri must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1]).',
    );
    await refused(
      'http://localhost:3000/done',
      'HTTPS_REQUIRED',
      'uri must use https (production redirect URIs never use plain http).',
      productionHeaders(org),
    );
    await refused(
      'myapp://agentlink/done',
      'HTTPS_REQUIRED',
      'uri must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1]).',
    );
    await refused(
      'javascript:alert(1)',
      'HTTPS_REQUIRED',
      'uri must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1]).',
    );
    await refused('https://app.example.com/done#step', 'FRAGMENT_NOT_ALLOWED', 'uri must not have a fragment (#…).');
    await refused('https://app.example.com/done#', 'FRAGMENT_NOT_ALLOWED', 'uri must not have a fragment (#…).');
    await refused('https://user:pw@app.example.com/done', 'CREDENTIALS_NOT_ALLOWED', 'uri must not carry a user name or password.');
    await refused('/agentlink/done', 'NOT_AN_ABSOLUTE_URL', 'uri must be an absolute URL such as https://app.example.com/agentlink/done.');
    await refused('https://app.example.com/a b', 'INVALID_CHARACTERS', 'uri must not contain spaces or control characters.');
    await refused('https://app.example.com/a\tb', 'INVALID_CHARACTERS', 'uri must not contain spaces or control characters.');
    await refused(
      'https://app.example.com/done?public_token=x',
      'RESERVED_QUERY_PARAMETER',
      'uri must not carry the query parameter public_token (AgentLink adds it).',
    );
    await refused(
      'https://app.example.com/done?a=1&status=ok',
      'RESERVED_QUERY_PARAMETER',
      'uri must not carry the query parameter status (AgentLink adds it).',
    );
    // Shape errors come from the contract: the same envelope, INVALID_FIELD with each path.
    expectError(await create(org, `https://app.example.com/${'a'.repeat(REDIRECT_URI_LIMITS.uriMax)}`), 'INVALID_FIELD', {
      details: [{ path: 'uri', message: `String must contain at most ${REDIRECT_URI_LIMITS.uriMax} character(s)` }],
    });
    expectError(await create(org, ''), 'INVALID_FIELD', {
      details: [{ path: 'uri', message: 'String must contain at least 1 character(s)' }],
    });
    expectError(await post(t, '/api/redirect-uris', sandboxHeaders(org), { uri: URI, redirectUri: URI }), 'INVALID_FIELD', {
      details: [{ path: 'body', message: 'unknown field(s): redirectUri' }],
    });
    expect((await get(t, '/api/redirect-uris', productionHeaders(org))).body.data.map((u: { uri: string }) => u.uri)).toEqual([
      'https://app.example.com/twice',
    ]);
  });

  it('accepts plain http for loopback hosts in the sandbox only', async () => {
    for (const uri of ['http://localhost:3000/done', 'http://127.0.0.1:8080/cb?x=1', 'http://[::1]:9000/cb', 'http://app.localhost/cb']) {
      const res = await create(org, uri);
      expect([res.status, res.body.uri]).toEqual([201, uri]);
      await del(t, `/api/redirect-uris/${res.body.redirectUriId}`, sandboxHeaders(org));
    }
  });

  it(`allows at most ${REDIRECT_URI_LIMITS.perEnvironmentMax} per organization and environment`, async () => {
    const mine = await createOrg(t, 'Many Redirects Org');
    for (let i = 0; i < REDIRECT_URI_LIMITS.perEnvironmentMax; i++) {
      expect((await create(mine, `https://app.example.com/cb/${i}`)).status).toBe(201);
    }
    expectError(await create(mine, 'https://app.example.com/cb/one-more'), 'REDIRECT_URI_LIMIT', {
      message: `At most ${REDIRECT_URI_LIMITS.perEnvironmentMax} redirect URIs per organization and environment; delete one first.`,
    });
    // The limit is per environment and per organization.
    expect((await create(mine, 'https://app.example.com/cb/one-more', productionHeaders(mine))).status).toBe(201);
    expect((await create(other, 'https://app.example.com/cb/one-more')).status).toBe(201);
    const list = await get(t, '/api/redirect-uris', sandboxHeaders(mine));
    expect(list.body.data).toHaveLength(REDIRECT_URI_LIMITS.perEnvironmentMax);
    await del(t, `/api/redirect-uris/${list.body.data[0].redirectUriId}`, sandboxHeaders(mine));
    expect((await create(mine, 'https://app.example.com/cb/one-more')).status).toBe(201);
  });

  it('keeps organizations and environments apart', async () => {
    const mine = await create(org, 'https://app.example.com/private');
    const theirs = await get(t, '/api/redirect-uris', sandboxHeaders(other));
    expect(theirs.body.data.map((u: { uri: string }) => u.uri)).not.toContain('https://app.example.com/private');
    // Another organization, or the other environment of the same one, cannot remove it: as if it did not exist.
    expectError(await del(t, `/api/redirect-uris/${mine.body.redirectUriId}`, sandboxHeaders(other)), 'REDIRECT_URI_NOT_FOUND');
    expectError(await del(t, `/api/redirect-uris/${mine.body.redirectUriId}`, productionHeaders(org)), 'REDIRECT_URI_NOT_FOUND');
    // …and may register the same URI for itself.
    expect((await create(other, 'https://app.example.com/private')).status).toBe(201);
    expect((await get(t, '/api/redirect-uris', sandboxHeaders(org))).body.data.map((u: { uri: string }) => u.uri)).toContain(
      'https://app.example.com/private',
    );
  });
});
