import request from 'supertest';

import { createTestApp, type TestApp } from '../support/app';

/**
 * Open redirects through the sandbox sites' sign-in (`safeNext` in server/sandbox/kit/site-app.ts): after a successful
 * sign-in the site answers 303 to `next`, which must stay on the site however it is written. Before,
 * `next=/\evil.example/` answered `Location: /\evil.example/`, which a browser reads as //evil.example/.
 * Every Location is judged with WHATWG URL (the browser's own parser) against the site's origin.
 */
const HOST = 'orbit.sandbox.localhost';
const ORIGIN = `http://${HOST}:4000`;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp('sqlite');
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Signs in as user_good with `next` posted in the form; returns the Location of the 303. */
async function locationAfterSignIn(next: string): Promise<string> {
  const agent = request.agent(t.server);
  const page = await agent.get('/login').set('host', HOST);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  const res = await agent
    .post('/login')
    .set('host', HOST)
    .type('form')
    .send({ _csrf: csrf, username: 'user_good', password: 'pass_good', next });
  expect(res.status).toBe(303);
  return res.headers.location as string;
}

function expectOnSite(location: string) {
  expect(location.startsWith('/')).toBe(true);
  expect(location).not.toMatch(/^\/\/|\\|[\t\n\r]/);
  expect(new URL(location, ORIGIN).origin).toBe(ORIGIN);
}

const OFF_SITE = [
  '/\\evil.example/',
  '/\\\\evil.example',
  '//evil.example/',
  '///evil.example/',
  '/%5Cevil.example/',
  '/%5cevil.example/',
  '/\t/evil.example/',
  '/\n/evil.example/',
  '/%09/evil.example/',
  '/.//evil.example/',
  '/%2e//evil.example/',
  'javascript:alert(document.cookie)',
  'http://evil.example/',
  'https:evil.example',
  '\\\\evil.example',
  ' //evil.example',
  '/\u3002evil.example',
];

describe('sandbox sign-in: open redirect', () => {
  it.each(OFF_SITE)('refuses next=%j after sign-in', async (next) => {
    const location = await locationAfterSignIn(next);
    expectOnSite(location);
  });

  it.each(['/\\evil.example/', '//evil.example/', 'javascript:alert(1)'])('refuses next=%j carried by the sign-in page', async (next) => {
    const page = await request(t.server)
      .get(`/login?next=${encodeURIComponent(next)}`)
      .set('host', HOST);
    const carried = /name="next" value="([^"]*)"/.exec(page.text)![1].replace(/&#x2F;|&#47;/g, '/');
    expectOnSite(carried);
  });
});
