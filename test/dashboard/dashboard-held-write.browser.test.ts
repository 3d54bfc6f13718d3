import { randomBytes } from 'node:crypto';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { tenantFor } from '../../server/sandbox/site-sessions';
import { connectOrbit, createRequest, type Json, type LiveOrg } from '../agent/agent-support';
import { FINAL_STATUSES, requestWhen } from '../agent-handoff/handoff-support';
import { signedUpWithOrg } from '../support/dashboard-session';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * The held write on its request's dashboard page, decided there: the real orbit.create-post playbook holds its POST at
 * the network; a member sees it (method, URL, masked fields) and presses Approve: it is sent exactly once and the run
 * completes. The form's POST needs the session's CSRF token, and only the organization's members reach it.
 */
jest.setTimeout(120_000);

let live: LiveServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [live, browser] = await Promise.all([
    startLiveServer({ worker: true, env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '60' } }),
    startBrowser(),
  ]);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await live?.close();
});

async function member(name: string): Promise<{ page: Page; cookie: string; csrf: string; org: LiveOrg }> {
  const { cookie, orgId, csrf } = await signedUpWithOrg(live.baseUrl, name);
  const rotated = await live.services.organizations.rotateSecret(orgId, 'sandbox');
  if (!rotated.ok) throw new Error('no secret');
  const org = {
    organizationId: orgId,
    headers: {
      'x-client-id': rotated.value.organization.clientId,
      'x-client-secret': rotated.value.secret,
      'content-type': 'application/json',
    },
  };
  const [cname, cvalue] = cookie.split('=');
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  await context.addCookies([{ name: cname!, value: cvalue!, url: `${live.baseUrl}/dashboard` }]);
  return { page: await context.newPage(), cookie, csrf, org };
}

it('a member approves the held write on the request page: sent exactly once; no CSRF token, or another org: nothing', async () => {
  const { page, cookie, csrf, org } = await member('Held Write Co');
  const conn = await connectOrbit(live, org);
  const text = `Dashboard approved ${randomBytes(4).toString('hex')}`;
  const requestId = await createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'Create a post',
    playbook: 'orbit.create-post',
    parameters: { text },
    approval: 'writes',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { text: 'string', url: 'url?' },
  });
  const waiting: Json = await requestWhen(live, org, requestId, ['NEEDS_USER']);
  const posts = async () =>
    (await live.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), 'orbit', 'post')).filter((d) =>
      String(d.data.text ?? '').includes(text),
    ).length;

  const action = `${live.baseUrl}/dashboard/orgs/${org.organizationId}/requests/${requestId}/user-action`;
  const form = (fields: Record<string, string>, who = cookie) =>
    fetch(action, {
      method: 'POST',
      headers: { cookie: who, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  // Without the session's CSRF token: 403, nothing decided. Another organization's member: 404.
  expect((await form({ decision: 'approve', writeId: waiting.userAction.write.id })).status).toBe(403);
  const stranger = await signedUpWithOrg(live.baseUrl, 'Stranger Co');
  expect((await form({ decision: 'approve', writeId: waiting.userAction.write.id, _csrf: stranger.csrf }, stranger.cookie)).status).toBe(
    404,
  );
  // A write no longer held: nothing decided, and the page says so.
  const stale = await form({ decision: 'approve', writeId: 'hw_a-write-no-longer-held', _csrf: csrf });
  expect(stale.status).toBe(303);
  expect(stale.headers.get('location')).toContain('decided=over');
  expect((await requestWhen(live, org, requestId, ['NEEDS_USER'])).status).toBe('NEEDS_USER');
  expect(await posts()).toBe(0);

  await page.goto(`${live.baseUrl}/dashboard/orgs/${org.organizationId}/requests/${requestId}`);
  await expect(page.getByTestId('held-write').textContent()).resolves.toContain('POST');
  // The post's text is the request's parameter: shown masked by name, as the approval view shows it.
  const fields = await page.getByTestId('held-write-fields').textContent();
  expect(fields).toContain('{{parameters.text}}');
  expect(fields).not.toContain(text);
  // The notice is in the live part, which htmx's next poll (2 s) replaces: looked for from before the click.
  const decided = page.locator('[data-code="DECIDED_APPROVED"]').waitFor();
  await page.getByTestId('held-write-decision').getByRole('button', { name: 'Approve' }).click();
  await decided;

  const done: Json = await requestWhen(live, org, requestId, FINAL_STATUSES);
  expect(done).toMatchObject({ status: 'COMPLETED', result: { text } });
  expect(await posts()).toBe(1);
  expect(done.trace.find((s: Json) => s.tool === 'user')).toMatchObject({ outcome: 'ok', target: expect.stringContaining('APPROVAL') });
  // Deciding again (a second tab, a double submit): nothing happens.
  const again = await form({ decision: 'deny', writeId: waiting.userAction.write.id, _csrf: csrf });
  expect(again.headers.get('location')).toContain('decided=over');
  expect(await posts()).toBe(1);
});
