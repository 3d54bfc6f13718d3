import { createHash } from 'node:crypto';

import { LUMEN_PROVIDER_ID } from '../../server/integrations/lumen/lumen.provider';
import { QUILL_PROVIDER_ID } from '../../server/integrations/quill/quill.provider';
import { CLOCK_START, describeEachStore } from '../support/app';
import {
  createOrg,
  expectError,
  FORGEHUB_PROVIDER_ID,
  get,
  GITHUB_PROVIDER_ID,
  ORBIT_PROVIDER_ID,
  post,
  productionHeaders,
  REQUEST_ID_PATTERN,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

describeEachStore('providers and link tokens', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Link Co');
  });

  describe('GET /api/providers', () => {
    it('lists the sandbox catalogue for sandbox credentials', async () => {
      const res = await get(t, '/api/providers', sandboxHeaders(org));
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(REQUEST_ID_PATTERN);
      const providers = res.body.providers as Record<string, unknown>[];
      expect(providers.map((p) => p.providerId).sort()).toEqual(
        [FORGEHUB_PROVIDER_ID, ORBIT_PROVIDER_ID, LUMEN_PROVIDER_ID, QUILL_PROVIDER_ID].sort(),
      );
      const orbit = providers.find((p) => p.providerId === ORBIT_PROVIDER_ID)!;
      expect(orbit).toMatchObject({
        providerId: ORBIT_PROVIDER_ID,
        name: expect.stringMatching(/Orbit/),
        slug: 'orbit',
        category: 'social',
        environment: 'sandbox',
        homeUrl: 'http://orbit.sandbox.localhost:4000/',
        loginUrl: 'http://orbit.sandbox.localhost:4000/login',
        allowedOrigins: ['orbit.sandbox.localhost'],
        logo: expect.stringMatching(/^data:image\/svg\+xml;base64,/),
      });
    });

    it('lists only production providers for production credentials', async () => {
      const res = await get(t, '/api/providers', productionHeaders(org));
      expect(res.status).toBe(200);
      const providers = res.body.providers as { providerId: string; environment: string; slug: string }[];
      expect(providers.length).toBeGreaterThan(0);
      expect(providers.every((p) => p.environment === 'production')).toBe(true);
      expect(providers.map((p) => p.providerId)).toContain(GITHUB_PROVIDER_ID);
      expect(providers.map((p) => p.providerId)).not.toContain(ORBIT_PROVIDER_ID);
    });

    it('needs credentials', async () => {
      expectError(await get(t, '/api/providers'), 'MISSING_CLIENT_CREDENTIALS');
    });
  });

  describe('POST /api/link-token', () => {
    it('creates a sandbox link token valid 30 minutes, stored only as its hash', async () => {
      const res = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'user-42' });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        linkToken: expect.stringMatching(/^link-sandbox-[A-Za-z0-9_-]{43}$/),
        expiration: new Date(t.clock.now().getTime() + 30 * 60_000).toISOString(),
        environment: 'sandbox',
      });
      const hash = createHash('sha256').update(res.body.linkToken).digest('hex');
      const record = await t.store.repos.linkTokens.findByHash(hash);
      expect(record).toMatchObject({
        organizationId: org.organizationId,
        environment: 'sandbox',
        clientUserId: 'user-42',
        providerId: null,
        connectionId: null,
        usedAt: null,
      });
      expect(record!.tokenHash).toBe(hash);
      expect(record!.createdAt.getTime()).toBe(t.clock.now().getTime());
    });

    it('accepts a providerId of the environment and records it', async () => {
      const res = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'user-43', providerId: FORGEHUB_PROVIDER_ID });
      expect(res.status).toBe(200);
      const record = await t.store.repos.linkTokens.findByHash(createHash('sha256').update(res.body.linkToken).digest('hex'));
      expect(record?.providerId).toBe(FORGEHUB_PROVIDER_ID);
    });

    it("records signIn ('auto' by default, 'live' when asked) and refuses any other value", async () => {
      const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
      const auto = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'user-44' });
      expect((await t.store.repos.linkTokens.findByHash(hashOf(auto.body.linkToken)))?.signIn).toBe('auto');
      const live = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'user-44', signIn: 'live' });
      expect(live.status).toBe(200);
      expect((await t.store.repos.linkTokens.findByHash(hashOf(live.body.linkToken)))?.signIn).toBe('live');
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'user-44', signIn: 'popup' }), 'INVALID_FIELD', {
        details: [{ path: 'signIn', message: "Invalid enum value. Expected 'auto' | 'live', received 'popup'" }],
      });
    });

    it('creates production link tokens with production credentials', async () => {
      const res = await post(t, '/api/link-token', productionHeaders(org), { clientUserId: 'user-42', providerId: GITHUB_PROVIDER_ID });
      expect(res.status).toBe(200);
      expect(res.body.linkToken).toMatch(/^link-production-[A-Za-z0-9_-]{43}$/);
      expect(res.body.environment).toBe('production');
    });

    it('gives every link token a fresh value', async () => {
      const a = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'same' });
      const b = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'same' });
      expect(a.body.linkToken).not.toBe(b.body.linkToken);
    });

    it('follows the injected clock for the expiration', async () => {
      t.clock.advance(3_600_000);
      const res = await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'later' });
      expect(new Date(res.body.expiration).getTime()).toBe(t.clock.now().getTime() + 30 * 60_000);
      expect(t.clock.now().getTime()).toBeGreaterThan(CLOCK_START);
    });

    it('rejects a provider of the other environment as UNKNOWN_PROVIDER', async () => {
      expectError(
        await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'u', providerId: GITHUB_PROVIDER_ID }),
        'UNKNOWN_PROVIDER',
        {
          message: new RegExp(GITHUB_PROVIDER_ID),
        },
      );
      expectError(
        await post(t, '/api/link-token', productionHeaders(org), { clientUserId: 'u', providerId: ORBIT_PROVIDER_ID }),
        'UNKNOWN_PROVIDER',
      );
    });

    it('validates clientUserId', async () => {
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), {}), 'INVALID_FIELD', {
        message: 'clientUserId: Required',
        details: [{ path: 'clientUserId', message: 'Required' }],
      });
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: '' }), 'INVALID_FIELD', {
        message: /^clientUserId: /,
        details: [{ path: 'clientUserId', message: expect.any(String) }],
      });
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'x'.repeat(257) }), 'INVALID_FIELD', {
        message: /^clientUserId: /,
        details: [{ path: 'clientUserId', message: expect.any(String) }],
      });
      expectError(await post(t, '/api/link-token', sandboxHeaders(org), { clientUserId: 'u', providerId: 'not-a-uuid' }), 'INVALID_FIELD', {
        message: /^providerId: /,
        details: [{ path: 'providerId', message: expect.any(String) }],
      });
    });
  });
});
