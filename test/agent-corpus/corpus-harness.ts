import { randomUUID } from 'node:crypto';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { ChatClient } from '../../server/agent/model/chat-client';
import { runPlanner } from '../../server/agent/planner/loop';
import type { RunContext, RunOutcome, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { trackRequests } from '../../server/browser/page-quiet';
import { EgressPolicy } from '../../server/egress/egress-policy';
import type { ProviderDefinition } from '../../server/providers/provider';
import { type RealisticSites, type SiteEvent, startRealisticSites } from '../fixtures/realistic/server';
import { startBrowser } from '../support/live-server';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';
import { LabelPicker } from './label-picker';
import { parseSteps, readKeys } from './steps';

/**
 * Runs one corpus task through the REAL planner loop (server/agent/planner/loop.ts: observation, tools, error
 * funnel, result validation) in real Chromium on the realistic sites, with the label-picking stand-in model on
 * loopback; then the test reads what the sites recorded.
 *
 * The browser context is fenced the way planner-attack-support.ts fences its runs: the network guard with the
 * corpus provider's egress policy (127.0.0.1 and 127.0.0.2 on the fixture port) refuses everything else — the
 * third-party widgets on the foreign port included — and reports it to the run's integrity. Not through the
 * egress proxy: its sandbox address rule lets only the provider's home host reach a local address, so the
 * provider's second origin (the card form's) could not be served from loopback at all.
 */
export interface CorpusTask {
  id: string;
  /** Where the run starts (a path on the shop origin). */
  page: string;
  /** The action as a user asks for it (the planner's Action). */
  action: string;
  /** What of the issue this task exercises (shadow-dom, iframe, tabs, hover, listener, svg-title, hidden-input, date, state, long-text, baseline). */
  exercises: string[];
  /** Person-phrased steps for the label-picking model (./steps.ts). */
  steps: string[];
  /** Checks the sites' state (and the result) afterwards. */
  check(run: TaskRun): void;
}

export interface TaskRun {
  outcome: RunOutcome;
  trace: TraceStep[];
  /** Events the sites recorded during the run (every origin), optionally of one type. */
  events(type?: string): SiteEvent[];
  /** The model's decisions, turn by turn. */
  log: string[];
  /** URLs of the pages (tabs, popups) still open when the run ended. */
  openPages: string[];
  origins: { shop: string; pay: string; foreign: string };
}

export interface CorpusRig {
  sites: RealisticSites;
  browser: Browser;
  model: ScriptedModelServer;
}

/** The sites as a provider: two origins on the fixture port; the foreign port is not the provider's. */
export function corpusProvider(sites: Pick<RealisticSites, 'shop'>): ProviderDefinition {
  const home = new URL(sites.shop);
  return {
    providerId: 'c0a9b1e4-0000-4000-8000-000000c0a9b1',
    name: 'Realistic corpus sites',
    slug: 'corpus',
    category: 'developer',
    environment: 'sandbox',
    homeUrl: `${home.origin}/store/`,
    loginUrl: `${home.origin}/login`,
    allowedOrigins: ['127.0.0.1', '127.0.0.2'],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>',
    login: {
      usernameLabel: 'Email',
      form: { username: { label: 'Email' }, password: { label: 'Password' }, submit: { role: 'button', name: 'Sign in' } },
      success: [],
      invalidCredentials: [],
      locked: [],
    },
  };
}

export function useCorpusRig(): CorpusRig {
  const rig = {} as CorpusRig;
  beforeAll(async () => {
    [rig.sites, rig.browser, rig.model] = await Promise.all([startRealisticSites(), startBrowser(), startScriptedModelServer()]);
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.sites?.close();
    await rig.model?.close();
  });
  return rig;
}

const RUN_MS = 75_000;

export interface CorpusPage {
  context: BrowserContext;
  page: Page;
  provider: ProviderDefinition;
  integrity: RunIntegrity;
  startingUrl: string;
}

/** A fresh context fenced to the corpus provider, its first page loaded at `path` (the caller closes the context). */
export async function openCorpusPage(rig: Pick<CorpusRig, 'sites' | 'browser'>, path: string): Promise<CorpusPage> {
  return openFencedPage(rig.browser, corpusProvider(rig.sites), rig.sites.url(path));
}

/**
 * The corpus's stand-in for a run's egress proxy: what the egress policy refuses is refused in the browser and reported.
 * Its sites sit on two loopback addresses (a shop and its payment processor's origin), and the sandbox's address rule
 * lets only the provider's home host and port be local, so the proxy itself would refuse the processor; the fence is
 * tested by the security suites, with the proxy.
 */
async function refuseOffPolicy(context: BrowserContext, policy: EgressPolicy, report: (url: string) => void): Promise<void> {
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (policy.checkUrl(url, { pageLocal: true, webSockets: true }).ok) return route.fallback();
    report(url);
    await route.abort('blockedbyclient').catch(() => undefined);
  });
}

/**
 * A fresh context fenced to `provider` (the sandbox egress policy: what it refuses taints
 * the run's integrity), its first page loaded at `startingUrl`; `prepare` runs on the context before the page
 * exists (a fixed clock). The caller closes the context.
 */
export async function openFencedPage(
  browser: Browser,
  provider: ProviderDefinition,
  startingUrl: string,
  prepare?: (context: BrowserContext) => Promise<void>,
): Promise<CorpusPage> {
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  const integrity = new RunIntegrity();
  const main: { page?: Page } = {};
  try {
    await refuseOffPolicy(context, policy, (url) => integrity.taint('BLOCKED_REQUEST', url));
    // The stand-in fence is a route: settling after an action must not miss a request Playwright reports late under it.
    trackRequests(context, { routed: true });
    await prepare?.(context);
    const page = await context.newPage();
    main.page = page;
    await page.goto(startingUrl, { waitUntil: 'load' });
    return { context, page, provider, integrity, startingUrl };
  } catch (err) {
    await context.close();
    throw err;
  }
}

/**
 * What the sites recorded and which pages are still open, read before the context closes. `quietMs`: how long the sites
 * must have heard nothing (default the sites' 300 ms, for what a run's last action sends).
 */
export async function finishRun(
  rig: Pick<CorpusRig, 'sites'>,
  context: BrowserContext,
  quietMs?: number,
): Promise<Pick<TaskRun, 'events' | 'openPages' | 'origins'>> {
  // What the open pages reported (window.__state, track.js): the sites must have had at least that many reports.
  const tracked = await Promise.all(
    context
      .pages()
      .map((p) =>
        Promise.race([
          p.evaluate(() => (window as { __state?: { events: unknown[] } }).__state?.events.length ?? 0).catch(() => 0),
          new Promise<number>((r) => setTimeout(() => r(0), 2_000).unref()),
        ]),
      ),
  );
  await rig.sites.settle(
    quietMs,
    tracked.reduce((a, b) => a + b, 0),
  );
  const events = [...rig.sites.events()];
  return {
    events: (type) => events.filter((e) => type === undefined || e.type === type),
    openPages: context.pages().map((p) => p.url()),
    origins: { shop: rig.sites.shop, pay: rig.sites.pay, foreign: rig.sites.foreign },
  };
}

export async function runCorpusTask(rig: CorpusRig, task: CorpusTask): Promise<TaskRun> {
  rig.sites.reset();
  const opened = await openCorpusPage(rig, task.page);
  try {
    const run = await runWithLabelPicker(rig.model, opened, task);
    return { ...run, ...(await finishRun(rig, opened.context)) };
  } finally {
    await opened.context.close();
  }
}

export interface PickerRun {
  outcome: RunOutcome;
  trace: TraceStep[];
  /** The model's decisions, turn by turn. */
  log: string[];
}

/**
 * One run of the REAL planner loop on an opened page, with the label-picking model following `steps` over the
 * OpenAI-compatible API. The result asked for is what the steps read (else `completed`). The context stays open
 * (the caller reads the page state, then closes it).
 */
export async function runWithLabelPicker(
  model: ScriptedModelServer,
  opened: CorpusPage,
  task: Pick<CorpusTask, 'action' | 'steps'>,
): Promise<PickerRun> {
  const steps = parseSteps(task.steps);
  const keys = readKeys(steps);
  const responseFormat: Record<string, unknown> = keys.length
    ? Object.fromEntries(keys.map((k) => [k, `string - the ${k} as shown on the page`]))
    : { completed: 'boolean - true when the action is done' };
  const { context, page, provider, integrity, startingUrl } = opened;
  const picker = new LabelPicker(task.steps);
  model.setScript(picker.script);
  const trace: TraceStep[] = [];
  const ctx: RunContext = {
    requestId: `areq_${randomUUID()}`,
    owner: { organizationId: 'org_corpus', environment: 'sandbox' },
    action: task.action,
    startingUrl,
    parameters: {},
    responseFormat,
    mode: 'read_write',
    resultSchema: compileResponseFormat(responseFormat),
    provider,
    context,
    page,
    signal: new AbortController().signal,
    deadline: Date.now() + RUN_MS,
    record: (s) => trace.push(s),
    integrity,
    secrets: [],
    ...NO_PERSON,
  };
  const client = new ChatClient({ baseUrl: model.baseUrl, model: 'corpus-label-picker', timeoutMs: 10_000 });
  const { outcome } = await runPlanner(ctx, { client, options: { maxSteps: 30 } });
  return { outcome, trace, log: picker.log };
}

/** A readable account of a run, for a failing task's message. */
export function explain(run: TaskRun): string {
  const o = run.outcome;
  const head =
    o.status === 'completed'
      ? `completed with ${JSON.stringify(o.result)}`
      : `${o.status}: ${'code' in o ? `${o.code} ` : ''}${'message' in o ? o.message : o.reason}`;
  const trace = run.trace.map((s) => `  ${s.tool}${s.target ? ` ${s.target}` : ''} → ${s.outcome}${s.error ? `: ${s.error}` : ''}`);
  const events = run.events().filter((e) => e.type !== 'view');
  return [
    head,
    'model:',
    ...run.log.map((l) => `  ${l}`),
    'trace:',
    ...trace,
    `site events: ${events.length ? events.map((e) => JSON.stringify(e)).join(', ') : '(none)'}`,
    `open pages: ${run.openPages.join(', ')}`,
  ].join('\n');
}
