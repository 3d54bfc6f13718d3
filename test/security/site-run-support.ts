import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

import type { RunContext, TraceStep } from '../../server/agent/run/context';
import { RunIntegrity } from '../../server/agent/run/integrity';
import {
  blockedStep,
  blockReporter,
  changeGate,
  judgeUnfinishedMessages,
  type RunMode,
  watchRefusals,
} from '../../server/agent/run/network-guard';
import { refusalReports } from '../../server/agent/run/refusal-join';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type ContextSource, openFencedContext } from '../../server/egress/fenced-context';
import { testRunContext } from '../support/run-context';
import type { AttackRig } from './planner-attack-support';

/** One request on a loopback site, as its strategies see it: the run context and what the fence reported. */
export interface SiteRun {
  ctx: RunContext;
  trace: TraceStep[];
  integrity: RunIntegrity;
  context: BrowserContext;
  page: Page;
  /** The port the context's own egress proxy listens on (a test may write raw frames there, below the browser). */
  proxyPort: number;
}

/**
 * One request of `mode` on a loopback site, its context fenced exactly as the worker fences a run's (run-session.ts):
 * the egress proxy with the mode's gate, the page's view of its refusals, every refusal judged by the run's integrity, and the run judged
 * only once the fence reported what its sockets left unfinished. The catalogue's Orbit provider (so a recorded
 * trajectory has a provider to belong to) is moved to the site's origin. `use` runs strategies on it; the context is
 * closed after.
 */
export async function siteRun<T>(
  rig: AttackRig,
  o: {
    origin: string;
    path?: string;
    mode: RunMode;
    organizationId: string;
    action: string;
    responseFormat: Record<string, string>;
    parameters?: Record<string, unknown>;
    /** Sees each trace step as the strategies record it (before it joins `trace`). */
    onStep?: (step: TraceStep) => void;
  },
  use: (run: SiteRun) => Promise<T>,
): Promise<T> {
  const orbit = rig.server.services.catalogue.bySlug('orbit', 'sandbox')!;
  const provider = { ...orbit, homeUrl: `${o.origin}/`, allowedOrigins: [new URL(o.origin).hostname], sessionRefresh: [] };
  const policy = EgressPolicy.forProvider(provider, 'sandbox');
  const parameters = o.parameters ?? {};
  const integrity = new RunIntegrity(parameters);
  const trace: TraceStep[] = [];
  const main: { page?: Page } = {};
  const report = blockReporter(
    (b, cause) => trace.push(blockedStep(b, cause, main.page?.url() ?? '')),
    (b) => integrity.blockedRequest(b),
  );
  let proxyServer = '';
  const source: ContextSource = {
    newContext: (options?: BrowserContextOptions) => {
      proxyServer = options?.proxy?.server ?? '';
      return rig.browser.newContext(options);
    },
  };
  const refusals = refusalReports(report, integrity, o.mode);
  const context = await openFencedContext(source, {
    policy,
    onBlocked: refusals.proxy,
    gate: changeGate(o.mode, provider.sessionRefresh),
    onChangeSent: () => undefined,
  });
  try {
    context.setDefaultTimeout(10_000);
    watchRefusals(context, { policy, mode: o.mode, mainFrame: () => main.page?.mainFrame(), report: refusals.page });
    judgeUnfinishedMessages(integrity, context);
    const page = await context.newPage();
    main.page = page;
    const startingUrl = `${o.origin}${o.path ?? '/'}`;
    await page.goto(startingUrl);
    const record = (s: TraceStep) => {
      o.onStep?.(s);
      trace.push(s);
    };
    const { organizationId, action, responseFormat, mode } = o;
    const ctx = testRunContext({
      organizationId,
      action,
      startingUrl,
      parameters,
      responseFormat,
      mode,
      provider,
      context,
      page,
      integrity,
      record,
    });
    return await use({ ctx, trace, integrity, context, page, proxyPort: Number(new URL(proxyServer).port) });
  } finally {
    await context.close().catch(() => undefined);
  }
}
