import { randomUUID } from 'node:crypto';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON, UserActionEnded, type UserAsk, type UserDoor } from '../../server/agent/handoff/user-ask';
import { PlaybookStrategy } from '../../server/agent/playbooks/strategy';
import { RunClock, withRunClock } from '../../server/agent/run/clock';
import type { RunContext, RunOutcome, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';

/**
 * Playbooks that pause for their person, driven the way the worker drives them but with a fake door: a live
 * AgentLink (its simulated sites), real Chromium, a signed-in context in a fresh organization's copy of the site,
 * and PlaybookStrategy run inside a RunClock. The door plays the person: on needsUser it stops the run's clock,
 * acts on the run's own page with Playwright (types the code, the password …), then, as the worker does, asks
 * `done()` twice a second, or "presses Done" at once.
 */
export interface DoorScript {
  /** What the person does on the page when asked. */
  act(page: Page, ask: UserAsk): Promise<void>;
  /** Resolve right after acting (the person pressed "Done") instead of waiting for done(). */
  pressesDone?: boolean;
}

export interface StepUpRun {
  outcome: RunOutcome;
  trace: TraceStep[];
  asks: UserAsk[];
  page: Page;
  clock: RunClock;
}

export interface StepUpRig {
  live: LiveServer;
  browser: Browser;
  newOrg(): Promise<string>;
  /** A signed-in page of `slug` as `username` in the organization's copy. */
  signedIn(organizationId: string, slug: 'orbit' | 'forgehub', username: string, path?: string): Promise<Page>;
  /** Runs the named playbook as `username`; `door`: a script for the person, 'none' (NO_PERSON) or 'exits'. */
  run(o: {
    organizationId: string;
    slug: 'orbit' | 'forgehub';
    username: string;
    playbook: string;
    parameters: Record<string, unknown>;
    responseFormat: Record<string, unknown>;
    door: DoorScript | 'none' | 'exits';
    path?: string;
  }): Promise<StepUpRun>;
}

export function useStepUpRig(): StepUpRig {
  const contexts: BrowserContext[] = [];
  const rig = {} as StepUpRig;
  beforeAll(async () => {
    [rig.live, rig.browser] = await Promise.all([startLiveServer(), startBrowser()]);
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.live?.close();
  });

  rig.newOrg = async () => (await rig.live.services.organizations.create(`Step-up ${randomUUID().slice(0, 8)}`)).organization.id;

  rig.signedIn = async (organizationId, slug, username, path = '/') => {
    const storageState = await rig.live.services.siteSessions.mint({ organizationId, environment: 'sandbox' }, slug, username);
    const context = await rig.browser.newContext({ storageState, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(rig.live.siteUrl(slug, path));
    return page;
  };

  rig.run = async (o) => {
    const page = await rig.signedIn(o.organizationId, o.slug, o.username, o.path ?? '/');
    const clock = new RunClock();
    const asks: UserAsk[] = [];
    const trace: TraceStep[] = [];
    const door: UserDoor =
      o.door === 'none'
        ? NO_PERSON
        : {
            needsUser: async (ask) => {
              asks.push(ask);
              clock.pause();
              try {
                if (o.door === 'exits') throw new UserActionEnded('USER_ACTION_EXITED', 'The user left the step.');
                await playPerson(page, ask, o.door as DoorScript);
              } finally {
                clock.resume();
              }
            },
            whileWaiting: async () => undefined,
          };
    const provider = rig.live.services.catalogue.bySlug(o.slug, 'sandbox')!;
    const ctx: RunContext = {
      requestId: `areq_${randomUUID()}`,
      owner: { organizationId: o.organizationId, environment: 'sandbox' },
      action: `run ${o.playbook}`,
      startingUrl: page.url(),
      playbook: o.playbook,
      parameters: o.parameters,
      responseFormat: o.responseFormat,
      mode: 'read_write',
      resultSchema: compileResponseFormat(o.responseFormat),
      provider,
      context: page.context(),
      page,
      signal: new AbortController().signal,
      deadline: clock.now() + 60_000,
      record: (s) => trace.push(s),
      integrity: new RunIntegrity(),
      secrets: [],
      ...door,
    };
    const outcome = await withRunClock(clock, () => new PlaybookStrategy(rig.live.services.playbooks).run(ctx));
    return { outcome, trace, asks, page, clock };
  };

  return rig;
}

/** The person: acts, then the step counts as done when done() says so (asked twice a second) or they press Done. */
async function playPerson(page: Page, ask: UserAsk, script: DoorScript): Promise<void> {
  await script.act(page, ask);
  if (script.pressesDone || !ask.done) return;
  for (const until = Date.now() + 15_000; Date.now() < until;) {
    if (await ask.done().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new UserActionEnded('USER_ACTION_EXPIRED', 'done() never said the step was done');
}
