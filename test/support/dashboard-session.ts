import request, { type Response } from 'supertest';

/** The dashboard's session cookie and CSRF token, as a browser carries them (dashboard tests over supertest). */
const COOKIE = 'agentlink_dashboard';

export const sessionCookie = (res: Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${COOKIE}=`))!
    .split(';')[0]!;

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Signs a new account up on the dashboard and creates an organization with it: its session cookie, the org's id and the session's CSRF token. */
export async function signedUpWithOrg(baseUrl: string, orgName: string): Promise<{ cookie: string; orgId: string; csrf: string }> {
  const http = () => request(baseUrl);
  const anon = await http().get('/dashboard/sign-up');
  const signedUp = await http()
    .post('/dashboard/sign-up')
    .set('Cookie', sessionCookie(anon))
    .type('form')
    .send({
      email: `${orgName.replace(/\W+/g, '-').toLowerCase()}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
      password: 'correct horse battery staple',
      _csrf: csrfOf(anon.text),
    });
  if (signedUp.status !== 303) throw new Error(`sign-up answered ${signedUp.status}`);
  const cookie = sessionCookie(signedUp);
  const orgs = await http().get('/dashboard/orgs').set('Cookie', cookie);
  const created = await http()
    .post('/dashboard/orgs')
    .set('Cookie', cookie)
    .type('form')
    .send({ name: orgName, _csrf: csrfOf(orgs.text) });
  return { cookie, orgId: /\/dashboard\/orgs\/(org_[0-9a-f]+)/.exec(created.text)![1]!, csrf: csrfOf(orgs.text) };
}
