import { randomBytes } from 'node:crypto';

import type { BrowserContext } from 'playwright-core';

import { tenantFor } from '../../server/sandbox/site-sessions';
import { api, connectOrbit, createRequest, type LiveOrg, liveOrg } from '../agent/agent-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { jpegSize, openRunWidget, requestWhen, runPage } from './handoff-support';

/**
 * Writes that wait for approval, end to end: `"approval": "writes"` on a request that posts on Orbit (the real
 * orbit.create-post playbook, real Chromium, the sandbox site on loopback). The POST that would publish is held at the
 * network: the run waits NEEDS_USER (APPROVAL) with a masked summary of it, and the Orbit site has received nothing.
 * The person, in the widget, approves (the post appears exactly once) or denies (it never appears; DENIED_BY_USER).
 */
jest.setTimeout(120_000);

let live: LiveServer;
let org: LiveOrg;
let conn: { accessToken: string; connectionId: string };
let context: BrowserContext;

beforeAll(async () => {
  live = await startLiveServer({ worker: true, env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '60' } });
  org = await liveOrg(live);
  conn = await connectOrbit(live, org);
});

afterAll(async () => {
  await live?.close();
});

beforeEach(async () => {
  context = await live.services.browsers.newContext({ viewport: { width: 480, height: 1000 } });
  context.setDefaultTimeout(30_000);
});

afterEach(async () => {
  await context?.close();
});

/** Orbit posts (in this organization's copy of the site) whose text is `text`. */
async function postsWith(text: string): Promise<number> {
  const docs = await live.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), 'orbit', 'post');
  return docs.filter((d) => String(d.data.text ?? '').includes(text)).length;
}

const untilStatus = (requestId: string, statuses: string[]) => requestWhen(live, org, requestId, statuses, 45_000);

const post = (text: string, approval: string) =>
  createRequest(live, org, {
    accessToken: conn.accessToken,
    action: 'Create a post',
    playbook: 'orbit.create-post',
    parameters: { text },
    approval,
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { text: 'string', url: 'url?' },
  });

const openWidget = (url: string) => openRunWidget(context, url);

it('holds the publishing POST until the person approves it, then sends it exactly once', async () => {
  const text = `Approved ${randomBytes(4).toString('hex')}`;
  const requestId = await post(text, 'writes');
  const waiting = await untilStatus(requestId, ['NEEDS_USER']);
  expect(waiting.approval).toBe('writes');
  expect(waiting.userAction).toMatchObject({ reason: 'APPROVAL', write: { method: 'POST', url: expect.stringContaining('orbit') } });
  // The parameter's value is shown by name, as the trace shows it; the CSRF token is masked.
  const fields = waiting.userAction.write.fields as { name: string; value: string }[];
  expect(fields.map((f) => f.value).join(' ')).toContain('{{parameters.text}}');
  expect(JSON.stringify(fields)).not.toContain(text);
  // Held at the network: the site has received nothing, however long the person takes.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await postsWith(text)).toBe(0);
  // The run took one still of its page as it paused (page-still.ts), its form post pending, and the view opens on it.
  const picture = live.services.handoffs.registry.find(requestId)!.lastFrame();
  expect(picture).not.toBeNull();
  expect(jpegSize(picture!)).toEqual(runPage(live, requestId).viewportSize());

  const widget = await openWidget(waiting.userAction.url);
  await expect(widget.locator('.al-write-target').textContent()).resolves.toContain('POST');
  await widget.getByRole('button', { name: 'Approve' }).click();
  const done = await untilStatus(requestId, ['COMPLETED', 'FAILED']);
  // A failed run says why (its error and trace), not only that it failed.
  if (done.status !== 'COMPLETED') throw new Error(`the run failed: ${JSON.stringify({ error: done.error, trace: done.trace })}`);
  expect(done).toMatchObject({ status: 'COMPLETED', result: { text } });
  expect(await postsWith(text)).toBe(1);
  await widget.getByRole('heading', { name: /Thanks!/ }).waitFor();
});

it('denied, the POST is never sent and the run ends DENIED_BY_USER', async () => {
  const text = `Denied ${randomBytes(4).toString('hex')}`;
  const requestId = await post(text, 'writes');
  const waiting = await untilStatus(requestId, ['NEEDS_USER']);
  const widget = await openWidget(waiting.userAction.url);
  await widget.getByRole('button', { name: 'Deny' }).click();
  const ended = await untilStatus(requestId, ['FAILED', 'COMPLETED']);
  expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'DENIED_BY_USER', details: { write: { method: 'POST' } } } });
  expect(await postsWith(text)).toBe(0);
  await widget.getByRole('heading', { name: /Denied/ }).waitFor();
});

it('on a phone, keyboard only: the person reaches Approve with Tab and approves with Enter', async () => {
  const text = `Keyboard ${randomBytes(4).toString('hex')}`;
  const requestId = await post(text, 'writes');
  const waiting = await untilStatus(requestId, ['NEEDS_USER']);
  const phone = await live.services.browsers.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  try {
    const widget = await phone.newPage();
    await widget.goto(waiting.userAction.url);
    await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
    // Nothing is focused that could send on its own.
    expect(await widget.evaluate(() => document.activeElement?.id)).toBe('al-title');
    let onApprove = false;
    for (let i = 0; i < 20 && !onApprove; i++) {
      await widget.keyboard.press('Tab');
      onApprove = await widget.evaluate(() => document.activeElement?.id === 'al-approve');
    }
    expect(onApprove).toBe(true);
    expect(await postsWith(text)).toBe(0);
    await widget.keyboard.press('Enter');
    const done = await untilStatus(requestId, ['COMPLETED', 'FAILED']);
    if (done.status !== 'COMPLETED') throw new Error(`the run failed: ${JSON.stringify({ error: done.error, trace: done.trace })}`);
    expect(await postsWith(text)).toBe(1);
  } finally {
    await phone.close();
  }
});

it('refuses approval with mode read (a read sends no writes to approve)', async () => {
  const res = await api(live, org, 'POST', '/api/agent-requests', {
    accessToken: conn.accessToken,
    action: 'Read my profile',
    mode: 'read',
    approval: 'writes',
    startingUrl: live.siteUrl('orbit', '/'),
    responseFormat: { name: 'string' },
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'INVALID_FIELD' });
});
