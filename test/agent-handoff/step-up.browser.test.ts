import type { BrowserContext, Locator, Page } from 'playwright-core';

import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { tenantFor } from '../../server/sandbox/site-sessions';
import { SANDBOX_STEP_UP_CODE } from '../../server/sandbox/test-users';
import type { Json } from '../agent/agent-support';
import { api, connectedOrg, type TestOrg } from '../playbooks/playbook-support';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { clickThroughWidget, openRunWidget, requestWhen } from './handoff-support';

/**
 * The sandbox's sensitive actions, end to end through the widget's live view of the paused run: user_stepup's first
 * message to someone new on Orbit asks for a code mid-action, and deleting a ForgeHub repository asks for the password
 * (sudo mode). The routed playbooks pause the run NEEDS_USER; the test plays the person on the hosted page
 * (userAction.url), acting only on the streamed canvas (it looks at the run's page only to know where to point).
 */
jest.setTimeout(150_000);

let live: LiveServer;
let context: BrowserContext;

beforeAll(async () => {
  live = await startLiveServer({ worker: true });
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

async function start(org: TestOrg, body: Record<string, unknown>): Promise<string> {
  const res = await api(live, org, 'POST', '/api/agent-requests', { accessToken: org.accessToken, ...body });
  if (res.status !== 202) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.requestId as string;
}

const untilStatus = (org: TestOrg, requestId: string, statuses: string[]) => requestWhen(live, org, requestId, statuses);
const openWidget = (url: string) => openRunWidget(context, url);
const clickOnWidget = (widget: Page, requestId: string, target: (page: Page) => Locator) =>
  clickThroughWidget(live, widget, requestId, target);

async function docs(org: TestOrg, site: string, kind: string) {
  return live.services.store.repos.sandboxDocs.list(tenantFor(org.organizationId), site, kind);
}

describe('Orbit: a first message to someone new asks for a code', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await connectedOrg(live, ORBIT_PROVIDER_ID, 'Step-up Orbit org', 'user_stepup');
  });

  const sendTo = (name: string, text: string) =>
    start(org, {
      action: `Send a message to ${name} saying '${text}'`,
      startingUrl: live.siteUrl('orbit', '/'),
      responseFormat: { sent: 'boolean', text: 'string' },
    });
  const sent = async (text: string) => (await docs(org, 'orbit', 'message')).filter((d) => d.data.text === text).length;

  it('pauses at the code, the person types it in the live view and confirms, and the message is sent once', async () => {
    const text = 'Nice to meet you (code typed by the person)';
    const requestId = await sendTo('Maya Patel', text);
    const waiting = await untilStatus(org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED']);
    expect(waiting).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: 'CODE', write: null } });
    expect(await sent(text)).toBe(0);

    const widget = await openWidget(waiting.userAction.url);
    await clickOnWidget(widget, requestId, (p) =>
      p.getByRole('dialog', { name: "Confirm it's you" }).getByRole('textbox', { name: 'Code' }),
    );
    await widget.keyboard.type(SANDBOX_STEP_UP_CODE, { delay: 20 });
    await clickOnWidget(widget, requestId, (p) =>
      p.getByRole('dialog', { name: "Confirm it's you" }).getByRole('button', { name: 'Confirm' }),
    );

    const done = await untilStatus(org, requestId, ['COMPLETED', 'FAILED']);
    expect(done).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK', result: { sent: true, text } });
    expect(await sent(text)).toBe(1);
    await widget.getByRole('heading', { name: /Thanks!/ }).waitFor();
  });

  it('the person leaves ("I can’t do this"): USER_ACTION_EXITED, and nothing was sent', async () => {
    const text = 'This one is never sent';
    const requestId = await sendTo('Marcus Webb', text);
    const waiting = await untilStatus(org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED']);
    expect(waiting.status).toBe('NEEDS_USER');
    const widget = await openWidget(waiting.userAction.url);
    await widget.getByRole('button', { name: 'I can’t do this' }).click();
    const ended = await untilStatus(org, requestId, ['COMPLETED', 'FAILED']);
    expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'USER_ACTION_EXITED' } });
    expect(await sent(text)).toBe(0);
  });

  it('someone they already talk to: no pause', async () => {
    const requestId = await sendTo('Priya Nair', 'See you Thursday');
    const done = await untilStatus(org, requestId, ['COMPLETED', 'FAILED', 'NEEDS_USER']);
    expect(done).toMatchObject({ status: 'COMPLETED', result: { sent: true } });
    expect(done.trace.some((s: Json) => s.tool === 'user')).toBe(false);
  });
});

describe('ForgeHub: deleting a repository asks for the password (sudo mode)', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Step-up ForgeHub org', 'user_stepup');
  });

  it('pauses at "Confirm access", the person enters the password in the live view, and the repository is deleted', async () => {
    const requestId = await start(org, {
      action: 'Delete my repository hello-world',
      startingUrl: live.siteUrl('forgehub', '/'),
      responseFormat: { deleted: 'boolean', repository: 'string' },
    });
    const waiting = await untilStatus(org, requestId, ['NEEDS_USER', 'COMPLETED', 'FAILED']);
    expect(waiting).toMatchObject({ status: 'NEEDS_USER', userAction: { reason: expect.stringMatching(/CODE|OTHER/) } });
    // The site is seeded as the run first opens it: the repository is there, waiting on the person.
    expect((await docs(org, 'forgehub', 'repo')).map((d) => String(d.data.name))).toContain('hello-world');

    const widget = await openWidget(waiting.userAction.url);
    await clickOnWidget(widget, requestId, (p) => p.getByRole('dialog', { name: 'Confirm access' }).getByLabel('Password'));
    await widget.keyboard.type('pass_good', { delay: 10 });
    await widget.keyboard.press('Enter');
    const done = await untilStatus(org, requestId, ['COMPLETED', 'FAILED']);
    expect(done).toMatchObject({ status: 'COMPLETED', result: { deleted: true } });
    expect((await docs(org, 'forgehub', 'repo')).map((d) => String(d.data.name))).not.toContain('hello-world');
  });
});
