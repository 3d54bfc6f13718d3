import type { Page } from 'playwright-core';

import type { AppConfig } from '../../config';
import type { Store } from '../../store';
import { ChatClient } from '../model/chat-client';
import { Redactor } from '../observation';
import { type PlannerCompletion, type PlannerOptions, runPlanner } from '../planner/loop';
import { parameterSlots } from '../planner/placeholders';
import { traceStep } from '../planner/trace';
import type { Clock } from '../ports';
import { planResult } from '../replay/extraction';
import { replayTrajectory } from '../replay/replayer';
import { describeStep, type Trajectory, TRAJECTORY_VERSION, trajectoryKey, type TrajectoryStep } from '../replay/trajectory';
import { TrajectoryStore } from '../replay/trajectory-store';
import { schemaHash } from '../result/validate';
import type { ExecutionStrategy, RunContext, RunOutcome } from '../run/context';

/**
 * The replay and planner strategies the worker runs after the playbooks, in this order:
 *
 *   replayStrategy   a trajectory learned from an earlier successful planner run of the same action (same
 *                    provider, mode, action template, starting path and parameter names): zero model calls.
 *                    Anything that differs → not_applicable, and the steps it already did are handed to
 *                    the planner, which continues from the current page. An answer that cannot be checked on
 *                    the final page (replay/list-check.page.ts) marks the trajectory stale and, without a
 *                    model, fails with REPLAY_MISMATCH: a replay answers right or not at all.
 *   plannerStrategy  the LLM loop. Without config.model it fails at once with MODEL_NOT_CONFIGURED. A
 *                    completed run is recorded as a trajectory (when its result can be traced to the page)
 *                    only when it is clean (ctx.integrity: no blocked request, no refusal, no injection
 *                    marker), because a replay repeats it later with no model to notice an attack.
 *
 * Both take the same RunContext object in turn (the worker's), and the hand-over is keyed by its page.
 */
export interface StrategyDeps {
  store: Store;
  config: Pick<AppConfig, 'model'>;
  clock: Clock;
}

export const MODEL_NOT_CONFIGURED_MESSAGE =
  'No playbook or recorded replay covers this action, and no model is configured for the planner. ' +
  'Set AGENTLINK_MODEL_BASE_URL to an OpenAI-compatible Chat Completions endpoint (for example https://api.openai.com/v1), ' +
  'AGENTLINK_MODEL to a model with tool calling (for example gpt-4o-mini) and, if the endpoint needs one, AGENTLINK_MODEL_API_KEY; then restart AgentLink.';

const ZERO_USAGE = { calls: 0, promptTokens: 0, completionTokens: 0 };

/** What a replay that diverged already did, for the planner that takes over on the same page. */
const handovers = new WeakMap<Page, { described: string[]; steps: TrajectoryStep[] }>();

/** Called after a completed planner run; the default traces the result back to the page and stores the trajectory. */
export type TrajectoryRecorder = (ctx: RunContext, completion: PlannerCompletion) => Promise<{ saved: boolean; reason?: string }>;

export interface PlannerStrategyOptions {
  planner?: Partial<PlannerOptions>;
  /** Strings the model must never read besides cookie values (for example the connection's credentials). */
  secrets?: (ctx: RunContext) => string[];
  /** Replaces the default recorder (null: record nothing). */
  recorder?: TrajectoryRecorder | null;
  fetch?: typeof fetch;
}

/** The trajectory key of a run, as the recorder stores it and the replay looks it up (tests check the store by it). */
export function trajectoryKeyOf(ctx: Pick<RunContext, 'owner' | 'provider' | 'mode' | 'action' | 'startingUrl' | 'parameters'>) {
  const slots = parameterSlots(ctx.parameters);
  return {
    slots,
    ...trajectoryKey({
      scope: `${ctx.owner.organizationId}:${ctx.owner.environment}`,
      providerId: ctx.provider.providerId,
      mode: ctx.mode,
      action: ctx.action,
      startingUrl: ctx.startingUrl,
      slots,
    }),
  };
}

export function trajectoryRecorder(deps: StrategyDeps): TrajectoryRecorder {
  const trajectories = new TrajectoryStore(deps.store, deps.clock);
  return async (ctx, completion) => {
    const started = Date.now();
    const { slots, key, actionTemplate, startPath } = trajectoryKeyOf(ctx);
    const plan = await planResult(ctx.page, completion.rawData, completion.data, slots, {
      constantsAllowed: completion.changedSomething,
      request: ctx.action,
    });
    if (!plan.ok) {
      await traceStep(ctx, { tool: 'record-trajectory', started, outcome: 'error', error: `not recorded for replay: ${plan.reason}` });
      return { saved: false, reason: plan.reason };
    }
    const trajectory: Trajectory = {
      version: TRAJECTORY_VERSION,
      mode: ctx.mode,
      startPath,
      parameterNames: slots.map((s) => s.name).sort(),
      steps: completion.steps,
      result: plan.value,
    };
    // Belt and braces: a stored credential read off a page (a name, a bound prefix) never reaches the store.
    if (ctx.secrets.length && new Redactor({ secrets: ctx.secrets }).holdsSecret(JSON.stringify(trajectory))) {
      const reason = 'the trajectory would hold a stored credential';
      await traceStep(ctx, { tool: 'record-trajectory', started, outcome: 'blocked', error: `not recorded for replay: ${reason}` });
      return { saved: false, reason };
    }
    // Judged again just before it is stored: what the pages began while the result was traced back counts too.
    if (!ctx.integrity.clean) {
      const reason = ctx.integrity.summary();
      await traceStep(ctx, { tool: 'record-trajectory', started, outcome: 'blocked', error: `not recorded for replay: ${reason}` });
      return { saved: false, reason };
    }
    await trajectories.save({
      key,
      providerId: ctx.provider.providerId,
      actionTemplate,
      schemaHash: schemaHash(ctx.resultSchema),
      trajectory,
    });
    await traceStep(ctx, { tool: 'record-trajectory', started, outcome: 'ok' });
    return { saved: true };
  };
}

export function plannerStrategy(deps: StrategyDeps, opts: PlannerStrategyOptions = {}): ExecutionStrategy {
  const recorder = opts.recorder === undefined ? trajectoryRecorder(deps) : opts.recorder;
  return {
    method: 'PLANNER',
    async run(ctx: RunContext): Promise<RunOutcome> {
      const model = deps.config.model;
      if (!model) return { status: 'failed', code: 'MODEL_NOT_CONFIGURED', message: MODEL_NOT_CONFIGURED_MESSAGE };
      const handover = handovers.get(ctx.page);
      handovers.delete(ctx.page);
      const client = new ChatClient(model, opts.fetch ? { fetch: opts.fetch } : {});
      const run = await runPlanner(ctx, { client, options: opts.planner, secrets: opts.secrets?.(ctx) ?? [], handover });
      if (run.outcome.status === 'completed' && run.completion && recorder && !ctx.integrity.clean) {
        await traceStep(ctx, {
          tool: 'record-trajectory',
          started: Date.now(),
          outcome: 'blocked',
          error: `not recorded for replay: ${ctx.integrity.summary()}`,
        });
      } else if (run.outcome.status === 'completed' && run.completion && recorder) {
        try {
          await recorder(ctx, run.completion);
        } catch (err) {
          // A trajectory that cannot be stored never fails the request that already completed.
          await traceStep(ctx, {
            tool: 'record-trajectory',
            started: Date.now(),
            outcome: 'error',
            error: String((err as Error)?.message ?? err),
          });
        }
      }
      return run.outcome;
    },
  };
}

function replayMismatch(reason: string): RunOutcome {
  return {
    status: 'failed',
    code: 'REPLAY_MISMATCH',
    message: `The recorded replay of this action no longer matches the page, and no model is configured to learn it again: ${reason}.`,
    details: { reason },
    usage: { ...ZERO_USAGE },
  };
}

export interface ReplayStrategyOptions {
  secrets?: (ctx: RunContext) => string[];
  resolveWaitMs?: number;
}

export function replayStrategy(deps: StrategyDeps, opts: ReplayStrategyOptions = {}): ExecutionStrategy {
  const trajectories = new TrajectoryStore(deps.store, deps.clock);
  return {
    method: 'REPLAY',
    async run(ctx: RunContext): Promise<RunOutcome> {
      const { slots, key } = trajectoryKeyOf(ctx);
      const found = await trajectories.find(key, schemaHash(ctx.resultSchema), ctx.mode);
      // A stale trajectory is not tried again: without a model to learn it afresh, say so at once.
      if (!found.hit && found.stale && !deps.config.model) return replayMismatch(found.reason);
      if (!found.hit) return { status: 'not_applicable', reason: found.reason };
      const res = await replayTrajectory(ctx, found.trajectory, {
        slots,
        secrets: opts.secrets?.(ctx) ?? [],
        resolveWaitMs: opts.resolveWaitMs,
      });
      if (res.ok) {
        await trajectories.markReplayed(key);
        return { status: 'completed', result: res.result, usage: { ...ZERO_USAGE } };
      }
      if (res.done.length) handovers.set(ctx.page, { described: res.done.map(describeStep), steps: res.done });
      const reason = `the replay stopped at ${res.reason}`;
      if (res.mismatch) {
        // Never an unchecked answer: the planner takes over (and records it again), or the run fails saying what did not match.
        await trajectories.markStale(key, res.reason);
        if (!deps.config.model) return replayMismatch(reason);
      }
      return { status: 'not_applicable', reason, usage: { ...ZERO_USAGE } };
    },
  };
}

export { DEFAULT_PLANNER_OPTIONS, type PlannerOptions } from '../planner/loop';
export { AGENT_FAILURE_CODES, type AgentFailureCode, AgentTimeoutError } from '../result/errors';
export { type ResultCheck, type ResultIssue, validateResult } from '../result/validate';
