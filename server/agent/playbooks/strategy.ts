import type { AgentRequestWarning } from '../../store/records';
import { UserDoorError } from '../handoff/user-ask';
import { validateResult } from '../result/validate';
import type { ExecutionStrategy, RunContext, RunOutcome } from '../run/context';
import { untilAborted } from '../run/errors';
import type { BlockedRequest } from '../run/network-guard';
import { errorText, failureScreenshot, pageUrl } from '../run/trace';
import { WriteRefused } from './errors';
import {
  type PlaybookContext,
  PlaybookNotApplicable,
  type PlaybookRegistry,
  PlaybookStepError,
  type RouteProblem,
  type StepOptions,
} from './registry';
import { emptyResult, shapeToFormat, type ShapeWarning } from './shape';
import { shapeListToFormat } from './shape-list';

/**
 * The first way to run an action: route it to a playbook, run it, and check its result against the JSON
 * Schema compiled from responseFormat (the same validator the planner uses). A timeout or cancel is not
 * caught here: the worker owns those.
 *
 * A write that happened is never a failure. Once the playbook's writing step (step(…, { writes: true }))
 * succeeded, the request completes: fields it cannot fill are null, a later step that fails leaves the
 * whole result null, and a result that does not fit the schema is kept; each is a warning on the request.
 * Failing it would invite the caller to retry, and the retry would repeat the write.
 *
 * A playbook may pause for the end user mid-action (ctx.needsUser: a site asks for a code before it sends). When the
 * person leaves or nobody can be asked, the door's error (UserDoorError) passes through as it is, so the request
 * ends with USER_ACTION_EXITED, USER_ACTION_UNAVAILABLE …, not PLAYBOOK_FAILED (unless a write happened already:
 * then, as above, the request completes).
 */
export class PlaybookStrategy implements ExecutionStrategy {
  readonly method = 'PLAYBOOK' as const;

  constructor(
    private readonly registry: PlaybookRegistry,
    /** Which way this strategy routes: by text alone, by the model alone, or both (default). */
    private readonly by?: 'text' | 'model',
  ) {}

  async run(ctx: RunContext): Promise<RunOutcome> {
    // A request that names its playbook is routed once, by the first playbook strategy.
    if (ctx.playbook && this.by === 'model') return { status: 'not_applicable', reason: `the request names playbook ${ctx.playbook}` };
    const route = await this.registry.route({
      action: ctx.action,
      provider: ctx.provider,
      parameters: ctx.parameters,
      signal: ctx.signal,
      mode: ctx.mode,
      startingUrl: ctx.startingUrl,
      playbook: ctx.playbook ?? null,
      ...(this.by ? { by: this.by } : {}),
    });
    if (!route.playbook) {
      if (ctx.playbook) return namedPlaybookRefused(route.reason, route.problem);
      return { status: 'not_applicable', reason: route.reason, details: route.problem };
    }
    const playbook = route.playbook;
    let wrote: { step: string } | null = null;
    const warnings: ShapeWarning[] = [];
    const lenient = () => (wrote ? { lenient: { warnings } } : {});
    const pctx: PlaybookContext<unknown> = {
      ...ctx,
      params: route.params,
      step: async <T>(tool: string, target: string, fn: () => Promise<T>, opts: StepOptions<T> = {}): Promise<T> => {
        // A write held for the person's approval: the next step waits for their answer.
        await ctx.whileWaiting();
        ctx.signal.throwIfAborted();
        const started = performance.now();
        try {
          const value = await unlessNavigationBlocked(fn, ctx.navigationBlocked);
          ctx.record({ tool, target, url: pageUrl(ctx.page), durationMs: Math.round(performance.now() - started), outcome: 'ok' });
          if (typeof opts.writes === 'function' ? opts.writes(value) : opts.writes) wrote = { step: `${tool} ${target}` };
          return value;
        } catch (err) {
          if (ctx.signal.aborted || err instanceof PlaybookNotApplicable) throw err;
          const screenshot = await failureScreenshot(ctx.page);
          ctx.record({
            tool,
            target,
            url: pageUrl(ctx.page),
            durationMs: Math.round(performance.now() - started),
            outcome: 'error',
            error: errorText(err),
            ...(screenshot ? { screenshot } : {}),
          });
          // The person's answer (they left, nobody could be asked) is the run's outcome, not this step's failure.
          if (err instanceof UserDoorError) throw err;
          throw new PlaybookStepError(tool, target, err, opts.writes && !(err instanceof WriteRefused) ? 'unconfirmed' : undefined);
        }
      },
      // The playbook's declared resultFields let a key the caller named their own way find its field by description.
      fit: (fields, aliases) =>
        shapeToFormat(fields, ctx.responseFormat, aliases, '', { ...lenient(), fieldMeanings: playbook.resultFields }),
      fitList: (read) => shapeListToFormat(read, ctx.responseFormat, '', { ...lenient(), fieldMeanings: playbook.resultFields }),
    };
    let result: unknown;
    try {
      result = await playbook.run(pctx);
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
      if (wrote) {
        // The change happened; only reading it back failed. Complete with nothing filled, and say so.
        const why = `${playbook.name} made its change (${(wrote as { step: string }).step}) but could not read the result back: ${errorText(err)}`;
        result = emptyResult(ctx.responseFormat, '', warnings, why);
      } else if (err instanceof UserDoorError) {
        // Nothing was written and the person did not get the run past their step: the worker ends it with the door's code.
        throw err;
      } else if (err instanceof PlaybookNotApplicable) {
        if (route.via === 'named')
          return {
            status: 'failed',
            code: 'PLAYBOOK_NOT_APPLICABLE',
            message: `Playbook ${playbook.name} cannot serve this request: ${err.message}`,
            details: { playbook: playbook.name },
          };
        return { status: 'not_applicable', reason: `${playbook.name}: ${err.message}` };
      } else {
        const step = err instanceof PlaybookStepError ? { tool: err.tool, target: err.target } : undefined;
        const unconfirmed = err instanceof PlaybookStepError && err.write === 'unconfirmed';
        return {
          status: 'failed',
          code: 'PLAYBOOK_FAILED',
          message:
            `Playbook ${playbook.name} failed: ${errorText(err)}` +
            (unconfirmed ? ' (the change may have been made: check before you retry)' : ''),
          details: { playbook: playbook.name, ...(step ? { step } : {}), ...(unconfirmed ? { write: 'unconfirmed' } : {}) },
        };
      }
    }
    const check = validateResult(ctx.resultSchema, result);
    if (!check.valid && !wrote) {
      return {
        status: 'failed',
        code: 'RESULT_SCHEMA_MISMATCH',
        message: `Playbook ${playbook.name} returned a result that does not match responseFormat: ${check.errors
          .slice(0, 3)
          .map((e) => `${e.path || '(result)'} ${e.message}`)
          .join('; ')}`,
        details: { playbook: playbook.name, errors: check.errors },
      };
    }
    const all: AgentRequestWarning[] = [...warnings];
    if (!check.valid) {
      const named = new Set(warnings.map((w) => w.path));
      for (const e of check.errors) {
        const path = `result${e.path.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.')}`;
        if (!named.has(path)) all.push({ code: 'RESULT_SCHEMA_MISMATCH', path, message: `${e.message} (kept: the change was made)` });
      }
    }
    ctx.record({
      tool: 'done',
      target: `playbook ${playbook.name} (${route.via === 'named' ? 'named' : `${route.via} match`})`,
      url: pageUrl(ctx.page),
      durationMs: 0,
      outcome: 'ok',
    });
    return { status: 'completed', result, ...(all.length ? { warnings: all } : {}) };
  }
}

/**
 * Runs a step until the fence blocks its tab's navigation. The tab then shows the browser's error page, never the
 * page the script waits for: the step fails at once, naming the block, instead of when its wait runs out.
 */
function unlessNavigationBlocked<T>(step: () => Promise<T>, blocked: AbortSignal | undefined): Promise<T> {
  if (!blocked) return step();
  const refused = () => {
    const b = blocked.reason as BlockedRequest;
    return new Error(`the page's navigation to ${b.url} was blocked (${b.reason})`);
  };
  if (blocked.aborted) return Promise.reject(refused());
  return untilAborted(step(), blocked).catch((err: unknown) => {
    throw blocked.aborted && err === blocked.reason ? refused() : err;
  });
}

/** A request that names its playbook gets that playbook or a precise failure, never another way. */
function namedPlaybookRefused(reason: string, problem: RouteProblem): RunOutcome {
  if (problem.kind === 'parameters')
    return { status: 'failed', code: problem.code, message: `Playbook ${problem.playbook}: ${reason}`, details: problem };
  return { status: 'failed', code: 'PLAYBOOK_NOT_APPLICABLE', message: reason, details: problem };
}
