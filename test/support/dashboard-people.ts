import request from 'supertest';

import type { TestApp } from './app';
import { csrfOf, sessionCookie } from './dashboard-session';

/** People using the dashboard of a test app over HTTP: accounts, their browsers (cookie and CSRF token), organizations. */
export const PASSWORD = 'correct horse battery staple';
let counter = 0;
export const newEmail = () => `member${++counter}-${process.pid}-${Date.now()}@example.com`;

export interface Browser {
  cookie: string;
  csrf: string;
  email: string;
}

export function dashboardPeople(t: TestApp) {
  const http = () => request(t.baseUrl);
  const page = (b: { cookie: string }, path: string) => http().get(path).set('Cookie', b.cookie);
  const post = (b: { cookie: string; csrf: string }, path: string, form: Record<string, string> = {}) =>
    http()
      .post(path)
      .set('Cookie', b.cookie)
      .type('form')
      .send({ ...form, _csrf: b.csrf });
  /** Signs an account up directly (the service), then signs in over HTTP: works whatever AGENTLINK_SIGNUP says. */
  async function account(email = newEmail()): Promise<Browser> {
    const made = await t.services.dashboard.signUp(email, PASSWORD, null);
    if (!made.ok) throw new Error(made.message);
    return signIn(email);
  }
  /** A browser of its own, signed in. */
  async function signIn(email: string): Promise<Browser> {
    const anon = await http().get('/dashboard/sign-in');
    const signedIn = await post({ cookie: sessionCookie(anon), csrf: csrfOf(anon.text) }, '/dashboard/sign-in', {
      email,
      password: PASSWORD,
    });
    expect(signedIn.status).toBe(303);
    const cookie = sessionCookie(signedIn);
    const orgs = await page({ cookie }, '/dashboard/orgs');
    return { cookie, csrf: csrfOf(orgs.text), email };
  }
  /** An anonymous browser that opened an invitation link (its session carries the sign-up form's CSRF token). */
  async function openInvitation(token: string) {
    const opened = await http().get(`/dashboard/invitations/${token}`);
    return { res: opened, browser: { cookie: sessionCookie(opened), csrf: csrfOf(opened.text) } };
  }
  /** A browser without an account: a session and its CSRF token (from the sign-in page). */
  async function anonymous() {
    const anon = await http().get('/dashboard/sign-in');
    return { cookie: sessionCookie(anon), csrf: csrfOf(anon.text) };
  }
  async function createOrg(b: Browser, name: string) {
    const created = await post(b, '/dashboard/orgs', { name });
    expect(created.status).toBe(303);
    const location = created.headers.location as string;
    const orgId = /\/dashboard\/orgs\/(org_[0-9a-f]+)\/secrets\/new$/.exec(location)![1]!;
    const shown = await page(b, location);
    return { orgId, location, shown };
  }
  const userId = async (email: string) => (await t.store.repos.dashboardUsers.findByEmail(email))!.id;
  const orgCount = async () => Number((await t.store.dataSource.query('SELECT COUNT(*) AS n FROM organizations'))[0].n);
  return { http, page, post, account, signIn, anonymous, openInvitation, createOrg, userId, orgCount };
}

/** The stable code of the refusal a dashboard page shows (data-code of its notice), or null. */
export const refusalCode = (html: string) => /class="notice error"[^>]*data-code="([A-Z_]+)"/.exec(html)?.[1] ?? null;
