import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { compileResponseFormat } from '../../contract/response-format';
import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { ChatClient } from '../../server/agent/model/chat-client';
import { type PageSnapshot, Redactor, takeSnapshot } from '../../server/agent/observation';
import { type PlannerRun, runPlanner } from '../../server/agent/planner/loop';
import { observationPlaceholders, parameterSlots } from '../../server/agent/planner/placeholders';
import type { RunContext, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { watchRefusals } from '../../server/agent/run/network-guard';
import { executeTool, type PageToolName, type ToolContext, type ToolOutcome } from '../../server/agent/tools';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import type { ProviderDefinition } from '../../server/providers/provider';
import { startBrowser } from '../support/live-server';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';

/**
 * What the tool tests share: a site on 127.0.0.1 whose pages each test writes inline, a second loopback origin
 * the run may not reach, real Chromium in a context fenced to the site exactly as the worker fences it (egress
 * proxy + the page's view of its refusals), the tools driven directly on a fresh observation, and the real planner loop driven by
 * the scripted model.
 */
export interface Site {
  origin: string;
  /** Serves `html` at `path` (until the test file ends). */
  page(path: string, html: string): string;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const html = pages.get(path);
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? '<title>Not found</title><h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(path, html) {
      pages.set(path, html);
      return `${origin}${path}`;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Run {
  ctx: RunContext;
  context: BrowserContext;
  page: Page;
  trace: TraceStep[];
  blocked: string[];
}

export interface Rig {
  site: Site;
  /** Another origin (another port): outside the run's egress policy. */
  outside: Site;
  browser: Browser;
  model: ScriptedModelServer;
  policy: EgressPolicy;
  /** A run on `path` of the site, as the worker hands it to a strategy. */
  open(path: string, o?: { parameters?: Record<string, unknown>; action?: string; responseFormat?: Record<string, unknown> }): Promise<Run>;
  /** Observes the current page and runs one tool on it, as the planner would. */
  tool(run: Run, name: PageToolName, args: Record<string, unknown>, snapshot?: PageSnapshot): Promise<ToolOutcome>;
  toolContext(run: Run, snapshot: PageSnapshot): ToolContext;
  /** The real planner loop with the scripted model. */
  plan(run: Run, maxSteps?: number): Promise<PlannerRun>;
}

export function useRig(): Rig {
  const contexts: BrowserContext[] = [];
  const rig = {} as Rig;
  beforeAll(async () => {
    [rig.site, rig.outside, rig.browser, rig.model] = await Promise.all([
      startSite(),
      startSite(),
      startBrowser(),
      startScriptedModelServer(),
    ]);
    rig.policy = EgressPolicy.forProvider({ name: 'Fixture', homeUrl: `${rig.site.origin}/`, allowedOrigins: ['127.0.0.1'] }, 'sandbox');
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.site?.close();
    await rig.outside?.close();
    await rig.model?.close();
  });

  rig.open = async (path, o = {}) => {
    const blocked: string[] = [];
    const integrity = new RunIntegrity();
    const context = await openFencedContext(rig.browser, {
      policy: rig.policy,
      onBlocked: (b) => blocked.push(b.url),
      options: { viewport: { width: 1280, height: 900 } },
    });
    context.setDefaultTimeout(10_000);
    contexts.push(context);
    const main: { page?: Page } = {};
    watchRefusals(context, {
      policy: rig.policy,
      mainFrame: () => main.page?.mainFrame(),
      report: (b) => {
        blocked.push(b.url);
        integrity.taint('BLOCKED_REQUEST', b.url);
      },
    });
    const page = await context.newPage();
    main.page = page;
    const startingUrl = `${rig.site.origin}${path}`;
    await page.goto(startingUrl);
    const trace: TraceStep[] = [];
    const provider = {
      providerId: 'prov_fixture',
      name: 'Fixture',
      slug: 'fixture',
      category: 'developer',
      environment: 'sandbox',
      homeUrl: `${rig.site.origin}/`,
      loginUrl: `${rig.site.origin}/login`,
      allowedOrigins: ['127.0.0.1'],
      logo: '<svg/>',
    } as unknown as ProviderDefinition;
    const responseFormat = o.responseFormat ?? { answer: 'string - the answer' };
    const ctx: RunContext = {
      requestId: `areq_${randomUUID()}`,
      owner: { organizationId: 'org_tools_test', environment: 'sandbox' },
      action: o.action ?? 'Do the task',
      startingUrl,
      parameters: o.parameters ?? {},
      responseFormat,
      mode: 'read_write',
      resultSchema: compileResponseFormat(responseFormat),
      provider,
      context,
      page,
      signal: new AbortController().signal,
      deadline: Date.now() + 40_000,
      record: (s) => trace.push(s),
      integrity,
      secrets: [],
      ...NO_PERSON,
    };
    return { ctx, context, page, trace, blocked };
  };

  rig.toolContext = (run, snapshot) => ({
    page: run.ctx.page,
    snapshot,
    slots: parameterSlots(run.ctx.parameters),
    redactor: new Redactor({ placeholders: observationPlaceholders(parameterSlots(run.ctx.parameters)) }),
    egress: rig.policy,
    run: run.ctx,
    integrity: run.ctx.integrity,
    secrets: [],
  });

  rig.tool = async (run, name, args, snapshot) =>
    executeTool(name, args, rig.toolContext(run, snapshot ?? (await takeSnapshot(run.ctx.page))));

  rig.plan = (run, maxSteps = 8) =>
    runPlanner(run.ctx, {
      client: new ChatClient({ baseUrl: rig.model.baseUrl, model: 'scripted-test-model', timeoutMs: 10_000 }),
      options: { maxSteps },
    });

  return rig;
}

/** The index of the one element with this role and name in a snapshot. */
export function indexOf(s: PageSnapshot, role: string, name: string | RegExp): number {
  const hits = s.elements.filter((e) => e.role === role && (typeof name === 'string' ? e.name === name : name.test(e.name)));
  if (hits.length !== 1)
    throw new Error(`${hits.length} × ${role} ${String(name)} in ${JSON.stringify(s.elements.map((e) => `${e.role} '${e.name}'`))}`);
  return hits[0]!.index;
}

/** A page of the fixture site: a title, a body, a script. */
export const html = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;
