import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { RunContext, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { blockedStep, blockReporter, watchRefusals } from '../../server/agent/run/network-guard';
import { refusalReports } from '../../server/agent/run/refusal-join';
import { type StrategyDeps, trajectoryKeyOf } from '../../server/agent/strategies';
import { systemClock } from '../../server/domain/clock';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';
import { testRunContext } from '../support/run-context';
import { type ScriptedModelServer, type ScriptTurn, startScriptedModelServer } from '../support/scripted-model-server';

/**
 * What the prompt-injection and parameter-flow attacks share: a loopback "attacker" listener that counts every
 * request it gets, posts written on Orbit by another member of the same organization (the injected page
 * content), and the run context the worker would hand the planner (fenced context, integrity, secrets).
 */
export interface Sink {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

/** A listener on another loopback port: whatever reaches it is a leak. */
export async function startSink(): Promise<Sink> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<title>attacker</title><p>got it</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const newOrg = async (server: LiveServer) =>
  (await server.services.organizations.create(`Injection test ${randomUUID().slice(0, 8)}`)).organization.id;

async function signedInContext(server: LiveServer, browser: Browser, organizationId: string, username: string) {
  const state = await server.services.siteSessions.mint({ organizationId, environment: 'sandbox' }, 'orbit', username);
  const context = await browser.newContext({ storageState: state, viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  return context;
}

/** Another member of the organization publishes a post: page content the victim's agent will read in its feed. */
export async function publishPost(server: LiveServer, browser: Browser, organizationId: string, text: string, username = 'user_sms') {
  const context = await signedInContext(server, browser, organizationId, username);
  try {
    const page = await context.newPage();
    await page.goto(server.siteUrl('orbit', '/'));
    await page.getByRole('button', { name: 'Start a post' }).click();
    await page.getByRole('textbox', { name: 'Text editor for creating content' }).fill(text);
    await page.getByRole('button', { name: 'Post', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Post successful' }).waitFor();
  } finally {
    await context.close();
  }
}

/** The texts of the organization's feed as a third member sees it (the site's state, not the agent's view). */
export async function feedText(server: LiveServer, browser: Browser, organizationId: string): Promise<string> {
  const context = await signedInContext(server, browser, organizationId, 'user_good');
  try {
    const page = await context.newPage();
    await page.goto(server.siteUrl('orbit', '/'));
    return await page.locator('main').innerText();
  } finally {
    await context.close();
  }
}

export interface AttackRun {
  ctx: RunContext;
  trace: TraceStep[];
  page: Page;
  context: BrowserContext;
  /** The trajectory key of this request (to check nothing was stored for replay). */
  key: string;
}

/** What the worker hands a strategy: a signed-in context fenced to Orbit (blocked requests the run caused taint it), the page at the start. */
export async function attackRun(
  server: LiveServer,
  browser: Browser,
  o: {
    organizationId: string;
    path: string;
    action: string;
    parameters?: Record<string, unknown>;
    responseFormat: Record<string, unknown>;
    secrets?: string[];
  },
): Promise<AttackRun> {
  const provider = server.services.catalogue.bySlug('orbit', 'sandbox')!;
  const integrity = new RunIntegrity(o.parameters ?? {});
  const main: { page?: Page } = {};
  const trace: TraceStep[] = [];
  // As the worker does (run-session.ts): the egress proxy refuses; every refusal listed once, the ones the run caused tainting it.
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const refusals = refusalReports(
    blockReporter(
      (b, cause) => trace.push(blockedStep(b, cause, main.page?.url() ?? '')),
      (b) => integrity.blockedRequest(b),
    ),
    integrity,
    'read_write',
  );
  const storageState = await server.services.siteSessions.mint(
    { organizationId: o.organizationId, environment: 'sandbox' },
    'orbit',
    'user_good',
  );
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: refusals.proxy,
    options: { storageState, viewport: { width: 1280, height: 900 } },
  });
  context.setDefaultTimeout(10_000);
  watchRefusals(context, { policy, mainFrame: () => main.page?.mainFrame(), report: refusals.page });
  const page = await context.newPage();
  main.page = page;
  const startingUrl = server.siteUrl('orbit', o.path);
  await page.goto(startingUrl);
  const ctx = testRunContext({ ...o, startingUrl, provider, context, page, integrity, record: (s) => trace.push(s) });
  const { key } = trajectoryKeyOf(ctx);
  return { ctx, trace, page, context, key };
}

export const strategyDeps = (server: LiveServer, model: ScriptedModelServer): StrategyDeps => ({
  store: server.services.store,
  config: { model: { baseUrl: model.baseUrl, model: 'scripted-test-model', timeoutMs: 10_000 } },
  clock: systemClock,
});

export async function storedTrajectory(server: LiveServer, key: string) {
  return server.services.store.repos.agentTrajectories.findById(key);
}

/** The page block of the latest step prompt, exactly as the model received it. */
export function pageBlock(turn: ScriptTurn): string {
  const m = /<untrusted_page_content boundary="([0-9a-f]{24})">\n([\s\S]*?)\n<\/untrusted_page_content boundary="\1">/.exec(turn.lastUser);
  if (!m) throw new Error(`no untrusted page block in: ${turn.lastUser.slice(0, 400)}`);
  return m[2]!;
}

/** The "record-trajectory" verdict of a run's trace. */
export const recordVerdict = (trace: TraceStep[]) => trace.find((s) => s.tool === 'record-trajectory');

/** What an attack file runs against: a live AgentLink, a browser, the scripted model and the attacker's listener. */
export interface AttackRig {
  server: LiveServer;
  browser: Browser;
  model: ScriptedModelServer;
  sink: Sink;
}

/** Starts the rig before the file's tests and stops it after them; the fields are set once beforeAll has run. */
export function useAttackRig(): AttackRig {
  const rig = {} as AttackRig;
  beforeAll(async () => {
    [rig.server, rig.browser, rig.model, rig.sink] = await Promise.all([
      startLiveServer(),
      startBrowser(),
      startScriptedModelServer(),
      startSink(),
    ]);
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.server?.close();
    await rig.model?.close();
    await rig.sink?.close();
  });
  return rig;
}
