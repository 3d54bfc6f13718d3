import { hashToken } from '../../server/domain/tokens';
import { describeEachStore } from '../support/app';
import { createOrg, expectError, post, productionHeaders, sandboxHeaders, type TestOrg } from '../support/helpers';

/**
 * POST /api/link-token with completionRedirectUri (hosted links): accepted only when it is exactly one of the
 * organization's redirect URIs for the credentials' environment; anything else is 400 REDIRECT_URI_NOT_ALLOWED with
 * the field (and the rule it breaks, when registering it would not help either).
 */
const REGISTERED = 'https://app.example.com/agentlink/done?tenant=acme';
const LOOPBACK = 'http://127.0.0.1:3000/agentlink/done';

describeEachStore('link tokens with a completion redirect', (t) => {
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    org = await createOrg(t, 'Hosted Link Co');
    other = await createOrg(t, 'Other Hosted Link Co');
    for (const uri of [REGISTERED, LOOPBACK]) {
      expect((await post(t, '/api/redirect-uris', sandboxHeaders(org), { uri })).status).toBe(201);
    }
    expect((await post(t, '/api/redirect-uris', sandboxHeaders(other), { uri: 'https://other.example.com/done' })).status).toBe(201);
  });

  const create = (body: Record<string, unknown>, headers = sandboxHeaders(org)) =>
    post(t, '/api/link-token', headers, { clientUserId: 'hosted-user', ...body });
  const notAllowed = (message: string, details: Record<string, unknown> = { field: 'completionRedirectUri' }) => ({ message, details });
  const NOT_REGISTERED = (env: string) =>
    `completionRedirectUri is not one of your ${env} redirect URIs (matched exactly); register it with POST /api/redirect-uris.`;

  it('accepts a registered URI, exactly as registered, and keeps it on the link token', async () => {
    for (const uri of [REGISTERED, LOOPBACK]) {
      const res = await create({ completionRedirectUri: uri });
      expect(res.status).toBe(200);
      const record = await t.store.repos.linkTokens.findByHash(hashToken(res.body.linkToken));
      expect(record).toMatchObject({ completionRedirectUri: uri, clientUserId: 'hosted-user' });
    }
    // Without it nothing changes: the widget ends on its own page.
    const plain = await create({});
    expect((await t.store.repos.linkTokens.findByHash(hashToken(plain.body.linkToken)))!.completionRedirectUri).toBeNull();
  });

  it('refuses a URI that is not registered, whole, with the field', async () => {
    expectError(
      await create({ completionRedirectUri: 'https://evil.example.com/steal' }),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed(NOT_REGISTERED('sandbox')),
    );
    // Exact match: no prefix, no other spelling, no extra or missing query.
    for (const near of [
      'https://app.example.com/agentlink/done',
      'https://app.example.com/agentlink/done?tenant=acme&x=1',
      'https://APP.example.com/agentlink/done?tenant=acme',
      'https://app.example.com/agentlink/done/?tenant=acme',
      'https://app.example.com:443/agentlink/done?tenant=acme',
    ]) {
      expectError(await create({ completionRedirectUri: near }), 'REDIRECT_URI_NOT_ALLOWED', notAllowed(NOT_REGISTERED('sandbox')));
    }
    // Another organization's URI, or this organization's in the other environment, is not this one's.
    expectError(
      await create({ completionRedirectUri: 'https://other.example.com/done' }),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed(NOT_REGISTERED('sandbox')),
    );
    expectError(
      await create({ completionRedirectUri: REGISTERED }, productionHeaders(org)),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed(NOT_REGISTERED('production')),
    );
  });

  it('names the rule when the URI could not be registered either', async () => {
    expectError(
      await create({ completionRedirectUri: 'http://app.example.com/done' }),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed('completionRedirectUri must use https (plain http only for loopback hosts: localhost, 127.0.0.1, [::1]).', {
        field: 'completionRedirectUri',
        rule: 'HTTPS_REQUIRED',
      }),
    );
    expectError(
      await create({ completionRedirectUri: LOOPBACK }, productionHeaders(org)),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed('completionRedirectUri must use https (production redirect URIs never use plain http).', {
        field: 'completionRedirectUri',
        rule: 'HTTPS_REQUIRED',
      }),
    );
    expectError(
      await create({ completionRedirectUri: `${REGISTERED}#done` }),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed('completionRedirectUri must not have a fragment (#…).', { field: 'completionRedirectUri', rule: 'FRAGMENT_NOT_ALLOWED' }),
    );
    expectError(
      await create({ completionRedirectUri: 'not a url' }),
      'REDIRECT_URI_NOT_ALLOWED',
      notAllowed('completionRedirectUri must not contain spaces or control characters.', {
        field: 'completionRedirectUri',
        rule: 'INVALID_CHARACTERS',
      }),
    );
  });

  it('checks the shape first: length, type, and the old redirectUri name is an unknown field', async () => {
    expectError(await create({ completionRedirectUri: `https://app.example.com/${'a'.repeat(2048)}` }), 'INVALID_FIELD', {
      details: [{ path: 'completionRedirectUri', message: 'String must contain at most 2048 character(s)' }],
    });
    expectError(await create({ completionRedirectUri: 42 }), 'INVALID_FIELD', {
      details: [{ path: 'completionRedirectUri', message: 'Expected string, received number' }],
    });
    expectError(await create({ redirectUri: REGISTERED }), 'INVALID_FIELD', {
      details: [{ path: 'body', message: 'unknown field(s): redirectUri' }],
    });
  });
});
