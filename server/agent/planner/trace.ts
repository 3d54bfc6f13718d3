import type { RunContext, TraceStep } from '../run/context';
import { failureScreenshot, pageUrl } from '../run/trace';

/** One trace entry per tool call of the planner or the replay; a failed step carries a screenshot. */
export async function traceStep(
  ctx: Pick<RunContext, 'page' | 'record'>,
  step: { tool: string; target?: string; started: number; outcome: TraceStep['outcome']; error?: string },
): Promise<void> {
  const screenshot = step.outcome !== 'ok' ? await failureScreenshot(ctx.page) : undefined;
  ctx.record({
    tool: step.tool,
    ...(step.target ? { target: step.target } : {}),
    url: pageUrl(ctx.page),
    durationMs: Date.now() - step.started,
    outcome: step.outcome,
    ...(step.error ? { error: step.error } : {}),
    ...(screenshot ? { screenshot } : {}),
  });
}
