import { type PageSnapshot, takeSnapshot } from '../observation';
import { redactorFor } from '../planner/loop';
import type { ParameterSlot } from '../planner/placeholders';
import { traceStep } from '../planner/trace';
import { errorMessage, guard, isFatal, remaining, ToolError } from '../result/errors';
import { validateResult } from '../result/validate';
import { egressOf, type RunContext } from '../run-context';
import { type TabPattern, watchTabs } from '../tabs/run-tabs';
import { executeTool, parseToolCall, settle, type ToolContext } from '../tools';
import { readResult } from './extraction';
import { describeDescriptor, describeStep, resolveDescriptor, type Trajectory, type TrajectoryStep } from './trajectory';

/**
 * Repeats a trajectory without the model: each step's element is found again by its description on the live
 * page (it must exist and be unique), the step runs through the planner's own executors, and the result is
 * read from the final page through the recorded plan and validated. Anything that differs stops the replay
 * with the reason and the steps already done, so the planner can take over from the current page.
 */
export type ReplayResult = { ok: true; result: unknown } | { ok: false; reason: string; done: TrajectoryStep[] };

export interface ReplayOptions {
  slots: ParameterSlot[];
  secrets?: string[];
  /** How long to wait for a step's element to appear (a dialog opening, content loading). */
  resolveWaitMs?: number;
}

const EMPTY: PageSnapshot = { url: '', title: '', modal: false, elements: [], lines: [], truncated: { elements: 0, text: false } };

export async function replayTrajectory(ctx: RunContext, trajectory: Trajectory, opts: ReplayOptions): Promise<ReplayResult> {
  const done: TrajectoryStep[] = [];
  const diverged = (n: number, step: TrajectoryStep | null, reason: string): ReplayResult => ({
    ok: false,
    reason: step ? `step ${n} (${describeStep(step)}): ${reason}` : `the end: ${reason}`,
    done: [...done],
  });

  const tabs = watchTabs(ctx.page, egressOf(ctx));
  for (let n = 0; n < trajectory.steps.length; n++) {
    const step = trajectory.steps[n]!;
    guard(ctx);
    ctx.page = await tabs.currentPage();
    const started = Date.now();
    const secrets = [...ctx.secrets, ...(opts.secrets ?? [])];
    const redactor = await redactorFor(ctx, opts.slots, secrets);
    let snapshot = EMPTY;
    let index: number | undefined;
    if (step.target) {
      const until = Date.now() + (opts.resolveWaitMs ?? 3_000);
      for (;;) {
        snapshot = await takeSnapshot(ctx.page, { redactor, egress: egressOf(ctx) });
        const found = resolveDescriptor(step.target, snapshot);
        if (found.ok) {
          index = found.el.index;
          break;
        }
        if (Date.now() >= until) {
          await traceStep(ctx, {
            tool: step.tool,
            target: describeDescriptor(step.target),
            started,
            outcome: 'error',
            error: found.reason,
          });
          return diverged(n + 1, step, found.reason);
        }
        await ctx.page.waitForTimeout(remaining(ctx, 250));
        guard(ctx);
      }
    }
    const tc: ToolContext = {
      page: ctx.page,
      snapshot,
      slots: opts.slots,
      redactor,
      egress: egressOf(ctx),
      run: ctx,
      integrity: ctx.integrity,
      secrets,
    };
    try {
      // A tab step names its tab by URL and title; the number it has in this run is looked up now.
      const args =
        step.tool === 'switch_tab' || step.tool === 'close_tab'
          ? { tab: await tabs.waitFor(step.args as unknown as TabPattern, (s) => redactor.text(s), opts.resolveWaitMs ?? 3_000) }
          : { ...step.args, ...(index === undefined ? {} : { index }) };
      const call = parseToolCall(step.tool, JSON.stringify(args));
      if (call.name === 'done' || call.name === 'fail') throw new ToolError(`a trajectory cannot contain ${call.name}`);
      await executeTool(call.name, call.args, tc);
      guard(ctx);
    } catch (err) {
      if (isFatal(err, ctx)) throw err;
      const reason = errorMessage(err);
      if (err instanceof ToolError && err.blocked) ctx.integrity.taint('POLICY_REFUSAL', reason);
      await traceStep(ctx, {
        tool: step.tool,
        ...(step.target ? { target: describeDescriptor(step.target) } : {}),
        started,
        outcome: err instanceof ToolError && err.blocked ? 'blocked' : 'error',
        error: reason,
      });
      return diverged(n + 1, step, reason);
    }
    await traceStep(ctx, { tool: step.tool, ...(step.target ? { target: describeDescriptor(step.target) } : {}), started, outcome: 'ok' });
    done.push(step);
  }

  guard(ctx);
  ctx.page = await tabs.currentPage();
  await settle({ page: ctx.page, run: ctx }, 100);
  const started = Date.now();
  const read = await readResult(ctx.page, trajectory.result, opts.slots);
  if (!read.ok) {
    await traceStep(ctx, { tool: 'extract', started, outcome: 'error', error: read.reason });
    return diverged(0, null, `the result could not be read from the page: ${read.reason}`);
  }
  const check = validateResult(ctx.resultSchema, read.value);
  if (!check.valid) {
    const reason = `the result read from the page does not match responseFormat (${check.errors.map((e) => `${e.path || '(result)'} ${e.message}`).join('; ')})`;
    await traceStep(ctx, { tool: 'extract', started, outcome: 'error', error: reason });
    return diverged(0, null, reason);
  }
  await traceStep(ctx, { tool: 'extract', started, outcome: 'ok' });
  return { ok: true, result: read.value };
}
