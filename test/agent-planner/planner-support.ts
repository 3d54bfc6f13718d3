import { randomUUID } from 'node:crypto';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { RunContext, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { watchRefusals } from '../../server/agent/run/network-guard';
import type { StrategyDeps } from '../../server/agent/strategies';
import { systemClock } from '../../server/domain/clock';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';
import { testRunContext } from '../support/run-context';
import {
  type ParsedObservation,
  type ScriptedModelServer,
  type ScriptTurn,
  startScriptedModelServer,
} from '../support/scripted-model-server';

/**
 * What the planner's browser tests (planner*.browser.test.ts) share: a live server, real Chromium and the scripted
 * model server, started for the calling file by `usePlannerServers()` (the bindings below are set once its beforeAll
 * ran); the strategies' deps; a signed-in, fenced run context on a simulated provider; reading the observation.
 */
export let server: LiveServer;
export let browser: Browser;
export let model: ScriptedModelServer;
const contexts: BrowserContext[] = [];

/** Starts the servers and the browser for the calling test file; closes each run's context after each test. */
export function usePlannerServers(): void {
  beforeAll(async () => {
    [server, browser, model] = await Promise.all([startLiveServer(), startBrowser(), startScriptedModelServer()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
}

const modelConfig = () => ({ baseUrl: model.baseUrl, model: 'scripted-test-model', apiKey: 'sk-test-key', timeoutMs: 10_000 });
export const deps = (): StrategyDeps => ({ store: server.services.store, config: { model: modelConfig() }, clock: systemClock });

export interface Run {
  ctx: RunContext;
  trace: TraceStep[];
  page: Page;
  cookie: string;
}

export async function newOrg() {
  return (await server.services.organizations.create(`Planner test ${randomUUID().slice(0, 8)}`)).organization.id;
}

/** What the worker would hand a strategy: a signed-in context restricted to the provider, the page at the start. */
export async function runContext(o: {
  organizationId: string;
  slug: 'orbit' | 'forgehub';
  path: string;
  action: string;
  parameters?: Record<string, unknown>;
  responseFormat: Record<string, unknown>;
  username?: string;
  timeoutMs?: number;
}): Promise<Run> {
  const provider = server.services.catalogue.bySlug(o.slug, 'sandbox')!;
  const state = await server.services.siteSessions.mint(
    { organizationId: o.organizationId, environment: 'sandbox' },
    o.slug,
    o.username ?? 'user_good',
  );
  // The worker's own fence: the context's traffic goes through its egress proxy, and the page's view of its refusals reports.
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const context = await openFencedContext(browser, {
    policy,
    onBlocked: () => undefined,
    options: { storageState: state, viewport: { width: 1280, height: 900 } },
  });
  context.setDefaultTimeout(10_000);
  contexts.push(context);
  const main: { page?: Page } = {};
  const integrity = new RunIntegrity(o.parameters ?? {});
  watchRefusals(context, {
    policy,
    mainFrame: () => main.page?.mainFrame(),
    report: (b) => void integrity.blockedRequest(b),
  });
  const page = await context.newPage();
  main.page = page;
  const startingUrl = server.siteUrl(o.slug, o.path);
  await page.goto(startingUrl);
  const trace: TraceStep[] = [];
  const { organizationId, action, parameters, responseFormat } = o;
  const ctx = testRunContext({
    ...{ organizationId, action, parameters, responseFormat, startingUrl, provider, context, page, integrity },
    timeoutMs: o.timeoutMs ?? 45_000,
    record: (s) => trace.push(s),
  });
  return { ctx, trace, page, cookie: state.cookies[0]!.value };
}

export const obs = (t: ScriptTurn): ParsedObservation => {
  if (!t.observation) throw new Error(`no observation in: ${t.lastUser.slice(0, 300)}`);
  return t.observation;
};
export const headingOf = (o: ParsedObservation, level = 1) => new RegExp(`^${'#'.repeat(level)} (.+)$`, 'm').exec(o.text)?.[1];
export const numberIn = (o: ParsedObservation, re: RegExp) => {
  const m = re.exec(o.text);
  if (!m) throw new Error(`no ${re} in the observation`);
  return Number(m[1]!.replace(/,/g, ''));
};
