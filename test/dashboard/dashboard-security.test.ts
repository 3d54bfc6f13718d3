import request, { type Response } from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';

/** The dashboard's defences, over HTTP: CSRF, session fixation, lockout, membership checks, password storage. */

const COOKIE = 'agentlink_dashboard';
const PASSWORD = 'correct horse battery staple';

function sessionCookie(res: Response): string | undefined {
  const raw = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const mine = raw.find((c) => c.startsWith(`${COOKIE}=`));
  return mine ? mine.split(';')[0].slice(COOKIE.length + 1) : undefined;
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const cookieHeader = (value: string) => `${COOKIE}=${value}`;

interface Browser {
  cookie: string;
  csrf: string;
}

let emailCounter = 0;
const newEmail = () => `person${++emailCounter}-${Date.now()}@example.com`;

describeEachStore('dashboard security', (t: TestApp) => {
  const http = () => request(t.baseUrl);

  /** An anonymous visit to the sign-in page: its cookie and CSRF token. */
  async function visit(path = '/dashboard/sign-in'): Promise<Browser> {
    const res = await http().get(path);
    expect(res.status).toBe(200);
    return { cookie: sessionCookie(res)!, csrf: csrfOf(res.text) };
  }

  async function page(b: Browser, path: string) {
    return http().get(path).set('Cookie', cookieHeader(b.cookie));
  }

  async function post(b: Browser, path: string, form: Record<string, string>, csrf: string | null = b.csrf) {
    return http()
      .post(path)
      .set('Cookie', cookieHeader(b.cookie))
      .type('form')
      .send(csrf === null ? form : { ...form, _csrf: csrf });
  }

  async function signUp(email = newEmail()): Promise<Browser & { email: string }> {
    const anon = await visit('/dashboard/sign-up');
    const res = await post(anon, '/dashboard/sign-up', { email, password: PASSWORD });
    expect(res.status).toBe(303);
    const cookie = sessionCookie(res)!;
    const orgs = await page({ cookie, csrf: '' }, '/dashboard/orgs');
    expect(orgs.status).toBe(200);
    return { cookie, csrf: csrfOf(orgs.text), email };
  }

  async function createOrg(b: Browser, name: string) {
    const created = await post(b, '/dashboard/orgs', { name });
    expect(created.status).toBe(303);
    const res = await page(b, created.headers.location);
    expect(res.status).toBe(200);
    const orgId = /\/dashboard\/orgs\/(org_[0-9a-f]+)/.exec(res.text)![1];
    const sandboxSecret = /value="(sk_sandbox_[A-Za-z0-9_-]+)"/.exec(res.text)![1];
    return { orgId, sandboxSecret, html: res.text };
  }

  const membershipCount = async () => Number((await t.store.dataSource.query('SELECT COUNT(*) AS n FROM org_memberships'))[0].n);

  describe('malformed forms', () => {
    it('answers a form with too many fields with a readable 413 page, not a 500', async () => {
      const alice = await signUp();
      const form: Record<string, string> = {};
      for (let i = 0; i < 60; i++) form[`f${i}`] = 'x';
      const res = await post(alice, '/dashboard/orgs', { name: 'Too Many', ...form });
      expect(res.status).toBe(413);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('too many fields');
    });
  });

  describe('CSRF', () => {
    it('refuses a POST without the token, with a wrong one, or with another session’s token (403), and nothing changes', async () => {
      const alice = await signUp();
      const mallory = await signUp();
      const before = await membershipCount();
      for (const csrf of [null, '', 'not-the-token', mallory.csrf]) {
        const res = await post(alice, '/dashboard/orgs', { name: 'Forged Org' }, csrf);
        expect(res.status).toBe(403);
        expect(res.text).toContain('CSRF');
      }
      expect(await membershipCount()).toBe(before);
      const orgs = await page(alice, '/dashboard/orgs');
      expect(orgs.text).not.toContain('Forged Org');
      // The token also travels as a header (htmx).
      const viaHeader = await http()
        .post('/dashboard/orgs')
        .set('Cookie', cookieHeader(alice.cookie))
        .set('x-csrf-token', alice.csrf)
        .type('form')
        .send({ name: 'Header Org' });
      expect(viaHeader.status).toBe(303);
    });

    it('protects secret rotation and revocation: a forged rotation leaves the secret working', async () => {
      const alice = await signUp();
      const { orgId, sandboxSecret } = await createOrg(alice, 'Rotation Co');
      const clientId = (await t.services.organizations.find(orgId))!.clientId;
      const forged = await post(alice, `/dashboard/orgs/${orgId}/secrets/sandbox/rotate`, { confirm: 'yes' }, null);
      expect(forged.status).toBe(403);
      expect((await t.services.organizations.authenticate(clientId, sandboxSecret)).ok).toBe(true);
      const forgedRevoke = await post(alice, `/dashboard/orgs/${orgId}/connections/conn_x/revoke`, {}, 'wrong');
      expect(forgedRevoke.status).toBe(403);
      const forgedWebhook = await post(
        alice,
        `/dashboard/orgs/${orgId}/webhooks`,
        { env: 'sandbox', url: 'https://example.com/hook', events: 'CONNECTION.CREATED' },
        null,
      );
      expect(forgedWebhook.status).toBe(403);
      expect(await t.services.webhookEndpoints.list({ organizationId: orgId, environment: 'sandbox' })).toEqual([]);
    });

    it('protects the sign-in and sign-up forms too (no login CSRF)', async () => {
      const anon = await visit();
      const res = await post(anon, '/dashboard/sign-up', { email: newEmail(), password: PASSWORD }, null);
      expect(res.status).toBe(403);
      expect(sessionCookie(res)).toBeUndefined();
      const noSession = await http()
        .post('/dashboard/sign-in')
        .type('form')
        .send({ email: 'a@example.com', password: PASSWORD, _csrf: 'x' });
      expect(noSession.status).toBe(403);
    });
  });

  describe('sessions', () => {
    it('issues a new session on sign-up and on sign-in and destroys the one the browser came with (no fixation)', async () => {
      const anon = await visit('/dashboard/sign-up');
      const email = newEmail();
      const signedUp = await post(anon, '/dashboard/sign-up', { email, password: PASSWORD });
      const afterSignUp = sessionCookie(signedUp)!;
      expect(afterSignUp).toBeDefined();
      expect(afterSignUp).not.toBe(anon.cookie);
      // The pre-sign-up cookie does not carry the signed-in session.
      expect((await page(anon, '/dashboard/orgs')).status).toBe(303);
      expect((await page({ cookie: afterSignUp, csrf: '' }, '/dashboard/orgs')).status).toBe(200);

      // An attacker plants a session cookie (one it obtained from the sign-in page) in the victim's browser.
      const planted = await visit();
      const signedIn = await post(planted, '/dashboard/sign-in', { email, password: PASSWORD });
      expect(signedIn.status).toBe(303);
      const afterSignIn = sessionCookie(signedIn)!;
      expect(afterSignIn).not.toBe(planted.cookie);
      expect((await page(planted, '/dashboard/orgs')).status).toBe(303);
      expect((await page({ cookie: afterSignIn, csrf: '' }, '/dashboard/orgs')).status).toBe(200);
    });

    it('does not adopt a session id the browser made up', async () => {
      const res = await http().get('/dashboard/sign-in').set('Cookie', cookieHeader('attacker-chosen-value'));
      expect(sessionCookie(res)).toBeDefined();
      expect(sessionCookie(res)).not.toBe('attacker-chosen-value');
    });

    it('sets the cookie HttpOnly, SameSite=Lax, on /dashboard; sign-out ends the session', async () => {
      const res = await http().get('/dashboard/sign-up');
      const raw = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith(COOKIE))!;
      expect(raw).toMatch(/HttpOnly/i);
      expect(raw).toMatch(/SameSite=Lax/i);
      expect(raw).toMatch(/Path=\/dashboard/i);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");

      const alice = await signUp();
      const out = await post(alice, '/dashboard/sign-out', {});
      expect(out.status).toBe(303);
      expect((await page(alice, '/dashboard/orgs')).status).toBe(303);
    });
  });

  describe('lockout', () => {
    it('locks an email after 5 failures, answers an unknown email exactly the same, and unlocks after 15 minutes', async () => {
      const known = await signUp();
      const unknown = newEmail();
      const answers = async (email: string) => {
        const out: { status: number; message: string }[] = [];
        for (let i = 0; i < 7; i++) {
          const b = await visit();
          const res = await post(b, '/dashboard/sign-in', { email, password: i < 6 ? 'wrong password!' : PASSWORD });
          out.push({ status: res.status, message: /role="alert">([^<]*)</.exec(res.text)?.[1] ?? '' });
        }
        return out;
      };
      const forKnown = await answers(known.email);
      const forUnknown = await answers(unknown);
      expect(forKnown).toEqual(forUnknown);
      expect(forKnown.slice(0, 4).every((a) => a.status === 401 && a.message === 'Wrong email or password.')).toBe(true);
      // The 5th failure locks; while locked even the right password is refused.
      expect(forKnown.slice(4).every((a) => a.status === 429 && /Too many failed sign-ins/.test(a.message))).toBe(true);

      t.clock.advance(16 * 60_000);
      const b = await visit();
      const ok = await post(b, '/dashboard/sign-in', { email: known.email.toUpperCase(), password: PASSWORD });
      expect(ok.status).toBe(303);
    });
  });

  describe('lockout window and pruning', () => {
    it('counts failures within 15 minutes of the first one: failures spread out over longer never lock', async () => {
      const known = await signUp();
      for (let i = 0; i < 6; i++) {
        const res = await post(await visit(), '/dashboard/sign-in', { email: known.email, password: 'wrong password!' });
        expect(res.status).toBe(401);
        t.clock.advance(6 * 60_000);
      }
      const ok = await post(await visit(), '/dashboard/sign-in', { email: known.email, password: PASSWORD });
      expect(ok.status).toBe(303);
    });

    it('deletes expired sessions and throttle rows whose window ran out', async () => {
      const email = newEmail();
      await post(await visit(), '/dashboard/sign-in', { email, password: 'wrong password!' });
      const throttleRows = async () => Number((await t.store.dataSource.query('SELECT COUNT(*) AS n FROM dashboard_login_throttle'))[0].n);
      const expiredSessions = async () =>
        (await t.store.dataSource.getRepository('DashboardSession').find()).filter(
          (s) => (s.expiresAt as Date).getTime() <= t.clock.now().getTime(),
        ).length;
      expect(await throttleRows()).toBeGreaterThan(0);
      t.clock.advance(3 * 3600_000);
      expect(await expiredSessions()).toBeGreaterThan(0);
      await visit();
      expect(await throttleRows()).toBe(0);
      expect(await expiredSessions()).toBe(0);
    });
  });

  describe('organizations', () => {
    it("answers 404 for every page of another person's organization, and a member added by email gets access", async () => {
      const alice = await signUp();
      const bob = await signUp();
      const { orgId, sandboxSecret } = await createOrg(alice, 'Alice Co');
      const clientId = (await t.services.organizations.find(orgId))!.clientId;
      for (const path of [
        '',
        '/connections',
        '/requests',
        '/webhooks',
        '/secrets/sandbox/rotate',
        '/requests/areq_x',
        '/connections/conn_x/revoke',
      ]) {
        const res = await page(bob, `/dashboard/orgs/${orgId}${path}`);
        expect(res.status).toBe(404);
        expect(res.text).not.toContain('Alice Co');
      }
      const rotate = await post(bob, `/dashboard/orgs/${orgId}/secrets/sandbox/rotate`, { confirm: 'yes' });
      expect(rotate.status).toBe(404);
      expect((await t.services.organizations.authenticate(clientId, sandboxSecret)).ok).toBe(true);
      expect((await page(bob, '/dashboard/orgs')).text).not.toContain('Alice Co');

      const added = await post(alice, `/dashboard/orgs/${orgId}/members`, { email: bob.email });
      expect(added.status).toBe(200);
      const list = await page(bob, '/dashboard/orgs');
      expect(list.text).toContain('Alice Co');
      const overview = await page(bob, `/dashboard/orgs/${orgId}`);
      expect(overview.status).toBe(200);
      expect(overview.text).toContain(clientId);
      // A member who is not an owner cannot add members.
      const carol = await signUp();
      expect((await post(bob, `/dashboard/orgs/${orgId}/members`, { email: carol.email })).status).toBe(403);
      expect((await page(carol, `/dashboard/orgs/${orgId}`)).status).toBe(404);
      // The secret is never on a page after its creation.
      expect(overview.text).not.toContain(sandboxSecret);
    });

    it('escapes what people type', async () => {
      const alice = await signUp();
      const { html } = await createOrg(alice, '<script>alert(1)</script>');
      expect(html).not.toContain('<script>alert(1)</script>');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  });

  it('stores passwords only as scrypt hashes and e-mails lower-cased', async () => {
    const email = `Mixed.Case-${Date.now()}@Example.com`;
    await signUp(email);
    const rows: { email: string; password_hash: string }[] = await t.store.dataSource.query(
      t.dialect === 'postgres'
        ? 'SELECT email, password_hash FROM dashboard_users WHERE email = $1'
        : 'SELECT email, password_hash FROM dashboard_users WHERE email = ?',
      [email.toLowerCase()],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(rows[0].password_hash).not.toContain(PASSWORD);
    const sessions: { id: string }[] = await t.store.dataSource.query('SELECT id FROM dashboard_sessions');
    expect(sessions.every((s) => /^[0-9a-f]{64}$/.test(s.id))).toBe(true);
  });
});
