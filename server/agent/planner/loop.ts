import { networkState } from '../../browser/page-quiet';
import { loadingNote, READY_BUDGET_MS, waitForReady } from '../../browser/page-ready';
import type { ChatClient, ChatMessage, ToolCall } from '../model/chat-client';
import { escapeText, type InjectionMarker, newBoundary, type PageSnapshot, Redactor, renderSnapshot, takeSnapshot } from '../observation';
import { describeDescriptor, descriptorOf } from '../observation/element-descriptor';
import type { TrajectoryStep } from '../replay/trajectory';
import { AgentError, errorMessage, guard, isFatal, ModelBadResponseError, ModelError, remaining, ToolError } from '../result/errors';
import { type ResultIssue, validateResult } from '../result/validate';
import { egressOf, type ModelUsage, type RunContext, type RunOutcome } from '../run/context';
import type { RunIntegrity } from '../run/integrity';
import { renderTabs, withTabs } from '../tabs/render-tabs';
import { watchTabs } from '../tabs/run-tabs';
import { executeTool, pageToolNamed, type ParsedCall, parseToolCall, stepWrites, type ToolContext, toolDefinitions } from '../tools';
import { fillDeep, observationPlaceholders, type ParameterSlot, parameterSlots, templateOf, UnknownPlaceholderError } from './placeholders';
import {
  buildOmittedObservation,
  buildQuotedToolResult,
  buildRepairPrompt,
  buildStepPrompt,
  buildSystemPrompt,
  buildTaskPrompt,
  EXTRA_TOOL_CALLS_RESULT,
  NO_TOOL_CALL_FEEDBACK,
} from './prompts';
import { traceStep } from './trace';

/**
 * The planner: an LLM loop over the page (browser-use's agent step). Every step has four phases —
 *   1. observe: snapshot the page (redacted: secrets masked, string parameters as placeholders)
 *   2. ask: send the observation; the model answers with one tool call
 *   3. execute: run the tool on the page
 *   4. post-process: trace it, remember it for the trajectory, reset or count failures
 * — and one error funnel: whatever goes wrong in a step (bad arguments, element gone, blocked navigation)
 * becomes the feedback of the next observation, counted against a limit of consecutive failures. Steps and
 * time are bounded; the deadline and the cancel signal are checked between awaits.
 *
 * Page content is untrusted: every observation and every quoted page text goes to the model escaped, inside a
 * block whose boundary is random per run (observation/untrusted.ts). What had to be escaped, and every refusal
 * of a tool, is noted in ctx.integrity: the run may finish, but it is never recorded for replay.
 */
export interface PlannerOptions {
  maxSteps: number;
  maxConsecutiveFailures: number;
  maxElements: number;
  maxTextChars: number;
}

export const DEFAULT_PLANNER_OPTIONS: PlannerOptions = { maxSteps: 25, maxConsecutiveFailures: 3, maxElements: 300, maxTextChars: 6_000 };

export interface PlannerCompletion {
  steps: TrajectoryStep[];
  /** done.data as the model wrote it (placeholders unfilled) and as returned (filled). */
  rawData: unknown;
  data: unknown;
  /** Whether any step may have changed something on the site (its tool's `writes`: anything but moving around and reading). */
  changedSomething: boolean;
}

export interface PlannerRun {
  outcome: RunOutcome;
  completion?: PlannerCompletion;
}

export interface PlannerInput {
  client: ChatClient;
  options?: Partial<PlannerOptions>;
  /** Further strings never to show the model (credentials …); cookie values are always masked. */
  secrets?: string[];
  /** Steps a replay already performed before handing over, with their trajectory form. */
  handover?: { described: string[]; steps: TrajectoryStep[] };
}

function usageOf(client: ChatClient): ModelUsage {
  return { ...client.usage };
}

/** Notes injection markers found in page content: the run is tainted, and a parameter the page asked for is never filled. */
export function noteMarkers(integrity: RunIntegrity, markers: InjectionMarker[]): void {
  for (const m of markers) {
    integrity.taint('INJECTION_MARKER', `${m.kind.replace('_', ' ')}: ${m.text}`);
    if (m.parameter) integrity.markInjected(m.parameter);
  }
}

/** What the model must not read on this page: the context's cookie values, given secrets, string parameter values. */
export async function redactorFor(ctx: Pick<RunContext, 'context'>, slots: ParameterSlot[], secrets: string[]): Promise<Redactor> {
  const cookies = await ctx.context.cookies().catch(() => []);
  return new Redactor({ secrets: [...cookies.map((c) => c.value), ...secrets], placeholders: observationPlaceholders(slots) });
}

export async function runPlanner(ctx: RunContext, input: PlannerInput): Promise<PlannerRun> {
  const options = { ...DEFAULT_PLANNER_OPTIONS, ...input.options };
  const { client } = input;
  const slots = parameterSlots(ctx.parameters);
  const tools = toolDefinitions(ctx.resultSchema);
  const steps: TrajectoryStep[] = [...(input.handover?.steps ?? [])];
  // The connection's stored credentials (from the worker) are always masked, whatever the caller of runPlanner adds.
  const secrets = [...ctx.secrets, ...(input.secrets ?? [])];
  const boundary = newBoundary();
  const { integrity } = ctx;

  let redactor = await redactorFor(ctx, slots, secrets);
  const egress = egressOf(ctx);
  // The run's tabs: the model may switch the current one, so each step observes whichever is current now.
  const tabs = watchTabs(ctx.page, egress);
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: buildSystemPrompt({
        providerName: ctx.provider.name,
        allowedOrigins: ctx.provider.allowedOrigins,
        maxSteps: options.maxSteps,
        resultSchema: ctx.resultSchema,
        hiddenParameters: slots.filter((s) => s.kind === 'string').map((s) => s.placeholder),
        shownParameters: slots.filter((s) => s.kind !== 'string').map((s) => ({ placeholder: s.placeholder, value: s.value })),
        boundary,
      }),
    },
    {
      role: 'user',
      content: buildTaskPrompt({
        action: templateOf(ctx.action, slots),
        startingUrl: templateOf(redactor.text(ctx.startingUrl), slots),
        alreadyDone: input.handover?.described,
      }),
    },
  ];

  const failed = (code: AgentError['code'], message: string, details?: unknown): PlannerRun => ({
    outcome: { status: 'failed', code, message, ...(details === undefined ? {} : { details }), usage: usageOf(client) },
  });

  /** Phase 2: one model call. Model failures end the run; a timeout or cancel is thrown. */
  const ask = async (toolChoice?: 'auto' | { type: 'function'; function: { name: string } }) => {
    guard(ctx);
    try {
      return await client.complete({ messages, tools, toolChoice, signal: ctx.signal, deadline: ctx.deadline });
    } catch (err) {
      guard(ctx);
      throw err;
    }
  };

  let consecutiveFailures = 0;
  let feedback: string | undefined;
  let lastObservation = -1;
  let lastUrl = ctx.startingUrl;
  /** The page last observed and when: a first look, another tab or a navigation since waits for the page to be ready. */
  let observedPage: RunContext['page'] | undefined;
  let observedAt = 0;

  try {
    for (let step = 1; step <= options.maxSteps; step++) {
      // ---- phase 1: observe (once a write held for the person's approval was decided: nothing acts on the page before)
      await ctx.whileWaiting();
      guard(ctx);
      redactor = await redactorFor(ctx, slots, secrets);
      let snapshot: PageSnapshot;
      let loading: string | undefined;
      for (let attempt = 1; ; attempt++) {
        ctx.page = await tabs.currentPage();
        try {
          if (ctx.page !== observedPage || (networkState(ctx.page, 0).lastRoute ?? 0) >= observedAt) {
            const ready = await waitForReady(ctx.page, { readyWhen: ctx.provider.readyWhen, budgetMs: remaining(ctx, READY_BUDGET_MS) });
            guard(ctx);
            loading = loadingNote(ready);
          }
          observedPage = ctx.page;
          observedAt = Date.now();
          snapshot = await takeSnapshot(ctx.page, {
            redactor,
            maxElements: options.maxElements,
            maxTextChars: options.maxTextChars,
            egress: egressOf(ctx),
          });
          break;
        } catch (err) {
          if (isFatal(err, ctx)) throw err;
          // A tab that closed while it was read: the next attempt observes the tab the run moved to.
          if (ctx.page.isClosed() && attempt < 3) continue;
          throw new AgentError('TOO_MANY_FAILURES', `the page cannot be observed: ${errorMessage(err)}`, { cause: err });
        }
      }
      guard(ctx);
      if (lastObservation >= 0) messages[lastObservation] = { role: 'user', content: buildOmittedObservation(step - 1, lastUrl) };
      lastUrl = snapshot.url;
      const markers: InjectionMarker[] = [];
      const observation = withTabs(
        renderSnapshot(snapshot, { boundary, markers }),
        renderTabs(await tabs.view(), { redactor, boundary, markers }),
      );
      noteMarkers(integrity, markers);
      // What the model saw: a blocked request that carries it away is the run's doing (block-cause.ts).
      integrity.causes.saw(observation, [snapshot.url, snapshot.title]);
      messages.push({
        role: 'user',
        content: buildStepPrompt({ step, maxSteps: options.maxSteps, observation, boundary, feedback, loading }),
      });
      lastObservation = messages.length - 1;
      feedback = undefined;

      // ---- phase 2: ask
      const reply = await ask();
      messages.push(reply.message);
      const [call, ...extra] = reply.message.tool_calls ?? [];
      for (const x of extra) messages.push({ role: 'tool', tool_call_id: x.id, content: EXTRA_TOOL_CALLS_RESULT });

      // ---- phases 3 and 4: execute and post-process, every error through one funnel
      const started = Date.now();
      let parsed: ParsedCall | undefined;
      try {
        if (!call) throw new ToolError(NO_TOOL_CALL_FEEDBACK);
        parsed = parseToolCall(call.function.name, call.function.arguments);
        if (parsed.name === 'fail') {
          await traceStep(ctx, { tool: 'fail', started, outcome: 'ok' });
          return failed('ACTION_FAILED', `the agent could not complete the action: ${parsed.args.reason}`);
        }
        if (parsed.name === 'done') {
          const finished = await finish(parsed.args, call);
          await traceStep(ctx, {
            tool: 'done',
            started,
            outcome: finished.outcome.status === 'completed' ? 'ok' : 'error',
            ...(finished.outcome.status === 'failed' ? { error: finished.outcome.message } : {}),
          });
          return finished;
        }
        const tc: ToolContext = { page: ctx.page, snapshot, slots, redactor, egress, run: ctx, integrity, secrets };
        const result = await executeTool(parsed.name, parsed.args, tc);
        guard(ctx);
        let content = result.message;
        if (result.quoted !== undefined) {
          const quotedMarkers: InjectionMarker[] = [];
          content = buildQuotedToolResult(result.message, escapeText(result.quoted, boundary, quotedMarkers), boundary);
          integrity.causes.saw(result.quoted);
          noteMarkers(integrity, quotedMarkers);
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content });
        // Recorded for a replay as the tool declares it (a tool without `replay`, such as extract, never is).
        if (result.record && pageToolNamed(parsed.name)?.replay) {
          steps.push({
            tool: parsed.name,
            ...(result.target ? { target: descriptorOf(result.target, snapshot) } : {}),
            args: result.record,
          });
        }
        await traceStep(ctx, {
          tool: parsed.name,
          ...(result.target ? { target: describeDescriptor(descriptorOf(result.target, snapshot)) } : {}),
          started,
          outcome: 'ok',
        });
        consecutiveFailures = 0;
      } catch (caught) {
        if (isFatal(caught, ctx) || (caught instanceof AgentError && !(caught instanceof ToolError))) throw caught;
        // The one error funnel: whatever failed in this step (also an unexpected page error) is fed back.
        const err =
          caught instanceof ToolError
            ? caught
            : new ToolError(errorMessage(caught).split('\n')[0]!.slice(0, 300), false, { cause: caught });
        consecutiveFailures += 1;
        if (err.blocked) integrity.taint('POLICY_REFUSAL', err.message);
        if (call) messages.push({ role: 'tool', tool_call_id: call.id, content: `Error: ${err.message}` });
        await traceStep(ctx, {
          tool: parsed?.name ?? call?.function.name ?? '(none)',
          started,
          outcome: err.blocked ? 'blocked' : 'error',
          error: err.message,
        });
        if (consecutiveFailures >= options.maxConsecutiveFailures) {
          return failed('TOO_MANY_FAILURES', `${consecutiveFailures} actions in a row failed; the last: ${err.message}`);
        }
        feedback = err.message;
      }
    }
    return failed('MAX_STEPS_EXCEEDED', `the action was not finished within ${options.maxSteps} steps`);
  } catch (err) {
    if (err instanceof ModelError || err instanceof ModelBadResponseError) return failed(err.code, err.message);
    if (err instanceof AgentError && err.code !== 'TIMED_OUT' && err.code !== 'TOOL_ERROR') return failed(err.code, err.message);
    throw err;
  }

  /** done: fill placeholders, validate against the schema; one repair turn on a mismatch. */
  async function finish(args: { success: boolean; data: unknown }, call: ToolCall): Promise<PlannerRun> {
    if (!args.success) return failed('ACTION_FAILED', 'the agent reported that the action could not be completed');
    const fill = (data: unknown) => {
      try {
        return fillDeep(data, slots);
      } catch (err) {
        if (err instanceof UnknownPlaceholderError) throw new ToolError(`done: ${err.message}`);
        throw err;
      }
    };
    let raw = args.data;
    let filled = fill(raw);
    let check = validateResult(ctx.resultSchema, filled);
    if (!check.valid) {
      const errors: ResultIssue[] = check.errors;
      messages.push({ role: 'tool', tool_call_id: call.id, content: `Rejected: the data does not match the schema.` });
      messages.push({ role: 'user', content: buildRepairPrompt(errors) });
      const reply = await ask({ type: 'function', function: { name: 'done' } });
      messages.push(reply.message);
      const again = reply.message.tool_calls?.[0];
      let parsedAgain: ParsedCall | undefined;
      try {
        parsedAgain = again ? parseToolCall(again.function.name, again.function.arguments) : undefined;
      } catch {
        parsedAgain = undefined;
      }
      if (!parsedAgain || parsedAgain.name !== 'done' || !parsedAgain.args.success) {
        return failed('RESULT_SCHEMA_MISMATCH', 'the result does not match responseFormat, and the repair turn did not correct it', errors);
      }
      raw = parsedAgain.args.data;
      try {
        filled = fill(raw);
      } catch (err) {
        return failed('RESULT_SCHEMA_MISMATCH', `the repaired result is not usable: ${errorMessage(err)}`, errors);
      }
      check = validateResult(ctx.resultSchema, filled);
      if (!check.valid) {
        return failed('RESULT_SCHEMA_MISMATCH', 'the result does not match responseFormat, also after one repair turn', check.errors);
      }
    }
    return {
      outcome: { status: 'completed', result: filled, usage: usageOf(client) },
      completion: { steps, rawData: raw, data: filled, changedSomething: steps.some(stepWrites) },
    };
  }
}
