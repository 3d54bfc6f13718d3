import { requestsInFlight, settledSince } from '../../browser/page-quiet';
import { type PageSnapshot, type Redactor, takeSnapshot } from '../observation';
import { redactorFor } from '../planner/loop';
import type { ParameterSlot } from '../planner/placeholders';
import { traceStep } from '../planner/trace';
import { errorMessage, guard, isFatal, remaining, ToolError } from '../result/errors';
import { validateResult } from '../result/validate';
import { egressOf, type RunContext } from '../run/context';
import { watchTabs } from '../tabs/run-tabs';
import { executeTool, pageToolNamed, parseToolCall, settle, type ToolContext } from '../tools';
import { readResult } from './extraction';
import { findTargets } from './find-target';
import {
  describeDescriptor,
  describeStep,
  type ElementDescriptor,
  resolveDescriptor,
  type ResultPlan,
  type Trajectory,
  type TrajectoryStep,
} from './trajectory';

/**
 * Repeats a trajectory without the model: each step's element is found again by its description on the live
 * page (it must exist and be unique), the step runs through the planner's own executors, and the result is
 * read from the final page through the recorded plan and validated. Anything that differs stops the replay
 * with the reason and the steps already done, so the planner can take over from the current page.
 */
export type ReplayResult =
  | { ok: true; result: unknown }
  /**
   * `mismatch`: every step ran, but the answer could not be read and checked on the final page as recorded (its list is
   * not the recorded one, its items lost their shape, it does not validate): the trajectory no longer fits the page.
   */
  | { ok: false; reason: string; done: TrajectoryStep[]; mismatch?: true };

export interface ReplayOptions {
  slots: ParameterSlot[];
  secrets?: string[];
  /** How long to wait for a step's element to appear (a dialog opening, content loading). */
  resolveWaitMs?: number;
}

/** How often a replay looks again for an element that is not there yet, or a result that does not read yet. */
const POLL_MS = 100;

const EMPTY: PageSnapshot = { url: '', title: '', modal: false, elements: [], lines: [], truncated: { elements: 0, text: false } };

export async function replayTrajectory(ctx: RunContext, trajectory: Trajectory, opts: ReplayOptions): Promise<ReplayResult> {
  const done: TrajectoryStep[] = [];
  const diverged = (n: number, step: TrajectoryStep | null, reason: string): Extract<ReplayResult, { ok: false }> => ({
    ok: false,
    reason: step ? `step ${n} (${describeStep(step)}): ${reason}` : `the end: ${reason}`,
    done: [...done],
  });

  const tabs = watchTabs(ctx.page, egressOf(ctx));
  let lastActed = performance.now();
  /** Date.now() when the last step was a plain navigation (a link followed by its href), else null. */
  let navigatedAt: number | null = null;
  for (let n = 0; n < trajectory.steps.length; n++) {
    // A write held for the person's approval: nothing acts on the page until they decided.
    await ctx.whileWaiting();
    const step = trajectory.steps[n]!;
    guard(ctx);
    ctx.page = await tabs.currentPage();
    const started = Date.now();
    const secrets = [...ctx.secrets, ...(opts.secrets ?? [])];
    // The cookies the redactor masks are read while the page is searched.
    const redacting = redactorFor(ctx, opts.slots, secrets);
    const tool = pageToolNamed(step.tool);
    const waitMs = opts.resolveWaitMs ?? 3_000;
    let snapshot = EMPTY;
    let index: number | undefined;
    if (step.target && tool?.replay?.target === 'element') {
      const resolved = await resolveTarget(ctx, step.target, redacting, waitMs);
      if (!resolved.ok) {
        await traceStep(ctx, {
          tool: step.tool,
          target: describeDescriptor(step.target),
          started,
          outcome: 'error',
          error: resolved.reason,
        });
        return diverged(n + 1, step, resolved.reason);
      }
      ({ snapshot, index } = resolved);
    }
    const redactor = await redacting;
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
      if (!tool?.replay) throw new ToolError(`${step.tool} steps are not replayed`);
      // The arguments of this run, as the tool works them out from the recorded ones (a tab's number, looked up now).
      const recorded = tool.replay.args ? await tool.replay.args(step.args, tc, { waitMs }) : step.args;
      const args = { ...recorded, ...(index === undefined ? {} : { index }) };
      const call = parseToolCall(step.tool, JSON.stringify(args));
      if (call.name === 'done' || call.name === 'fail') throw new ToolError(`a trajectory cannot contain ${call.name}`);
      lastActed = performance.now();
      navigatedAt = null;
      // The tool may know a shorter way to the same effect, which it checks on the live page first (a link's href).
      const before = Date.now();
      const shortcut = tool.replay.instead && index !== undefined ? await tool.replay.instead(step.args, tc, index) : null;
      if (shortcut) navigatedAt = before;
      else await executeTool(call.name, call.args, tc);
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
  // The last step's tool settled the page itself (a click, a key press …): a second quiet window would only add time.
  // After a plain navigation (its document loaded) the read below needs no quiet window first, as a hand-written script's
  // read after its goto needs none: it reads again until the result reads and validates. Unless a list is read while the
  // page still fetches: fetched items may still be added to it, and a list read too early validates all the same.
  const plainlyLoaded = navigatedAt !== null && (!hasList(trajectory.result) || !requestsInFlight(ctx.page, navigatedAt));
  if (!plainlyLoaded && !settledSince(ctx.page, lastActed)) await settle({ page: ctx.page, run: ctx });
  const started = Date.now();
  const until = started + (opts.resolveWaitMs ?? 3_000);
  // The page may still be filling in what the result is read from: read again until it reads and validates, or time is up.
  for (;;) {
    const read = await readResult(ctx.page, trajectory.result, opts.slots);
    let error: string;
    let reason: string;
    if (read.ok) {
      const check = validateResult(ctx.resultSchema, read.value);
      if (check.valid) {
        await traceStep(ctx, { tool: 'extract', started, outcome: 'ok' });
        return { ok: true, result: read.value };
      }
      reason = `the result read from the page does not match responseFormat (${check.errors.map((e) => `${e.path || '(result)'} ${e.message}`).join('; ')})`;
      error = reason;
    } else {
      reason = `the result could not be read from the page: ${read.reason}`;
      error = read.reason;
    }
    if (Date.now() >= until) {
      await traceStep(ctx, { tool: 'extract', started, outcome: 'error', error });
      return { ...diverged(0, null, reason), mismatch: true };
    }
    await ctx.page.waitForTimeout(remaining(ctx, POLL_MS));
    guard(ctx);
  }
}

function hasList(plan: ResultPlan): boolean {
  return plan.kind === 'list' || (plan.kind === 'object' && Object.values(plan.properties).some(hasList));
}

/**
 * Finds a step's element again: by the narrow search (find-target.ts) while it can answer, polling while the page
 * is still loading; the full snapshot, as the recording saw the page, has the final word when the narrow search
 * cannot see the page, on its first miss (should the two views ever disagree, that costs one snapshot, not the
 * whole wait) and when time is up.
 */
async function resolveTarget(
  ctx: RunContext,
  target: ElementDescriptor,
  redacting: Promise<Redactor>,
  waitMs: number,
): Promise<{ ok: true; snapshot: PageSnapshot; index: number } | { ok: false; reason: string }> {
  const until = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    const narrow = await findTargets(ctx.page, target, redacting);
    if (narrow) {
      const found = resolveDescriptor(target, narrow);
      if (found.ok) return { ok: true, snapshot: narrow, index: found.el.index };
    }
    const last = Date.now() >= until;
    if (!narrow || last || attempt === 0) {
      const snapshot = await takeSnapshot(ctx.page, { redactor: await redacting, egress: egressOf(ctx) });
      const found = resolveDescriptor(target, snapshot);
      if (found.ok) return { ok: true, snapshot, index: found.el.index };
      if (last) return { ok: false, reason: found.reason };
    }
    await ctx.page.waitForTimeout(remaining(ctx, POLL_MS));
    guard(ctx);
  }
}
